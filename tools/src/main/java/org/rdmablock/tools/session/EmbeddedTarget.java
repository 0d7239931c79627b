package org.rdmablock.tools.session;

import org.rdmablock.protocol.srp.SrpTargetPortId;
import org.rdmablock.target.LunInventory;
import org.rdmablock.target.backend.BackendFactory;
import org.rdmablock.target.core.TargetDevice;
import org.rdmablock.target.config.ChannelConfig;
import org.rdmablock.target.config.ConfigException;
import org.rdmablock.target.config.ListenConfig;
import org.rdmablock.target.config.NvmeConfig;
import org.rdmablock.target.config.TargetConfig;
import org.rdmablock.target.config.TargetConfigReader;
import org.rdmablock.target.metrics.TargetStatistics;
import org.rdmablock.target.nvme.NvmeTarget;
import org.rdmablock.target.srp.SrpTarget;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * A tool's own target ({@code --embedded-target}): our SRP target in this process on 127.0.0.1, a free port, one LUN 0
 * of the given backend, every other setting the daemon's default (so {@code backend_threads = "auto"}: a memory or
 * null LUN runs on the poller thread, a file LUN gets four backend threads). Handy for a quick run and for tests; the tool and
 * the target then share this process's CPUs, so for figures to compare run the daemon apart
 * ({@code bin/rdmablock target --config}).
 */
public final class EmbeddedTarget implements AutoCloseable {
    /** The address it listens on. */
    public static final String ADDRESS = "127.0.0.1";
    private final LunInventory inventory;
    /** The device both front ends share (one pipeline, one poller), as the daemon's. */
    private final TargetDevice device;
    private final SrpTarget target;
    /** The NVMe side, on a port of its own, when one was asked for; else null. */
    private final NvmeTarget nvme;
    private final long idExt;

    private EmbeddedTarget(final LunInventory inventory, final TargetDevice device, final SrpTarget target,
                           final NvmeTarget nvme, final long idExt) {
        this.inventory = inventory;
        this.device = device;
        this.target = target;
        this.nvme = nvme;
        this.idExt = idExt;
    }

    /**
     * Starts a target on {@code provider} with LUN 0 of {@code backend} ({@code memory}, {@code null}, or {@code file}
     * with {@code file} the sparse image, made if absent), {@code sizeBytes} of 512-byte blocks.
     */
    public static EmbeddedTarget start(final String backend, final long sizeBytes, final Path file, final String provider) {
        return start(backend, sizeBytes, file, provider, null);
    }

    /**
     * {@link #start(String, long, Path, String)}, and with {@code subsystemNqn} not null an NVMe over Fabrics side too,
     * on the same device and pipeline: that subsystem, LUN 0 as its namespace 1, on a free port of its own
     * ({@link #nvmeAddress}).
     */
    public static EmbeddedTarget start(final String backend, final long sizeBytes, final Path file, final String provider,
                                       final String subsystemNqn) {
        final String kind = backend.toLowerCase(Locale.ROOT);
        if (!kind.equals("memory") && !kind.equals("null") && !kind.equals("file")) {
            throw new IllegalArgumentException("--embedded-target must be memory, null or file, not " + backend);
        }
        if (kind.equals("file") == (file == null)) {
            throw new IllegalArgumentException(file == null ? "a file target needs its image's path"
                    : "only a file target takes a path");
        }
        final long id = SrpTargetPortId.derivedIdExt(ADDRESS, 0);
        final String toml = String.format(Locale.ROOT, """
                [listen]
                provider = "%s"
                address = "%s"
                port = 1
                [target]
                id_ext = "0x%016x"
                ioc_guid = "0x%016x"
                [channel]
                max_channels_per_initiator = %d
                [[lun]]
                number = 0
                backend = "%s"
                size = %d
                %s
                """, provider, ADDRESS, id, id, ChannelConfig.DEFAULT_MAX_CHANNELS, kind, sizeBytes,
                file == null ? "" : "path = \"" + file.toAbsolutePath().toString().replace("\\", "\\\\").replace("\"", "\\\"")
                        + "\"\ncreate = true");
        final TargetConfig read;
        try {
            read = TargetConfigReader.read(toml, "<embedded target>", Path.of("").toAbsolutePath());
        } catch (ConfigException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
        // the reader takes ports 1..65535; the record takes 0: any free port
        final TargetConfig config = new TargetConfig(read.source(), new ListenConfig(provider, ADDRESS, 0), read.identity(),
                read.channel(), read.pipeline(), read.timeouts(), read.luns());
        final LunInventory inventory = new LunInventory(config, BackendFactory::open);
        final TargetStatistics statistics = new TargetStatistics();
        TargetDevice device = null;
        SrpTarget srp = null;
        try {
            device = TargetDevice.open(config, statistics);
            srp = SrpTarget.start(device, inventory::unitsFor, statistics);
            final NvmeTarget nvme = subsystemNqn == null ? null : NvmeTarget.start(device, new NvmeConfig(0, List.of(
                    new NvmeConfig.Subsystem(subsystemNqn, String.format(Locale.ROOT, "%016x", id),
                            NvmeConfig.Subsystem.DEFAULT_MODEL, List.of(), Set.of()))),
                    inventory.liveUnitsFor(NvmeTarget.NVME_HOSTS), statistics);
            device.ready();
            return new EmbeddedTarget(inventory, device, srp, nvme, id);
        } catch (RuntimeException e) {
            if (srp != null) {
                srp.close();
            }
            if (device != null) {
                device.close();
            }
            inventory.close();
            throw e;
        }
    }

    /** Where it listens (the real port). */
    public InetSocketAddress address() {
        return target.localAddress();
    }

    /** Where its NVMe side listens; null without one. */
    public InetSocketAddress nvmeAddress() {
        return nvme != null ? nvme.localAddress() : null;
    }

    /** Its id_ext, and ioc_guid (the same). */
    public long idExt() {
        return idExt;
    }

    /** {@code host:port}, for reports. */
    public String where() {
        return ADDRESS + ":" + (nvme != null ? nvmeAddress() : address()).getPort();
    }

    @Override
    public void close() {
        try {
            if (nvme != null) {
                nvme.close();
            }
            target.close();
            device.close(); // after both front ends stopped taking connections
        } finally {
            inventory.close();
        }
    }
}

package org.rdmablock.target.config;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * Writes a {@link TargetConfig} as the TOML {@link TargetConfigReader} reads back to an equal one: every key of every
 * table, with its value as the daemon runs it (paths absolute, sizes in bytes, durations in milliseconds, derived
 * values written out). What the management socket's {@code save} writes, and how its verbs check a changed
 * configuration (written, then read back with the reader's every check). Comments of the file it replaces are not
 * kept; the previous file is (as {@code .bak}).
 */
public final class TargetConfigWriter {
    private TargetConfigWriter() {
    }

    /** The TOML text of {@code config}, headed by {@code heading} (comment lines, without their '#'). */
    public static String write(final TargetConfig config, final List<String> heading) {
        final StringBuilder out = new StringBuilder();
        heading.forEach(line -> out.append("# ").append(line).append('\n'));
        final ListenConfig listen = config.listen();
        out.append("\n[listen]\n");
        key(out, "provider", string(listen.provider()));
        key(out, "address", string(listen.address()));
        key(out, "port", Integer.toString(listen.port()));
        key(out, "group", Integer.toString(config.ports().listenGroup()));
        for (final PortsConfig.Port port : config.ports().ports()) {
            out.append("\n[[port]]\n");
            key(out, "id", Integer.toString(port.id()));
            key(out, "address", string(port.address()));
            key(out, "port", Integer.toString(port.port()));
            key(out, "group", Integer.toString(port.group()));
        }
        for (final PortsConfig.Group group : config.ports().groups()) {
            out.append("\n[[port_group]]\n");
            key(out, "id", Integer.toString(group.id()));
            key(out, "state", string(group.state().configName()));
        }
        out.append("\n[target]\n");
        key(out, "id_ext", hexId(config.identity().idExt()));
        key(out, "ioc_guid", hexId(config.identity().iocGuid()));
        final ChannelConfig channel = config.channel();
        out.append("\n[channel]\n");
        key(out, "credits", Integer.toString(channel.credits()));
        key(out, "max_iu_length", Integer.toString(channel.maxIuLength()));
        key(out, "max_io_size", Integer.toString(channel.maxIoSize()));
        key(out, "immediate_data", Boolean.toString(channel.immediateData()));
        if (channel.immediateDataSize() > 0) { // 0 only where derived (no immediate data, no room): the reader derives it again
            key(out, "immediate_data_size", Integer.toString(channel.immediateDataSize()));
        }
        key(out, "max_channels", Integer.toString(channel.maxChannels()));
        key(out, "max_channels_per_initiator", Integer.toString(channel.maxChannelsPerInitiator()));
        final PipelineConfig pipeline = config.pipeline();
        out.append("\n[pipeline]\n");
        key(out, "cq_size", Integer.toString(pipeline.cqSize()));
        key(out, "ring_size", Integer.toString(pipeline.ringSize()));
        key(out, "backend_threads", threads(pipeline.backendThreads()));
        key(out, "blocking_threads", threads(pipeline.blockingThreads()));
        key(out, "receive_queue", string(pipeline.receiveQueue() == PipelineConfig.ReceiveQueueMode.SHARED ? "srq"
                : "per-channel"));
        key(out, "completions", string(pipeline.completions() == PipelineConfig.CompletionMode.EVENT ? "event" : "poll"));
        out.append("\n[timeouts]\n");
        key(out, "idle", duration(config.timeouts().idle()));
        key(out, "command", duration(config.timeouts().command()));
        final MetricsConfig metrics = config.metrics();
        out.append("\n[metrics]\n");
        key(out, "address", string(!metrics.served() ? ""
                : (metrics.host().contains(":") ? "[" + metrics.host() + "]" : metrics.host()) + ":" + metrics.port()));
        key(out, "summary_interval", duration(metrics.summaryInterval()));
        out.append("\n[admin]\n");
        key(out, "socket", string(config.admin().served() ? config.admin().socket().toString() : ""));
        if (config.nvme().enabled()) {
            // [nvme]'s own subsystem, if the file had one, is written as a [[subsystem]] like the others
            out.append("\n[nvme]\n");
            key(out, "port", Integer.toString(config.nvme().port()));
            for (final NvmeConfig.Subsystem subsystem : config.nvme().subsystems()) {
                out.append("\n[[subsystem]]\n");
                key(out, "nqn", string(subsystem.nqn()));
                key(out, "serial", string(subsystem.serial()));
                key(out, "model", string(subsystem.model()));
                key(out, "namespaces", subsystem.namespaces().stream().map(String::valueOf)
                        .collect(Collectors.joining(", ", "[", "]")));
                key(out, "allowed_hosts", subsystem.allowedHosts().stream().sorted().map(TargetConfigWriter::string)
                        .collect(Collectors.joining(", ", "[", "]")));
            }
        }
        for (final LunConfig lun : config.luns()) {
            lun(out, lun);
        }
        return out.toString();
    }

    private static void lun(final StringBuilder out, final LunConfig lun) {
        out.append("\n[[lun]]\n");
        key(out, "number", Integer.toString(lun.number()));
        key(out, "backend", string(lun.backend().name().toLowerCase(Locale.ROOT)));
        final boolean stored = lun.backend() == LunConfig.BackendKind.FILE || lun.backend() == LunConfig.BackendKind.ROCKSDB;
        if (stored) {
            key(out, "path", string(lun.path().toString()));
            key(out, "create", Boolean.toString(lun.create()));
        }
        if (lun.backend() == LunConfig.BackendKind.FILE) {
            key(out, "grow", Boolean.toString(lun.grow()));
        }
        key(out, "size", Long.toString(lun.sizeBytes()));
        key(out, "block_size", Integer.toString(lun.blockSize()));
        key(out, "read_only", Boolean.toString(lun.readOnly()));
        key(out, "write_cache", string(lun.writeCache() == LunConfig.WriteCachePolicy.WRITE_BACK ? "write-back"
                : "write-through"));
        if (lun.backend() == LunConfig.BackendKind.FILE) {
            key(out, "direct_io", Boolean.toString(lun.directIo()));
        }
        if (lun.backend() == LunConfig.BackendKind.ROCKSDB) {
            key(out, "block_cache", Long.toString(lun.blockCacheBytes()));
        }
        key(out, "allowed_initiators", lun.allowedInitiators().stream().map(id -> string("0x" + id))
                .collect(Collectors.joining(", ", "[", "]")));
    }

    private static void key(final StringBuilder out, final String key, final String value) {
        out.append(key).append(" = ").append(value).append('\n');
    }

    private static String hexId(final long id) {
        return string(String.format("0x%016x", id));
    }

    private static String threads(final int threads) {
        return threads == PipelineConfig.AUTO_BACKEND_THREADS ? string("auto") : Integer.toString(threads);
    }

    /** Exact seconds, as a decimal to the nanosecond ("0.0005s"); "0" for none. */
    private static String duration(final Duration d) {
        return string(d.isZero() ? "0" : java.math.BigDecimal.valueOf(d.getSeconds())
                .add(java.math.BigDecimal.valueOf(d.getNano(), 9)).stripTrailingZeros().toPlainString() + "s");
    }

    /** A TOML basic string: quotes, backslashes and control characters escaped. */
    public static String string(final String text) {
        final StringBuilder out = new StringBuilder("\"");
        for (int i = 0; i < text.length(); i++) {
            final char c = text.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20 || c == 0x7F) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.append('"').toString();
    }
}

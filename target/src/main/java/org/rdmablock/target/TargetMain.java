package org.rdmablock.target;

import org.rdmablock.protocol.scsi.NexusRegistry;
import org.rdmablock.target.admin.AdminCommand;
import org.rdmablock.target.admin.AdminEndpoint;
import org.rdmablock.target.admin.AdminMethods;
import org.rdmablock.target.backend.BackendFactory;
import org.rdmablock.target.config.ConfigException;
import org.rdmablock.target.config.PipelineConfig;
import org.rdmablock.target.config.TargetConfig;
import org.rdmablock.target.config.TargetConfigReader;
import org.rdmablock.target.metrics.PrometheusEndpoint;
import org.rdmablock.target.metrics.SummaryLine;
import org.rdmablock.target.metrics.TargetStatistics;
import org.rdmablock.target.core.TargetDevice;
import org.rdmablock.target.nvme.NvmeTarget;
import org.rdmablock.target.srp.SrpTarget;
import org.rdmablock.target.config.NvmeConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/**
 * The target daemon's entry point: reads the configuration (a file, or the embedded default), opens the LUNs, starts
 * the SRP target and runs until SIGTERM or Ctrl-C, which log every initiator out and close the LUNs. SIGHUP re-reads
 * the file and applies its LUN and access-list changes without dropping sessions. With a [metrics] address it serves
 * the Prometheus endpoint, and it logs a summary line every [metrics] summary_interval.
 *
 * <p>Logging goes through SLF4J; run as a program ({@link #main}), java.util.logging is routed there too, so that the
 * verbs providers' lines land in the same log (Logback's, with the daemon's class path).
 */
@Command(name = "rdmablock [target]", mixinStandardHelpOptions = true, versionProvider = CommandLines.Version.class,
        description = "Serves LUNs to SRP initiators over RDMA (the soft provider on hosts without an RDMA NIC).",
        footer = {"", "Commands of bin/rdmablock (each with --help):",
                "  target   serve LUNs: the options above (the default: bin/rdmablock alone serves the embedded config)",
                "  bench    block I/O benchmark against a target, fio-like",
                "  mount    mount a target's LUNs as files through FUSE (lun0.img, ...)",
                "  admin    ask a running daemon over its management socket: status, luns, sessions, reload, logout"})
public final class TargetMain implements Callable<Integer> {
    private static final Logger LOG = LoggerFactory.getLogger(TargetMain.class);
    /** Exit status of a configuration error (picocli uses 2 for usage errors too). */
    static final int EXIT_CONFIG = 2;
    /** Exit status when the target cannot start (a LUN cannot be opened, the port is taken). */
    static final int EXIT_START = 1;
    /** How long a change waits for the commands in flight on the LUNs it closes or shrinks before it goes on. */
    static final Duration RELOAD_QUIESCE = Duration.ofSeconds(30);

    @Option(names = {"-c", "--config"}, paramLabel = "FILE",
            description = "TOML configuration (deploy/rdmablock.toml documents every key); default: the embedded one")
    Path config;

    @Option(names = "--check", description = "Read and check the configuration, print what it would serve, and exit")
    boolean checkOnly;

    private final PrintStream out;
    private final PrintStream err;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private volatile Runnable stopper = () -> { };
    /** The management socket, when [admin] socket is set. */
    private volatile AdminEndpoint admin;
    /** The NVMe over Fabrics front end, when the config has a subsystem. */
    private volatile NvmeTarget nvme;
    /** The device and pipeline the front ends share. */
    private volatile TargetDevice devices;
    /**
     * Whether SIGTERM and SIGINT stop the daemon as {@link #stop()} does, so that it exits 0 (the JVM's own handling
     * would exit 143 or 130, which systemd reads as a failure): set by {@link #main} only, since a handler outlives the
     * daemon and would leave an embedding JVM deaf to SIGTERM.
     */
    private boolean stopsOnSignals;

    public TargetMain() {
        this(System.out, System.err);
    }

    /** A daemon that prints its banner to {@code out} and its refusals to {@code err} (for embedding and tests). */
    public TargetMain(final PrintStream out, final PrintStream err) {
        this.out = out;
        this.err = err;
    }

    public static void main(final String[] args) {
        if (args.length > 0 && args[0].equals("admin")) {
            System.exit(CommandLines.of(new AdminCommand(), "rdmablock admin").execute(java.util.Arrays.copyOfRange(args, 1,
                    args.length)));
        }
        JavaLoggingBridge.install();
        final String[] rest = args.length > 0 && args[0].equals("target") ? java.util.Arrays.copyOfRange(args, 1, args.length) : args;
        final TargetMain daemon = new TargetMain();
        daemon.stopsOnSignals = true;
        System.exit(CommandLines.of(daemon, "rdmablock target").execute(rest));
    }

    @Override
    public Integer call() throws Exception {
        final TargetConfig cfg;
        try {
            cfg = config != null ? TargetConfigReader.read(config) : embeddedDefault();
        } catch (ConfigException e) {
            err.println(e.getMessage());
            return EXIT_CONFIG;
        } catch (IOException e) {
            err.println("cannot make the embedded default's folder ./" + TargetConfigReader.EMBEDDED_FOLDER + ": " + e);
            return EXIT_START;
        }
        if (checkOnly) {
            printCheck(cfg);
            return 0;
        }
        final LunInventory inventory;
        try {
            // persistent reservations that persist through power loss live next to the config file; the embedded
            // default has none, and refuses APTPL
            inventory = new LunInventory(cfg, BackendFactory::open, new NexusRegistry(), config == null ? null
                    : TargetConfig.baseDirectory(config).resolve(AptplFiles.FOLDER));
        } catch (RuntimeException e) {
            err.println("cannot open the LUNs of " + cfg.source() + ": " + e.getMessage());
            return EXIT_START;
        }
        final TargetStatistics statistics = new TargetStatistics();
        statistics.lunsServed(inventory.numbers());
        final PrometheusEndpoint endpoint;
        try {
            endpoint = cfg.metrics().served()
                    ? PrometheusEndpoint.start(cfg.metrics().host(), cfg.metrics().port(), statistics) : null;
        } catch (IOException | RuntimeException e) {
            inventory.close();
            err.println("cannot serve the metrics on " + cfg.metrics().host() + ":" + cfg.metrics().port() + ": " + e);
            return EXIT_START;
        }
        // SRP and (with a subsystem) NVMe over Fabrics on one device and one pipeline
        final TargetDevice devices;
        final SrpTarget target;
        try {
            devices = TargetDevice.open(cfg, statistics);
        } catch (RuntimeException e) {
            closeOnFailure(endpoint, inventory);
            err.println("cannot start the target on " + cfg.listen().provider() + " " + cfg.listen().address() + ":"
                    + cfg.listen().port() + ": " + e.getMessage());
            return EXIT_START;
        }
        try {
            target = SrpTarget.start(devices, inventory::unitsFor, statistics, inventory.nexuses());
        } catch (RuntimeException e) {
            devices.close();
            closeOnFailure(endpoint, inventory);
            err.println("cannot start the target on " + cfg.listen().provider() + " " + cfg.listen().address() + ":"
                    + cfg.listen().port() + ": " + e.getMessage());
            return EXIT_START;
        }
        if (cfg.nvme().enabled()) {
            try {
                nvme = NvmeTarget.start(devices, cfg.nvme(), inventory.liveUnitsFor(NvmeTarget.NVME_HOSTS), statistics);
            } catch (RuntimeException e) {
                target.close();
                devices.close();
                closeOnFailure(endpoint, inventory);
                err.println("cannot start the NVMe front end on " + cfg.listen().address() + ":" + cfg.nvme().port() + ": "
                        + e.getMessage());
                return EXIT_START;
            }
        }
        devices.ready();
        this.devices = devices;
        final RunningConfiguration running = new RunningConfiguration(config, cfg, inventory, target, RELOAD_QUIESCE, () -> {
            statistics.lunsServed(inventory.numbers());
            final NvmeTarget namespaces = nvme;
            if (namespaces != null) {
                namespaces.namespacesChanged();
            }
        });
        if (cfg.admin().served()) {
            try {
                admin = AdminEndpoint.start(cfg.admin().socket(), AdminMethods.of(new AdminMethods.Sources(cfg,
                        target::providerName, target::localAddress, target::targetPortId, inventory, statistics,
                        java.time.Instant.now(), running, target::logOut, portControl(target))));
            } catch (RuntimeException e) {
                if (nvme != null) {
                    nvme.close();
                }
                target.close();
                devices.close();
                closeOnFailure(endpoint, inventory);
                err.println(e.getMessage());
                return EXIT_START;
            }
        }
        final SummaryLine summary = cfg.metrics().summaryInterval().isZero() ? null
                : SummaryLine.logEvery(cfg.metrics().summaryInterval(), statistics);
        final Runnable stopAll = () -> stop(target, inventory, summary, endpoint);
        Runtime.getRuntime().addShutdownHook(new Thread(stopAll, "rdmablock-shutdown"));
        stopper = stopAll;
        installReload(running);
        if (stopsOnSignals) {
            for (final String name : new String[]{"TERM", "INT"}) {
                sun.misc.Signal.handle(new sun.misc.Signal(name), signal -> stopAll.run());
            }
        }
        banner(cfg, inventory, target, endpoint);
        RunningConfiguration.warnIfInlineBlocks(target.pipeline(), cfg.luns());
        stopped.await();
        return 0;
    }

    /**
     * The embedded default, as the daemon serves it: its folder ({@value TargetConfigReader#EMBEDDED_FOLDER} in the
     * working directory) made first, as no config of the user's names it (for {@code --check}, the text only).
     */
    private TargetConfig embeddedDefault() throws ConfigException, IOException {
        if (checkOnly) {
            return TargetConfigReader.embeddedDefault(TargetConfigReader.Storage.NOT_CHECKED);
        }
        java.nio.file.Files.createDirectories(Path.of(TargetConfigReader.EMBEDDED_FOLDER));
        return TargetConfigReader.embeddedDefault(TargetConfigReader.Storage.CHECKED);
    }

    /** What {@code --check} prints of a config it accepts: where it would listen, and each LUN it would serve. */
    private void printCheck(final TargetConfig cfg) {
        out.println(cfg.source() + ": OK, " + cfg.luns().size() + " LUN(s)");
        printLine("  would listen: %s provider on %s:%d, target port id_ext=%016x, ioc_guid=%016x%n",
                cfg.listen().provider(), cfg.listen().address(), cfg.listen().port(), cfg.identity().idExt(),
                cfg.identity().iocGuid());
        cfg.luns().forEach(lun -> out.println("  " + LunInventory.describe(lun)));
        if (cfg.metrics().served()) {
            printLine("  metrics on %s:%d%n", cfg.metrics().host(), cfg.metrics().port());
        }
        out.flush();
    }

    private static void closeOnFailure(final PrometheusEndpoint endpoint, final LunInventory inventory) {
        if (endpoint != null) {
            endpoint.close();
        }
        inventory.close();
    }

    /** Stops a running {@link #call()}, as SIGTERM does (for embedding and tests). */
    public void stop() {
        stopper.run();
    }

    private synchronized void stop(final SrpTarget target, final LunInventory inventory, final SummaryLine summary,
                                   final PrometheusEndpoint endpoint) {
        if (stopped.getCount() == 0) {
            return;
        }
        // printed, not logged: a logging system may be shutting down in a shutdown hook of its own
        out.println("rdmablock target: stopping (logging initiators out, closing the LUNs)");
        try {
            if (admin != null) {
                admin.close();
            }
            if (summary != null) {
                summary.close();
            }
            if (nvme != null) {
                nvme.close();
            }
            target.close();
            devices.close(); // after both front ends stopped taking connections: every channel logged out
        } finally {
            inventory.close();
            if (endpoint != null) {
                endpoint.close();
            }
            out.println("rdmablock target: stopped");
            stopped.countDown();
        }
    }

    private void banner(final TargetConfig cfg, final LunInventory inventory, final SrpTarget target,
                        final PrometheusEndpoint endpoint) {
        final var address = target.localAddress();
        printLine("rdmablock target: %s provider, listening on %s:%d (config: %s)%n", target.providerName(),
                address.getAddress().getHostAddress(), address.getPort(), cfg.source());
        printLine("target port id %s (id_ext=%016x, ioc_guid=%016x)%n", target.targetPortId(), cfg.identity().idExt(),
                cfg.identity().iocGuid());
        inventory.describe().forEach(line -> out.println("  " + line));
        if (target.ports().size() > 1) {
            for (final SrpTarget.PortStatus port : target.ports()) {
                printLine("  SRP target port %d: %s:%d, target port group %d (%s)%n", port.id(),
                        port.address().getAddress().getHostAddress(), port.address().getPort(), port.group(), port.state());
            }
        }
        final var pipeline = target.pipeline();
        printLine("pipeline: completions %s, %s%s%n", pipeline.completions() == PipelineConfig.CompletionMode.EVENT
                        ? "by event (sleeps when idle)" : "by polling",
                pipeline.backendThreads() != 0 ? pipeline.backendThreads() + " backend thread(s)"
                        : pipeline.blockingThreads() == 0 ? "commands and backend calls run on the poller thread"
                        : "commands run on the poller thread, backend calls that would wait on "
                                + pipeline.blockingThreads() + " blocking-call thread(s)",
                cfg.pipeline().blockingAutomatic() && pipeline.backendThreads() == 0
                        ? (pipeline.blockingThreads() == 0 ? " (auto: no LUN that blocks)" : " (auto: LUNs that can block)") : "");
        if (endpoint != null) {
            printLine("metrics: http://%s:%d/metrics%n", endpoint.address().getHostString(), endpoint.address().getPort());
        }
        if (admin != null) {
            printLine("admin: %s (bin/rdmablock admin --socket %s status)%n", admin.socket(), admin.socket());
        }
        if (nvme != null) {
            for (final NvmeConfig.Subsystem subsystem : cfg.nvme().subsystems()) {
                printLine("NVMe over Fabrics: subsystem %s, namespace n = LUN n-1 of %s: nvme connect -t rdma -a %s -s %d"
                                + " -n %s%n", subsystem.nqn(), subsystem.namespaces().isEmpty()
                                ? "those open to every initiator" : "LUNs " + subsystem.namespaces(),
                        address.getAddress().getHostAddress(), nvme.localAddress().getPort(), subsystem.nqn());
            }
        }
        printLine("reach it: Linux ib_srp: echo id_ext=%016x,ioc_guid=%016x,dest=%s:%d > "
                        + "/sys/class/infiniband_srp/srp-<device>-1/add_target  (Ctrl-C stops%s)%n",
                cfg.identity().idExt(), cfg.identity().iocGuid(), address.getAddress().getHostAddress(), address.getPort(),
                config != null ? "; SIGHUP re-reads " + config : "");
        out.flush();
    }

    /**
     * Prints one formatted line in a single write: the log (stderr) often shares the file (a redirect, the journal),
     * and a printf's pieces let another thread's log line in mid-line, which broke the add_target line a script read.
     */
    private void printLine(final String format, final Object... args) {
        out.print(String.format(format, args));
    }

    /** Logged at start when this process was started with SIGHUP ignored, so that no reload will ever happen. */
    static final String SIGHUP_IGNORED = "SIGHUP is ignored in this process (started under nohup?): the config cannot be"
            + " reloaded by SIGHUP; start the daemon without nohup (systemd, setsid, or a terminal) to reload it";

    /** SIGHUP: re-read the file; apply LUN and access-list changes, refuse changes that need a restart. */
    private static void installReload(final RunningConfiguration running) {
        try {
            final sun.misc.SignalHandler previous = sun.misc.Signal.handle(new sun.misc.Signal("HUP"),
                    signal -> running.reload());
            if (previous == sun.misc.SignalHandler.SIG_IGN) {
                // The JVM keeps a signal its parent ignored ignored, and installs no handler for it
                LOG.warn(SIGHUP_IGNORED);
            }
        } catch (IllegalArgumentException e) {
            LOG.warn("SIGHUP reload unavailable on this platform: {}", e.getMessage());
        }
    }

    /** The SRP target's ports as the management socket lists and changes them. */
    private static AdminMethods.PortControl portControl(final SrpTarget target) {
        return new AdminMethods.PortControl() {
            @Override
            public java.util.List<AdminMethods.Port> ports() {
                return target.ports().stream().map(p -> new AdminMethods.Port(p.id(), p.address().getAddress().getHostAddress(),
                        p.address().getPort(), p.group(), p.state(), p.listening(), p.channels())).toList();
            }

            @Override
            public int down(final int id) {
                return target.portDown(id);
            }

            @Override
            public void up(final int id) {
                target.portUp(id);
            }
        };
    }
}

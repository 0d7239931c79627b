package org.rdmablock.tools.soak;

import org.rdmablock.initiator.InitiatorConfig;
import org.rdmablock.initiator.SrpInitiator;
import org.rdmablock.target.CommandLines;
import org.rdmablock.target.TargetMain;
import org.rdmablock.target.config.Quantities;
import org.rdmablock.tools.mount.MountCommand;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code rdmablock soak}: verified I/O for {@code --duration} against a target daemon this command runs (a child JVM
 * on the soft provider, one write-through file LUN in {@code --dir}) and stops every {@code --restart-every}, by
 * SIGKILL and SIGTERM in turn, then starts again. The I/O goes through the initiator library ({@code --writers}, a
 * channel each, in this JVM) and through the FUSE volume ({@code --fuse-writers}, on {@code rdmablock mount} in a
 * child JVM, the LUN file opened O_DIRECT); each writer owns its blocks. Both initiators ride the restarts out by
 * themselves (they log in again and send again what was not answered). Every {@code --sample-every} a row goes to the
 * CSV and a line to stderr: I/Os, verify errors, failures, reconnects, and the daemon's and the mount's resident
 * memory, threads and open file descriptors; {@code --chart} draws those over time. At the end every block written is
 * read back, each through the client that wrote it.
 *
 * <p>Exit status: 0 every block read back as written (verify errors 0); 1 the run could not go on (the daemon did
 * not start, the initiator could not log in); 2 a bad option; 3 a verify error (the first is printed).
 */
@Command(name = "rdmablock soak", mixinStandardHelpOptions = true, versionProvider = CommandLines.Version.class, sortOptions = false,
        description = "Verified I/O against a target daemon that is restarted every few minutes, with its memory, threads "
                + "and file descriptors over time.")
public final class SoakCommand implements Callable<Integer> {
    static final String CSV_HEADER = "seconds,writes,reads,failed,verify_errors,reconnects,restarts,daemon_rss_kib,"
            + "daemon_threads,daemon_fds,fuse_writes,fuse_reads,mount_rss_kib,mount_threads,mount_fds";
    static final int EXIT_VERIFY = 3;
    private static final int BLOCK = 4096;
    /**
     * How long the mount's I/O waits for the target to come back before it fails with EIO: longer than a restart of
     * the daemon takes, so that the FUSE writers see the restarts as pauses, not failures.
     */
    private static final String MOUNT_IO_TIMEOUT = "60s";

    @Option(names = "--duration", defaultValue = "60s", description = "how long to run: 90s, 10m, 1h (default: ${DEFAULT-VALUE})")
    String duration;

    @Option(names = "--restart-every", defaultValue = "3m", description = "stop and start the daemon this often, by SIGKILL "
            + "and SIGTERM in turn (default: ${DEFAULT-VALUE})")
    String restartEvery;

    @Option(names = "--sample-every", defaultValue = "5s", description = "a CSV row and a progress line this often (default: ${DEFAULT-VALUE})")
    String sampleEvery;

    @Option(names = "--writers", defaultValue = "4", description = "writer threads through the initiator library, a channel "
            + "each (default: ${DEFAULT-VALUE})")
    int writers;

    @Option(names = "--fuse-writers", defaultValue = "1", description = "writer threads through the FUSE volume (rdmablock "
            + "mount in a child JVM; needs FUSE); 0 for none (default: ${DEFAULT-VALUE})")
    int fuseWriters;

    @Option(names = "--blocks", defaultValue = "1024", description = "4 KiB blocks each writer owns (default: ${DEFAULT-VALUE})")
    int blocks;

    @Option(names = "--dir", required = true, description = "a folder for the daemon's config, LUN file and log, and the CSV")
    Path dir;

    @Option(names = "--chart", paramLabel = "PNG", description = "draw the samples into this PNG at the end")
    Path chart;

    public static void main(final String[] args) {
        final String[] rest = args.length > 0 && args[0].equals("soak") ? java.util.Arrays.copyOfRange(args, 1, args.length) : args;
        System.exit(CommandLines.of(new SoakCommand(), "rdmablock soak").execute(rest));
    }

    @Override
    public Integer call() throws Exception {
        final long runNanos = Quantities.parseDuration(duration).toNanos();
        final long restartNanos = Quantities.parseDuration(restartEvery).toNanos();
        final long sampleNanos = Quantities.parseDuration(sampleEvery).toNanos();
        if (writers < 1 || fuseWriters < 0 || blocks < 1 || runNanos <= 0 || restartNanos <= 0 || sampleNanos <= 0) {
            System.err.println("rdmablock soak: --writers, --blocks, --duration, --restart-every and --sample-every must be "
                    + "positive, --fuse-writers 0 or more");
            return 2;
        }
        Files.createDirectories(dir);
        final int port = freePort();
        final Path config = dir.resolve("target.toml");
        Files.writeString(config, """
                [listen]
                address = "127.0.0.1"
                port = %d
                [channel]
                max_channels = %d
                [[lun]]
                number = 0
                backend = "file"
                path = "soak-lun.img"
                create = true
                size = "%d"
                block_size = %d
                write_cache = "write-through"
                """.formatted(port, writers + 1 + 4, (long) (writers + fuseWriters) * blocks * BLOCK, BLOCK));
        final ChildJvm daemon = new ChildJvm("the daemon", TargetMain.class, List.of("--config", config.toString()),
                "reach it", dir.resolve("daemon.log"));
        final Path mountPoint = dir.resolve("mnt");
        final ChildJvm mount = new ChildJvm("the FUSE mount", MountCommand.class, List.of("--target", "127.0.0.1:" + port,
                "--channel-wait", "events", "--io-timeout", MOUNT_IO_TIMEOUT, "--fuse-threads", "4", mountPoint.toString()),
                "rdmablock mount: lun0.img", dir.resolve("mount.log"));
        daemon.start();
        final Path csv = dir.resolve("soak.csv");
        final List<SoakWriter> soakWriters = new ArrayList<>();
        final List<SoakBlocks> clients = new ArrayList<>();
        final List<Thread> threads = new ArrayList<>();
        int restarts = 0;
        try (SrpInitiator initiator = SrpInitiator.connect(InitiatorConfig.of("soft", "127.0.0.1", port)
                .withChannels(writers, InitiatorConfig.ChannelPolicy.PER_THREAD).withWaiting(InitiatorConfig.Waiting.EVENTS)
                .withFaultHandling(Duration.ofSeconds(10), Duration.ofSeconds(120), 5));
             PrintWriter rows = new PrintWriter(Files.newBufferedWriter(csv, StandardCharsets.UTF_8))) {
            rows.println(CSV_HEADER);
            for (int w = 0; w < writers; w++) {
                clients.add(new SoakBlocks.Library(initiator, initiator.lun(0)));
            }
            if (fuseWriters > 0) {
                try {
                    mount.start();
                } catch (IOException e) {
                    System.err.println("rdmablock soak: " + e.getMessage() + "; --fuse-writers 0 soaks without FUSE");
                    return 1;
                }
                for (int w = 0; w < fuseWriters; w++) {
                    clients.add(new SoakBlocks.Fuse(mountPoint.resolve("lun0.img"), BLOCK));
                }
            }
            for (int w = 0; w < clients.size(); w++) {
                final SoakWriter writer = new SoakWriter(clients.get(w), (long) w * blocks, blocks, System.nanoTime() + w);
                soakWriters.add(writer);
                threads.add(Thread.ofPlatform().name("soak-" + writer.client() + "-writer-" + w).start(writer));
            }
            final long started = System.nanoTime();
            long nextSample = started + sampleNanos;
            long nextRestart = started + restartNanos;
            while (true) {
                final long now = System.nanoTime();
                if (now - started >= runNanos) {
                    break;
                }
                if (now - nextRestart >= 0) {
                    daemon.stop(restarts % 2 == 0);
                    daemon.start();
                    restarts++;
                    nextRestart = System.nanoTime() + restartNanos;
                } else if (now - nextSample >= 0) {
                    sample(rows, started, soakWriters, initiator, restarts, daemon, mount);
                    nextSample += sampleNanos;
                    if (System.nanoTime() - nextSample > 0) {
                        nextSample = System.nanoTime() + sampleNanos; // behind after a restart: no burst of samples
                    }
                } else {
                    Thread.sleep(Math.max(1, Math.min(nextSample, nextRestart) - now) / 1_000_000);
                }
            }
            for (final SoakWriter writer : soakWriters) {
                writer.stop();
            }
            for (final Thread t : threads) {
                t.join();
            }
            sample(rows, started, soakWriters, initiator, restarts, daemon, mount);
            long checked = 0;
            for (final SoakWriter writer : soakWriters) {
                checked += writer.verifyAll();
            }
            final long errors = soakWriters.stream().mapToLong(w -> w.verifyErrors.get()).sum();
            System.out.printf(Locale.ROOT, "soak: %s, %d restarts; %d writes (%d through FUSE), %d reads (%d through FUSE),"
                            + " %d failed, %d verify errors, %d reconnects of the library's session; %d blocks read back at the"
                            + " end; samples in %s%n", duration, restarts, total(soakWriters, 0), fuse(soakWriters, 0),
                    total(soakWriters, 1), fuse(soakWriters, 1), total(soakWriters, 2), errors, initiator.reconnects(), checked, csv);
            rows.flush();
            if (chart != null) {
                SoakChart.write(csv, chart, "rdmablock soak: " + duration + ", the daemon restarted every " + restartEvery);
            }
            if (errors > 0) {
                soakWriters.stream().map(w -> w.firstError.get()).filter(e -> e != null).findFirst()
                        .ifPresent(e -> System.err.println("rdmablock soak: verify error: " + e));
                return EXIT_VERIFY;
            }
            return 0;
        } finally {
            for (final SoakWriter writer : soakWriters) {
                writer.stop();
            }
            for (final Thread t : threads) {
                t.join();
            }
            for (final SoakBlocks client : clients) {
                client.close();
            }
            mount.stop(false);
            daemon.stop(false);
        }
    }

    /** The FUSE writers' writes (0) or reads (1). */
    private static long fuse(final List<SoakWriter> writers, final int which) {
        return total(writers.stream().filter(w -> w.client().equals("fuse")).toList(), which);
    }

    private static long total(final List<SoakWriter> writers, final int which) {
        return writers.stream().mapToLong(w -> switch (which) {
            case 0 -> w.writes.get();
            case 1 -> w.reads.get();
            default -> w.failed.get();
        }).sum();
    }

    private static void sample(final PrintWriter rows, final long started, final List<SoakWriter> writers,
                               final SrpInitiator initiator, final int restarts, final ChildJvm daemon, final ChildJvm mount) {
        final ChildJvm.Footprint f = daemon.footprint();
        final ChildJvm.Footprint m = mount.footprint();
        final long errors = writers.stream().mapToLong(w -> w.verifyErrors.get()).sum();
        final double seconds = (System.nanoTime() - started) / 1e9;
        rows.printf(Locale.ROOT, "%.1f,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d%n", seconds, total(writers, 0), total(writers, 1),
                total(writers, 2), errors, initiator.reconnects(), restarts, f.residentKib(), f.threads(), f.openFiles(),
                fuse(writers, 0), fuse(writers, 1), m.residentKib(), m.threads(), m.openFiles());
        rows.flush();
        System.err.printf(Locale.ROOT, "soak %.0f s: %d writes (%d FUSE), %d reads (%d FUSE), %d failed, %d verify errors,"
                        + " %d reconnects, %d restarts; daemon %d MiB, %d threads, %d fds; mount %d MiB, %d threads, %d fds%n",
                seconds, total(writers, 0), fuse(writers, 0), total(writers, 1), fuse(writers, 1), total(writers, 2), errors,
                initiator.reconnects(), restarts, f.residentKib() / 1024, f.threads(), f.openFiles(),
                m.residentKib() / 1024, m.threads(), m.openFiles());
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}

package org.rdmablock.target;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rdmablock.target.metrics.SummaryLine;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.rdmablock.target.Waiting.waitUpTo;

/** The daemon as a user runs it: a config file in, a banner out, a clean stop; config errors refuse to start. */
class TargetMainTest {
    @TempDir
    Path dir;

    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private record Run(int exit, String out, String err) {
    }

    private Run run(final TargetMain main, final ByteArrayOutputStream out, final ByteArrayOutputStream err, final String... args) {
        final int exit = new CommandLine(main).execute(args);
        return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** A fresh daemon run with {@code args}, what it printed and its exit status. */
    private Run run(final String... args) {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        return run(new TargetMain(new PrintStream(out, true), new PrintStream(err, true)), out, err, args);
    }

    @Test
    void aConfigErrorNamesFileLineAndKeyAndRefusesToStart() throws IOException {
        final Path config = dir.resolve("bad.toml");
        Files.writeString(config, """
                [listen]
                port = 5555
                [[lun]]
                number = 0
                backend = "memory"
                size = "1MiB"
                block_size = 1024
                """);
        final Run run = run("--config", config.toString());
        assertEquals(TargetMain.EXIT_CONFIG, run.exit());
        assertTrue(run.err().contains(config + ":7: key 'lun[0].block_size': 1024 is not allowed"), run.err());
    }

    @Test
    void checkOnlyReadsTheConfigSaysWhatItWouldServeAndStops() throws IOException {
        final Path config = dir.resolve("ok.toml");
        Files.writeString(config, "[listen]\nport = 5999\n"
                + "[[lun]]\nnumber = 3\nbackend = \"null\"\nsize = \"1MiB\"\n"
                + "[[lun]]\nnumber = 4\npath = \"new.img\"\ncreate = true\nsize = \"2MiB\"\n");
        final Run run = run("--config", config.toString(), "--check");
        assertEquals(0, run.exit(), run.err());
        assertTrue(run.out().startsWith(config + ": OK, 2 LUN(s)"), run.out());
        assertTrue(run.out().contains("would listen: soft provider on 127.0.0.1:5999"), run.out());
        assertTrue(run.out().contains("  LUN 3: null, 1 MiB, 512-byte blocks"), run.out());
        assertTrue(run.out().contains("  LUN 4: file " + dir.resolve("new.img") + ", 2 MiB, 512-byte blocks, write-through"
                + " (new: made empty at start, create = true)"), run.out());
        assertFalse(Files.exists(dir.resolve("new.img")), "--check makes nothing");
    }

    @Test
    void aPortInUseIsRefusedWithTheReason() throws IOException {
        try (ServerSocket taken = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            final Path config = dir.resolve("taken.toml");
            Files.writeString(config, "[listen]\nport = %d\n[[lun]]\nnumber = 0\nbackend = \"null\"\nsize = \"1MiB\"\n"
                    .formatted(taken.getLocalPort()));
            final Run run = run("--config", config.toString());
            assertEquals(TargetMain.EXIT_START, run.exit(), run.out());
            assertTrue(run.err().contains("cannot listen on 127.0.0.1:" + taken.getLocalPort() + ": Address already in use"
                    + " (another program holds the port"), run.err());
        }
    }

    @Test
    void helpListsEveryCommandAndVersionPrintsOne() {
        final Run help = run("--help");
        assertEquals(0, help.exit());
        final String usage = new CommandLine(new TargetMain()).getUsageMessage();
        for (final String command : new String[]{"target", "bench", "mount"}) {
            assertTrue(usage.lines().anyMatch(l -> l.startsWith("  " + command + "   ")), command + " missing from:\n" + usage);
        }
        final java.io.StringWriter version = new java.io.StringWriter();
        final CommandLine line = new CommandLine(new TargetMain());
        line.setOut(new java.io.PrintWriter(version, true));
        assertEquals(0, line.execute("-V"));
        assertTrue(version.toString().startsWith("rdmablock ") && version.toString().contains("(Java 25"), version.toString());
    }

    @Test
    void aLunInAFolderThatDoesNotExistIsRefusedByLineAndKeyAndNothingIsMade() throws IOException {
        final Path config = dir.resolve("typo.toml");
        final Path folder = dir.resolve("not-mounted");
        Files.writeString(config, """
                [[lun]]
                number = 0
                path = "%s/lun0.img"
                create = true
                size = "1MiB"
                """.formatted(folder));
        for (final String[] args : new String[][]{{"--config", config.toString(), "--check"}, {"--config", config.toString()}}) {
            final Run run = run(args);
            assertEquals(TargetMain.EXIT_CONFIG, run.exit(), String.join(" ", args) + ": " + run.out());
            assertTrue(run.err().startsWith(config + ":3: key 'lun[0].path': "), run.err());
            assertTrue(run.err().contains(" is not allowed (a path in an existing folder: " + folder + " is not one; the target"
                    + " makes no folder"), run.err());
        }
        assertFalse(Files.exists(folder), "no folder made");
    }

    @Test
    void warnsWhenAnInlinePipelineServesABlockingBackend() throws Exception {
        try (LogCapture log = new LogCapture(RunningConfiguration.class)) {
            final Daemon daemon = start("""
                    [pipeline]
                    backend_threads = 0
                    blocking_threads = 0
                    [[lun]]
                    number = 0
                    backend = "memory"
                    size = "1MiB"
                    [[lun]]
                    number = 2
                    path = "lun2.img"
                    create = true
                    size = "1MiB"
                    """);
            assertTrue(daemon.banner().contains("commands and backend calls run on the poller thread"), daemon.banner());
            assertFalse(daemon.banner().contains("(auto:"), "blocking_threads set in the file: " + daemon.banner());
            final String line = log.await(l -> l.startsWith("WARN backend_threads = 0"), Duration.ofSeconds(10));
            assertTrue(line.contains("LUN(s) 2 (file / rocksdb)"), line);
            daemon.main().stop();
            assertEquals(0, daemon.exit().get(20, TimeUnit.SECONDS));
        }
    }

    @Test
    void servesItsMetricsAndLogsASummaryLine() throws Exception {
        try (LogCapture log = new LogCapture(SummaryLine.class)) {
            final Daemon daemon = start("""
                    [metrics]
                    address = "127.0.0.1:0"
                    summary_interval = "1s"
                    [[lun]]
                    number = 0
                    backend = "memory"
                    size = "1MiB"
                    """);
            final Matcher url = Pattern.compile("metrics: (http://127\\.0\\.0\\.1:\\d+/metrics)").matcher(daemon.banner());
            assertTrue(url.find(), daemon.banner() + daemon.errors());
            try (HttpClient client = HttpClient.newHttpClient()) {
                final String body = client.send(HttpRequest.newBuilder(URI.create(url.group(1))).build(),
                        HttpResponse.BodyHandlers.ofString()).body();
                assertTrue(body.contains("rdmablock_lun_read_commands_total{lun=\"0\"} 0"), body);
                assertTrue(body.contains("rdmablock_target_sessions 0"), body);
            }
            final String line = log.await(l -> l.startsWith("INFO last "), Duration.ofSeconds(10));
            assertTrue(line.contains("IOPS (0 commands: 0 read, 0 write, 0 other)"), line);
            daemon.main().stop();
            assertEquals(0, daemon.exit().get(20, TimeUnit.SECONDS));
        }
    }

    @Test
    void servesAFileLunPrintsItsBannerLineByLineAndStopsCleanly() throws Exception {
        final Daemon daemon = start("""
                [[lun]]
                number = 0
                path = "lun0.img"
                create = true
                size = "8MiB"
                """);
        final String banner = daemon.banner();
        assertTrue(banner.contains("listening on 127.0.0.1:" + daemon.port()), banner + daemon.errors());
        assertTrue(banner.contains("LUN 0: file " + dir.resolve("lun0.img")), banner);
        assertTrue(banner.contains("pipeline: completions by polling, commands run on the poller thread, backend calls that would wait on 4"
                + " blocking-call thread(s) (auto: LUNs that can block)"),
                banner);
        // each line in one write: a log line from another thread, written to the same file, can come between two
        // writes, never into one (scripts read the add_target line from the daemon's log)
        for (final String write : daemon.out().writes()) {
            assertTrue(write.endsWith("\n") && write.indexOf('\n') == write.length() - 1,
                    "a write that is not one whole line: [" + write + "] of " + daemon.out().writes());
        }
        assertTrue(Files.exists(dir.resolve("lun0.img")), "the file LUN is created");
        assertEquals(8L << 20, Files.size(dir.resolve("lun0.img")), "sparse, at the configured size");
        daemon.main().stop();
        assertEquals(0, daemon.exit().get(20, TimeUnit.SECONDS));
    }

    /** What a stream was given, and in which writes. */
    private static final class WriteRecorder extends ByteArrayOutputStream {
        private final List<String> writes = new CopyOnWriteArrayList<>();

        @Override
        public synchronized void write(final byte[] bytes, final int offset, final int length) {
            super.write(bytes, offset, length);
            writes.add(new String(bytes, offset, length, StandardCharsets.UTF_8));
        }

        @Override
        public synchronized void write(final int b) {
            super.write(b);
            writes.add(String.valueOf((char) b));
        }

        List<String> writes() {
            return writes;
        }
    }

    /** A daemon started in this JVM on a config file, with what it printed. */
    private record Daemon(TargetMain main, CompletableFuture<Integer> exit, int port, WriteRecorder out,
                          ByteArrayOutputStream err) {
        String banner() {
            return out.toString(StandardCharsets.UTF_8);
        }

        String errors() {
            return err.toString(StandardCharsets.UTF_8);
        }
    }

    /** Starts the daemon on {@code tables} behind a [listen] port of its own and 4 channels; waits for its banner. */
    private Daemon start(final String tables) throws Exception {
        final int port = freePort();
        final Path config = dir.resolve("target.toml");
        Files.writeString(config, "[listen]\nport = %d\n[channel]\nmax_channels = 4\n".formatted(port) + tables);
        final WriteRecorder out = new WriteRecorder();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final TargetMain main = new TargetMain(new PrintStream(out, true), new PrintStream(err, true));
        final CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(() -> new CommandLine(main).execute("--config", config.toString()));
        waitUpTo(Duration.ofSeconds(20), "the daemon's banner, or its end")
                .until(() -> out.toString(StandardCharsets.UTF_8).contains("reach it") || exit.isDone());
        return new Daemon(main, exit, port, out, err);
    }
}

package org.rdmablock.tools.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import picocli.CommandLine;

/**
 * The comparison's references, without timing: the raw TCP stream is set up as the soft provider sets up its own
 * connections; iperf3 is found or its row is left out with a note; its command lines and report are handled right
 * (with a stand-in script where iperf3 itself is not installed).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CompareReferencesTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    /** The receiver part of an iperf3 3.x JSON report, as {@code -J} prints it. */
    private static final String REPORT = """
        {
        \t"start":\t{ "connected": [{ "socket": 5 }], "test_start": { "protocol": "TCP", "num_streams": 1, "blksize": 131072 } },
        \t"end":\t{
        \t\t"sum_sent":\t{ "start": 0, "end": 0.1, "seconds": 0.1, "bytes": 536870912, "bits_per_second": 4.2e+10, "retransmits": 0, "sender": true },
        \t\t"sum_received":\t{ "start": 0, "end": 0.1, "seconds": 0.1, "bytes": 536870912, "bits_per_second": 40000000000, "sender": true }
        \t}
        }
        """;

    @Test
    void theTcpStreamWritesEachMessageWhole() throws Exception {
        assertEquals(1 << 20, TcpBaseline.WRITE_SIZE, "a 1 MiB message in one socket write: the best stream on loopback");
        assertEquals(1 << 20, TcpBaseline.READ_SIZE);
        // a total that is no multiple of the write size moves to the byte
        final BandwidthTest.Result odd = TcpBaseline.stream(LOOPBACK, 1_000_003, 1, 65536, 4096);
        assertEquals(1_000_003, odd.bytes());
        // messages larger than a write go out in writes of it, smaller ones whole: all bytes, counted per message
        final BandwidthTest.Result large = TcpBaseline.stream(LOOPBACK, 1 << 20, 8);
        assertEquals(8L << 20, large.bytes());
        assertEquals(8, large.messages());
        final BandwidthTest.Result small = TcpBaseline.stream(LOOPBACK, 4096, 100);
        assertEquals(409_600, small.bytes());
    }

    @Test
    void iperf3IsLookedUpOnThePathOrAsAPath(@TempDir final Path dir) throws IOException {
        final Path bin = Files.createDirectory(dir.resolve("bin"));
        assertTrue(Iperf3.locate("iperf3", bin.toString()).isEmpty(), "no iperf3 in an empty directory");
        assertTrue(Iperf3.locate("iperf3", "").isEmpty(), "an empty PATH");
        assertTrue(Iperf3.locate("iperf3", null).isEmpty(), "no PATH");
        final Path fake = executable(bin.resolve("iperf3"), "#!/bin/sh\nexit 0\n");
        assertEquals(Optional.of(fake), Iperf3.locate("iperf3", dir + ":" + bin).map(Iperf3::executable));
        assertEquals(Optional.of(fake), Iperf3.locate(fake.toString(), "").map(Iperf3::executable), "a path is taken as given");
        assertTrue(Iperf3.locate(dir.resolve("nowhere/iperf3").toString(), bin.toString()).isEmpty(), "a path that is not there");
        Files.writeString(bin.resolve("plain"), "not executable");
        assertTrue(Iperf3.locate("plain", bin.toString()).isEmpty(), "a file that cannot run");
    }

    @Test
    void compareOptionsFindIperf3OrSayWhyItsRowIsLeftOut(@TempDir final Path dir) throws IOException {
        final PerfCommand.Compare defaults = parse();
        assertEquals("iperf3", defaults.iperf3);
        assertFalse(defaults.noIperf3);

        final String missing = dir.resolve("no-such-iperf3").toString();
        final PerfCommand.Compare.Reference notThere = parse("--iperf3", missing).reference();
        assertNull(notThere.iperf3());
        assertTrue(notThere.skipped().startsWith("iperf3 row skipped: '" + missing + "' not found"), notThere.skipped());
        assertTrue(notThere.skipped().contains("apt-get install iperf3"), notThere.skipped());

        final PerfCommand.Compare.Reference off = parse("--no-iperf3").reference();
        assertNull(off.iperf3());
        assertEquals("iperf3 row skipped: --no-iperf3", off.skipped());

        final Path fake = executable(dir.resolve("iperf3"), "#!/bin/sh\nexit 0\n");
        final PerfCommand.Compare.Reference found = parse("--iperf3=" + fake).reference();
        assertEquals(fake, found.iperf3().executable());
        assertNull(found.skipped());

        final String help = new CommandLine(new PerfCommand()).getSubcommands().get("compare").getUsageMessage();
        assertTrue(help.contains("--iperf3=COMMAND") && help.contains("--no-iperf3"), help);
    }

    @Test
    void aComparisonWithoutIperf3PrintsTheSameTableAndANoteUnderIt() {
        final Comparison comparison = new Comparison("soft", LOOPBACK, 1, 1 << 20, 100, Poller.YIELD, null,
            Iperf3.missing("iperf3"));
        assertEquals(List.of(Iperf3.missing("iperf3")), comparison.notes());
        final Comparison.Row row = new Comparison.Row("RDMA WRITE bw, 1 MiB", "MB/s", true, new double[] {700}, new double[] {1000}, 0.7);
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Comparison.print(List.of(row), comparison.notes(), new PrintStream(bytes, true, StandardCharsets.UTF_8), "header");
        final List<String> lines = bytes.toString(StandardCharsets.UTF_8).lines().toList();
        assertEquals(4, lines.size(), String.join("\n", lines));
        assertEquals("header", lines.get(0));
        assertEquals(String.format("%-26s %12s %12s %8s  %s", "test", "soft", "raw TCP", "ratio", "goal"), lines.get(1));
        assertTrue(lines.get(2).startsWith("RDMA WRITE bw, 1 MiB") && lines.get(2).contains("0.70  met"), lines.get(2));
        assertTrue(lines.get(3).startsWith("iperf3 row skipped: 'iperf3' not found on PATH"), lines.get(3));
        // no note when iperf3 was not asked for
        assertEquals(List.of(), new Comparison("soft", LOOPBACK, 1, 1 << 20, 100, Poller.YIELD).notes());
    }

    @Test
    void iperf3RunsOneServerTestAndOneClientStreamInTheTcpBaselinesWriteSize(@TempDir final Path dir) {
        final Iperf3 iperf3 = new Iperf3Fixture(dir).iperf3("exit 0");
        final List<String> server = iperf3.serverCommand(LOOPBACK, 5201);
        assertEquals(List.of(iperf3.executable().toString(), "-s", "-1", "-B", "127.0.0.1", "-p", "5201"), server);
        final List<String> client = iperf3.clientCommand(LOOPBACK, 5201, 536_870_912, TcpBaseline.WRITE_SIZE);
        assertEquals(List.of(iperf3.executable().toString(), "-c", "127.0.0.1", "-p", "5201", "-n", "536870912", "-l", "1048576", "-J"),
            client);
    }

    @Test
    void theReceiversRateIsReadFromTheJsonReport() throws IOException {
        assertEquals(4e10, Iperf3.receivedBitsPerSecond(REPORT));
        final IOException error = assertThrows(IOException.class,
            () -> Iperf3.receivedBitsPerSecond("{ \"error\": \"unable to connect to server: Connection refused\" }"));
        assertTrue(error.getMessage().contains("unable to connect"), error.getMessage());
        assertThrows(IOException.class, () -> Iperf3.receivedBitsPerSecond(REPORT.replace("40000000000", "0")));
    }

    @Test
    void aClientStartedBeforeTheServerListensTriesAgainAndTheRateComesFromItsReport(@TempDir final Path dir) throws Exception {
        // a stand-in iperf3: the server waits to be stopped; the client fails to connect once, then reports
        final Iperf3Fixture fixture = new Iperf3Fixture(dir);
        final Path tries = dir.resolve("tries");
        final Iperf3 iperf3 = fixture.iperf3("""
            if [ "$1" = "-s" ]; then exec sleep 60; fi
            echo x >> '%s'
            if [ "$(wc -l < '%s')" -lt 2 ]; then
              echo '{ "error": "unable to connect to server - server may have stopped running: Connection refused" }'
              exit 1
            fi
            cat '%s'
            """.formatted(tries, tries, fixture.report(REPORT)));
        final BandwidthTest.Result result = iperf3.stream(LOOPBACK, 536_870_912, TcpBaseline.WRITE_SIZE);
        assertEquals(2, Files.readAllLines(tries).size(), "the client ran twice");
        assertEquals(536_870_912, result.bytes());
        assertEquals(5000.0, result.megabytesPerSecond(), 0.01, "40 Gbit/s is 5000 MB/s");
    }

    @Test
    void aFailingIperf3RunReportsItsOutput(@TempDir final Path dir) {
        final Iperf3 iperf3 = new Iperf3Fixture(dir).iperf3("""
            if [ "$1" = "-s" ]; then exec sleep 60; fi
            echo '{ "error": "the server is busy running a test. try again later" }'
            exit 1
            """);
        final IOException failed = assertThrows(IOException.class, () -> iperf3.stream(LOOPBACK, 1 << 20, TcpBaseline.WRITE_SIZE));
        assertTrue(failed.getMessage().contains("the server is busy"), failed.getMessage());
    }

    @Test
    void theRealIperf3StreamsOnLoopbackWhenInstalled() throws Exception {
        final Optional<Iperf3> installed = Iperf3.locate(Iperf3.DEFAULT_COMMAND);
        assumeTrue(installed.isPresent(), "iperf3 is not installed");
        final BandwidthTest.Result result = installed.get().stream(LOOPBACK, 64L << 20, TcpBaseline.WRITE_SIZE);
        assertEquals(64L << 20, result.bytes());
        assertTrue(result.megabytesPerSecond() > 0, "a rate");
    }

    private static PerfCommand.Compare parse(final String... options) {
        final String[] args = new String[options.length + 1];
        args[0] = "compare";
        System.arraycopy(options, 0, args, 1, options.length);
        final CommandLine.ParseResult parsed = new CommandLine(new PerfCommand()).parseArgs(args);
        return (PerfCommand.Compare) parsed.subcommand().commandSpec().userObject();
    }

    private static Path executable(final Path file, final String script) throws IOException {
        Files.writeString(file, script);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
        return file;
    }

    /** Stand-in iperf3 scripts in a temporary directory. */
    private record Iperf3Fixture(Path dir) {
        Iperf3 iperf3(final String body) {
            try {
                final Path script = executable(dir.resolve("iperf3"), "#!/bin/sh\n" + body);
                return Iperf3.locate(script.toString(), "").orElseThrow();
            } catch (final IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }

        Path report(final String json) throws IOException {
            return Files.writeString(dir.resolve("report.json"), json);
        }
    }
}

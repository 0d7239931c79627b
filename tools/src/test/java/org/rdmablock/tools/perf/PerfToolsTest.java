package org.rdmablock.tools.perf;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rdmablock.verbs.SendOpcode;
import org.rdmablock.verbs.VerbsProvider;

/** The perf tools move real data, count what they move and report sane figures; the table applies its goals. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PerfToolsTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    @Test
    void bandwidthTestWritesIntoThePeersBufferAndCountsBytes() throws Exception {
        try (Link link = new Link("soft", LOOPBACK, 32, 8, 1 << 20)) {
            final byte[] pattern = new byte[65536];
            new Random(1).nextBytes(pattern);
            java.lang.foreign.MemorySegment.copy(pattern, 0, link.client.buffer.segment(), ValueLayout.JAVA_BYTE, 0, pattern.length);
            final BandwidthTest.Result result = new BandwidthTest(link, SendOpcode.RDMA_WRITE, 65536, 16, Poller.YIELD).run(100);
            assertEquals(100L * 65536, result.bytes());
            assertEquals(100, result.messages());
            assertTrue(result.megabytesPerSecond() > 0);
            assertArrayEquals(pattern, link.server.buffer.segment().asSlice(0, 65536).toArray(ValueLayout.JAVA_BYTE));

            final BandwidthTest.Result read = new BandwidthTest(link, SendOpcode.RDMA_READ, 4096, 8, Poller.YIELD).run(200);
            assertEquals(200L * 4096, read.bytes());
        }
    }

    @Test
    void latencyTestsRecordEveryRoundTrip() throws Exception {
        try (Link link = new Link("soft", LOOPBACK, 256, 16, 1 << 20)) {
            for (final SendOpcode opcode : List.of(SendOpcode.SEND, SendOpcode.RDMA_WRITE)) {
                final Histogram h = new LatencyTest(link, opcode, 64, Poller.YIELD).run(500);
                assertEquals(500, h.getTotalCount(), opcode.toString());
                assertTrue(h.getMinValue() > 0);
            }
        }
    }

    @Test
    void rpingServerAndClientEchoEveryPingAndTheServerEndsWhenTheClientLeaves() throws Exception {
        try (VerbsProvider serverSide = VerbsProvider.load("soft"); VerbsProvider clientSide = VerbsProvider.load("soft")) {
            final RpingServer server = RpingServer.start(serverSide);
            final java.io.ByteArrayOutputStream clientLog = new java.io.ByteArrayOutputStream();
            assertEquals(7, new Rping(clientSide, 64, new java.io.PrintStream(clientLog, true))
                .client(new InetSocketAddress(LOOPBACK, server.port()), 7));
            assertEquals(7, server.served().get(20, TimeUnit.SECONDS), "pings the server echoed before the client left");
            assertTrue(clientLog.toString().contains("ping data: rdma-ping-6: GHIJKLMNOPQRSTUVWXYZ"), clientLog.toString());
        }
    }

    @Test
    void rpingServerRefusesAPingThatIsNotRpingsPattern() throws Exception {
        try (VerbsProvider serverSide = VerbsProvider.load("soft"); VerbsProvider clientSide = VerbsProvider.load("soft")) {
            final RpingServer server = RpingServer.start(serverSide);
            // the client numbers its pings from 3: the server's first read says "rdma-ping-3" where rping says 0
            final Rping client = new Rping(clientSide, 64, new java.io.PrintStream(new java.io.ByteArrayOutputStream(), true));
            assertThrows(IllegalStateException.class, () -> client.client(new InetSocketAddress(LOOPBACK, server.port()), 2, 3));
            final java.util.concurrent.ExecutionException failed = assertThrows(java.util.concurrent.ExecutionException.class,
                () -> server.served().get(20, TimeUnit.SECONDS));
            assertTrue(failed.getCause().getMessage().contains("ping 0: the data read differs from rping's pattern"),
                failed.getCause().getMessage());
        }
    }

    /** A soft rping server on a loopback port, serving on another thread. */
    private record RpingServer(java.util.concurrent.CompletableFuture<Integer> served, int port) {
        static RpingServer start(final VerbsProvider provider) throws InterruptedException {
            final java.io.ByteArrayOutputStream log = new java.io.ByteArrayOutputStream();
            final java.util.concurrent.CompletableFuture<Integer> served = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                try {
                    return new Rping(provider, 64, new java.io.PrintStream(log, true)).server(new InetSocketAddress(LOOPBACK, 0));
                } catch (final InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            return new RpingServer(served, awaitListening(log));
        }
    }

    private static int awaitListening(final java.io.ByteArrayOutputStream serverLog) {
        final java.util.regex.Pattern listening = java.util.regex.Pattern.compile("listening on .*:(\\d+)");
        final java.util.regex.Matcher line = await("the rping server listening").atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(10))
                .until(() -> listening.matcher(serverLog.toString()), java.util.regex.Matcher::find);
        return Integer.parseInt(line.group(1));
    }

    @Test
    void sendLatencySweepsSizesOnOneLink() throws Exception {
        // send-lat -a: receives posted for the first size must take every later, larger one
        try (Link link = new Link("soft", LOOPBACK, 256, 16, 2L << 20)) {
            for (final int size : new int[]{64, 4096, 1 << 20}) {
                assertEquals(50, new LatencyTest(link, SendOpcode.SEND, size, Poller.YIELD).run(50).getTotalCount(), size + " B");
            }
        }
    }

    @Test
    void tcpBaselinesMoveTheirBytes() throws Exception {
        final BandwidthTest.Result stream = TcpBaseline.stream(LOOPBACK, 65536, 64);
        assertEquals(64L * 65536, stream.bytes());
        final Histogram pingPong = TcpBaseline.pingPong(LOOPBACK, 64, 300, Poller.YIELD);
        assertEquals(300, pingPong.getTotalCount());
    }

    @Test
    void comparisonRowsReportMediansRatiosAndGoals() {
        assertEquals(3.0, Comparison.median(new double[] {9, 1, 3}));
        assertEquals(2.5, Comparison.median(new double[] {4, 1, 2, 3}));
        final Comparison.Row bandwidth = new Comparison.Row("bw", "MB/s", true, new double[] {60, 80, 70}, new double[] {100, 100, 100}, 0.7);
        assertEquals(0.7, bandwidth.ratio(), 1e-9);
        assertTrue(bandwidth.verdict().startsWith("met"));
        final Comparison.Row latency = new Comparison.Row("lat", "us", false, new double[] {16}, new double[] {10}, 1.5);
        assertTrue(latency.verdict().startsWith("MISSED"));
        final Comparison.Row noGoal = new Comparison.Row("p99", "us", false, new double[] {90}, new double[] {10}, Double.NaN);
        assertTrue(Comparison.allGoalsMet(List.of(bandwidth, noGoal)), "a row without a goal cannot miss it");
        assertFalse(Comparison.allGoalsMet(List.of(bandwidth, latency, noGoal)));
    }

    @Test
    void compareExitStatusSaysWhetherEveryGoalWasMet() {
        final Comparison.Row met = new Comparison.Row("bw", "MB/s", true, new double[] {80}, new double[] {100}, 0.7);
        final Comparison.Row missed = new Comparison.Row("bw", "MB/s", true, new double[] {1}, new double[] {100}, 0.7);
        assertEquals(0, PerfCommand.Compare.exitStatus(List.of(met)));
        assertEquals(3, PerfCommand.Compare.exitStatus(List.of(met, missed)));
        final String help = new picocli.CommandLine(new PerfCommand()).getSubcommands().get("compare").getUsageMessage();
        assertTrue(help.contains("3   a ratio missed its goal"), help);
    }
}

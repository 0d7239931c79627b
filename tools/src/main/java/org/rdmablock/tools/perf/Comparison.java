package org.rdmablock.tools.perf;

import java.io.PrintStream;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

import org.HdrHistogram.Histogram;
import org.rdmablock.verbs.SendOpcode;

/**
 * The soft provider against its physical limit, in one run: RDMA WRITE bandwidth at 64 KiB and 1 MiB against a
 * raw TCP stream set up as the provider sets up its own ({@link TcpBaseline}), and, when iperf3 is installed,
 * against iperf3's stream as a second reference; SEND latency at 64 B against a raw TCP ping-pong; all on loopback.
 * Each measurement is repeated for several rounds, alternating provider and baselines so all see the same machine
 * load, and the table reports medians and their ratios against the goals (bandwidth ≥ 70 % of TCP, latency ≤ 1.5×
 * TCP). The iperf3 row has no goal: it says how close the provider comes to the best stream of its transport.
 */
final class Comparison {
    /** Goal: soft WRITE bandwidth at 1 MiB as a fraction of the TCP stream. */
    static final double BANDWIDTH_GOAL = 0.70;
    /** Goal: soft SEND latency at 64 B as a multiple of the TCP ping-pong. */
    static final double LATENCY_GOAL = 1.5;

    /** One row: a metric for soft and for TCP, each round's value kept. */
    record Row(String name, String unit, boolean higherIsBetter, double[] soft, double[] tcp, double goal) {
        double softMedian() {
            return median(soft);
        }

        double tcpMedian() {
            return median(tcp);
        }

        double ratio() {
            return softMedian() / tcpMedian();
        }

        /** Whether the ratio meets the goal; true for a row without one. */
        boolean goalMet() {
            return Double.isNaN(goal) || (higherIsBetter ? ratio() >= goal : ratio() <= goal);
        }

        /** Empty when the row has no goal. */
        String verdict() {
            if (Double.isNaN(goal)) {
                return "";
            }
            return (goalMet() ? "met" : "MISSED") + String.format(Locale.ROOT, " (%s %.2f)", higherIsBetter ? ">=" : "<=", goal);
        }
    }

    private final String provider;
    private final InetAddress address;
    private final int rounds;
    private final long bandwidthBytes;
    private final int latencyIterations;
    private final Poller poller;
    /** The second stream reference; null when it is not run (see {@link #notes}). */
    private Iperf3 iperf3;
    /** What the table should say under its rows: a reference left out, and why. */
    private final List<String> notes = new ArrayList<>();

    Comparison(final String provider, final InetAddress address, final int rounds, final long bandwidthBytes,
               final int latencyIterations, final Poller poller) {
        this(provider, address, rounds, bandwidthBytes, latencyIterations, poller, null, null);
    }

    /**
     * @param iperf3  the iperf3 to run as the second stream reference, or null
     * @param skipped when {@code iperf3} is null, why (a note under the table); null when not asked for
     */
    Comparison(final String provider, final InetAddress address, final int rounds, final long bandwidthBytes,
               final int latencyIterations, final Poller poller, final Iperf3 iperf3, final String skipped) {
        this.provider = provider;
        this.address = address;
        this.rounds = rounds;
        this.bandwidthBytes = bandwidthBytes;
        this.latencyIterations = latencyIterations;
        this.poller = poller;
        this.iperf3 = iperf3;
        if (iperf3 == null && skipped != null) {
            notes.add(skipped);
        }
    }

    /** Notes for under the table: the references left out, and why. */
    List<String> notes() {
        return List.copyOf(notes);
    }

    List<Row> run(final PrintStream progress) throws Exception {
        final int[] sizes = {64 * 1024, 1 << 20};
        final double[][] softBw = new double[sizes.length][rounds];
        final double[][] tcpBw = new double[sizes.length][rounds];
        final double[] iperfBw = new double[rounds];
        final double[] softLat = new double[rounds];
        final double[] tcpLat = new double[rounds];
        final double[] softLat99 = new double[rounds];
        final double[] tcpLat99 = new double[rounds];
        try (Link link = new Link(provider, address, 256, 16, 1 << 20)) {
            warmUp(link);
            for (int round = 0; round < rounds; round++) {
                for (int s = 0; s < sizes.length; s++) {
                    final long iterations = Math.max(64, bandwidthBytes / sizes[s]);
                    tcpBw[s][round] = TcpBaseline.stream(address, sizes[s], iterations).megabytesPerSecond();
                    softBw[s][round] = new BandwidthTest(link, SendOpcode.RDMA_WRITE, sizes[s], 64, poller).run(iterations).megabytesPerSecond();
                }
                iperfBw[round] = iperf3(Math.max(64, bandwidthBytes / sizes[1]) * sizes[1], progress);
                final Histogram tcp = TcpBaseline.pingPong(address, 64, latencyIterations, poller);
                final Histogram soft = new LatencyTest(link, SendOpcode.SEND, 64, poller).run(latencyIterations);
                tcpLat[round] = tcp.getValueAtPercentile(50) / 1000.0;
                softLat[round] = soft.getValueAtPercentile(50) / 1000.0;
                tcpLat99[round] = tcp.getValueAtPercentile(99) / 1000.0;
                softLat99[round] = soft.getValueAtPercentile(99) / 1000.0;
                progress.printf(Locale.ROOT, "round %d/%d: WRITE 64K %.0f vs TCP %.0f MB/s, 1M %.0f vs %.0f MB/s%s, SEND 64B p50 %.1f vs %.1f us%n",
                    round + 1, rounds, softBw[0][round], tcpBw[0][round], softBw[1][round], tcpBw[1][round],
                    iperf3 == null ? "" : String.format(Locale.ROOT, " (iperf3 %.0f)", iperfBw[round]), softLat[round], tcpLat[round]);
            }
        }
        final List<Row> rows = new ArrayList<>();
        rows.add(new Row("RDMA WRITE bw, 64 KiB", "MB/s", true, softBw[0], tcpBw[0], Double.NaN));
        rows.add(new Row("RDMA WRITE bw, 1 MiB", "MB/s", true, softBw[1], tcpBw[1], BANDWIDTH_GOAL));
        if (iperf3 != null) {
            rows.add(new Row(IPERF3_ROW, "MB/s", true, softBw[1], iperfBw, Double.NaN));
        }
        rows.add(new Row("SEND latency 64 B, p50", "us", false, softLat, tcpLat, LATENCY_GOAL));
        rows.add(new Row("SEND latency 64 B, p99", "us", false, softLat99, tcpLat99, Double.NaN));
        return rows;
    }

    /** The iperf3 row's name: the provider's 1 MiB WRITE bandwidth against iperf3's stream. */
    static final String IPERF3_ROW = "RDMA WRITE 1 MiB / iperf3";

    /**
     * One iperf3 stream of {@code bytes}, in the TCP baseline's write size; MB/s. A failure drops the iperf3 row
     * (noted under the table) rather than the whole comparison: it is a reference, not the measurement.
     */
    private double iperf3(final long bytes, final PrintStream progress) throws InterruptedException {
        if (iperf3 == null) {
            return Double.NaN;
        }
        try {
            return iperf3.stream(address, bytes, TcpBaseline.WRITE_SIZE).megabytesPerSecond();
        } catch (final java.io.IOException e) {
            notes.add("iperf3 row skipped: " + iperf3 + " failed: " + e.getMessage());
            progress.println(notes.getLast());
            iperf3 = null;
            return Double.NaN;
        }
    }

    /** Lets the JIT compile the paths before anything is measured. */
    private void warmUp(final Link link) throws Exception {
        new BandwidthTest(link, SendOpcode.RDMA_WRITE, 64 * 1024, 64, poller).run(Math.max(64, bandwidthBytes / (4 * 64 * 1024)));
        new LatencyTest(link, SendOpcode.SEND, 64, poller).run(Math.max(1000, latencyIterations / 4));
        TcpBaseline.stream(address, 64 * 1024, Math.max(64, bandwidthBytes / (4 * 64 * 1024)));
        TcpBaseline.pingPong(address, 64, Math.max(1000, latencyIterations / 4), poller);
    }

    /** Whether every row with a goal met it: the exit status of {@code compare} says so to scripts. */
    static boolean allGoalsMet(final List<Row> rows) {
        return rows.stream().allMatch(Row::goalMet);
    }

    static void print(final List<Row> rows, final PrintStream out, final String header) {
        print(rows, List.of(), out, header);
    }

    /** The table, then each note on a line of its own. */
    static void print(final List<Row> rows, final List<String> notes, final PrintStream out, final String header) {
        out.println(header);
        out.printf(Locale.ROOT, "%-26s %12s %12s %8s  %s%n", "test", "soft", "raw TCP", "ratio", "goal");
        for (final Row row : rows) {
            out.printf(Locale.ROOT, "%-26s %12s %12s %8.2f  %s%n", row.name(), format(row.softMedian(), row.unit()),
                format(row.tcpMedian(), row.unit()), row.ratio(), row.verdict());
        }
        for (final String note : notes) {
            out.println(note);
        }
    }

    private static String format(final double value, final String unit) {
        return String.format(Locale.ROOT, unit.equals("us") ? "%.1f %s" : "%.0f %s", value, unit);
    }

    static double median(final double[] values) {
        final double[] sorted = values.clone();
        Arrays.sort(sorted);
        final int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }
}

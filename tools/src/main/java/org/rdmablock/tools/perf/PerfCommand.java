package org.rdmablock.tools.perf;

import java.io.PrintStream;
import java.net.InetAddress;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

import org.HdrHistogram.Histogram;
import org.rdmablock.target.CommandLines;
import org.rdmablock.target.config.Quantities;
import org.rdmablock.verbs.SendOpcode;
import org.rdmablock.verbs.VerbsProvider;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code rdmablock-perf}: perftest's bandwidth and latency tests over the verbs API, raw TCP baselines, and the
 * comparison table of the soft provider against TCP. Both ends run in this process, each on its own provider
 * instance (its own device and I/O threads), over the given address.
 */
@Command(name = "rdmablock-perf", mixinStandardHelpOptions = true, versionProvider = CommandLines.Version.class,
    description = "RDMA perf tools (perftest equivalents) and raw TCP baselines.",
    subcommands = {PerfCommand.WriteBw.class, PerfCommand.ReadBw.class, PerfCommand.SendLat.class,
        PerfCommand.WriteLat.class, PerfCommand.Compare.class, PerfCommand.RpingCommand.class})
public final class PerfCommand {
    /** Options every test shares. */
    static class Common {
        @Option(names = "--provider", defaultValue = "soft", description = "verbs provider: soft, native or auto (default: ${DEFAULT-VALUE})")
        String provider;

        @Option(names = "--address", defaultValue = "127.0.0.1", description = "address both ends use (default: ${DEFAULT-VALUE})")
        InetAddress address;

        @Option(names = "--poll", description = "BUSY or YIELD (default: YIELD below 8 cores, else BUSY)")
        Poller poller = Poller.forThisMachine();
    }

    /** Sizes from 64 B to 1 MiB, doubling, as perftest's -a. */
    static int[] allSizes() {
        final int[] sizes = new int[15];
        for (int i = 0; i < sizes.length; i++) {
            sizes[i] = 64 << i;
        }
        return sizes;
    }

    /** A size option in the one grammar of the config and the other tools ({@link Quantities#parseSize}): "64k", "1MiB". */
    static final class LongSize implements CommandLine.ITypeConverter<Long> {
        @Override
        public Long convert(final String value) {
            return Quantities.parseSize(value);
        }
    }

    /** {@link LongSize}, for sizes that must fit an int (a message, a buffer). */
    static final class IntSize implements CommandLine.ITypeConverter<Integer> {
        @Override
        public Integer convert(final String value) {
            return Math.toIntExact(Quantities.parseSize(value));
        }
    }

    abstract static class Bandwidth implements Callable<Integer> {
        @CommandLine.Mixin
        Common common = new Common();

        @Option(names = {"-s", "--size"}, converter = IntSize.class, description = "message size (bytes, or 4k, 1MiB, ...); all sizes 64 B..1 MiB when omitted")
        Integer size;

        @Option(names = {"-t", "--tx-depth"}, defaultValue = "64", description = "requests in flight (default: ${DEFAULT-VALUE})")
        int depth;

        @Option(names = "--bytes", defaultValue = "256MiB", converter = LongSize.class, description = "bytes per size (default: ${DEFAULT-VALUE})")
        long bytes;

        abstract SendOpcode opcode();

        @Override
        public Integer call() throws Exception {
            final PrintStream out = System.out;
            final int readDepth = opcode() == SendOpcode.RDMA_READ ? Math.min(depth, 128) : 16;
            try (Link link = new Link(common.provider, common.address, Math.max(depth, 16), readDepth, 1 << 20)) {
                out.printf(Locale.ROOT, "%s bandwidth, provider %s, %d in flight%n", opcode(), common.provider, depth);
                out.printf(Locale.ROOT, "%10s %12s %14s %14s%n", "bytes", "iterations", "MB/s", "Mmsg/s");
                for (final int s : size == null ? allSizes() : new int[] {size}) {
                    final long iterations = Math.max(256, bytes / s);
                    final BandwidthTest test = new BandwidthTest(link, opcode(), s, depth, common.poller);
                    test.run(Math.max(64, iterations / 8));
                    final BandwidthTest.Result r = test.run(iterations);
                    out.printf(Locale.ROOT, "%10d %12d %14.1f %14.3f%n", s, iterations, r.megabytesPerSecond(), r.messagesPerSecond() / 1e6);
                }
            }
            return 0;
        }
    }

    @Command(name = "write-bw", description = "RDMA WRITE bandwidth (ib_write_bw).")
    static final class WriteBw extends Bandwidth {
        @Override
        SendOpcode opcode() {
            return SendOpcode.RDMA_WRITE;
        }
    }

    @Command(name = "read-bw", description = "RDMA READ bandwidth (ib_read_bw).")
    static final class ReadBw extends Bandwidth {
        @Override
        SendOpcode opcode() {
            return SendOpcode.RDMA_READ;
        }
    }

    abstract static class Latency implements Callable<Integer> {
        @CommandLine.Mixin
        Common common = new Common();

        @Option(names = {"-s", "--size"}, converter = IntSize.class, description = "message size (bytes, or 4k, ...); 64 B..1 MiB when omitted with -a")
        int size = 64;

        @Option(names = {"-a", "--all"}, description = "all sizes from 64 B to 1 MiB")
        boolean all;

        @Option(names = {"-n", "--iterations"}, defaultValue = "20000", description = "round trips (default: ${DEFAULT-VALUE})")
        int iterations;

        @Option(names = {"-w", "--warmup"}, description = "untimed round trips per size before the timed ones, so that the JIT "
            + "has compiled the path (default: a fifth of -n, at least 1000; perftest needs none)")
        Integer warmup;

        abstract SendOpcode opcode();

        @Override
        public Integer call() throws Exception {
            final PrintStream out = System.out;
            final int untimed = warmup != null ? warmup : Math.max(1000, iterations / 5);
            try (Link link = new Link(common.provider, common.address, 256, 16, 2L << 20)) {
                out.printf(Locale.ROOT, "%s latency (one way, half the round trip), provider %s, poll %s, %d untimed round trips first%n",
                    opcode(), common.provider, common.poller, untimed);
                out.printf(Locale.ROOT, "%10s %10s %10s %10s %10s %10s%n", "bytes", "min us", "p50 us", "avg us", "p99 us", "p99.9 us");
                for (final int s : all ? allSizes() : new int[] {size}) {
                    final LatencyTest test = new LatencyTest(link, opcode(), s, common.poller);
                    if (untimed > 0) {
                        test.run(untimed);
                    }
                    report(out, s, test.run(iterations));
                }
            }
            return 0;
        }
    }

    static void report(final PrintStream out, final int size, final Histogram h) {
        out.printf(Locale.ROOT, "%10d %10.2f %10.2f %10.2f %10.2f %10.2f%n", size, h.getMinValue() / 1e3, h.getValueAtPercentile(50) / 1e3,
            h.getMean() / 1e3, h.getValueAtPercentile(99) / 1e3, h.getValueAtPercentile(99.9) / 1e3);
    }

    @Command(name = "send-lat", description = "SEND/RECV latency (ib_send_lat).")
    static final class SendLat extends Latency {
        @Override
        SendOpcode opcode() {
            return SendOpcode.SEND;
        }
    }

    @Command(name = "write-lat", description = "RDMA WRITE latency, polling memory (ib_write_lat).")
    static final class WriteLat extends Latency {
        @Override
        SendOpcode opcode() {
            return SendOpcode.RDMA_WRITE;
        }
    }

    /** Exit status of {@code compare} when a ratio missed its goal (0: every goal met). */
    static final int GOAL_MISSED = 3;

    @Command(name = "compare", description = "The provider against raw TCP (and iperf3, when installed) on loopback: bandwidth and latency ratios, medians of several rounds.",
        exitCodeListHeading = "Exit status:%n", exitCodeList = {"0:every goal met", "3:a ratio missed its goal (the table says which)",
            "1:the measurement failed"})
    static final class Compare implements Callable<Integer> {
        @CommandLine.Mixin
        Common common = new Common();

        @Option(names = "--rounds", defaultValue = "5", description = "rounds, alternating provider and TCP (default: ${DEFAULT-VALUE})")
        int rounds;

        @Option(names = "--bytes", defaultValue = "512MiB", converter = LongSize.class, description = "bytes per bandwidth measurement (default: ${DEFAULT-VALUE})")
        long bytes;

        @Option(names = {"-n", "--iterations"}, defaultValue = "20000", description = "round trips per latency measurement (default: ${DEFAULT-VALUE})")
        int iterations;

        @Option(names = "--iperf3", defaultValue = Iperf3.DEFAULT_COMMAND, paramLabel = "COMMAND",
            description = "iperf3 to run as a second stream reference: a name looked up on PATH or a path; its row is "
                + "left out, with a note, when it is not found (default: ${DEFAULT-VALUE})")
        String iperf3;

        @Option(names = "--no-iperf3", description = "leave the iperf3 row out")
        boolean noIperf3;

        /** The iperf3 reference to run, or why there is none. */
        record Reference(Iperf3 iperf3, String skipped) {
        }

        /** The iperf3 reference these options ask for: found, or the reason its row is left out. */
        Reference reference() {
            if (noIperf3) {
                return new Reference(null, "iperf3 row skipped: --no-iperf3");
            }
            return Iperf3.locate(iperf3).map(found -> new Reference(found, null))
                .orElseGet(() -> new Reference(null, Iperf3.missing(iperf3)));
        }

        @Override
        public Integer call() throws Exception {
            final Reference reference = reference();
            if (reference.skipped() != null) {
                System.err.println(reference.skipped());
            }
            final Comparison comparison = new Comparison(common.provider, common.address, rounds, bytes, iterations, common.poller,
                reference.iperf3(), reference.skipped());
            final List<Comparison.Row> rows = comparison.run(System.err);
            Comparison.print(rows, comparison.notes(), System.out, String.format(Locale.ROOT,
                "%s provider vs raw TCP on %s: medians of %d rounds (%d cores, poll %s)", common.provider,
                common.address.getHostAddress(), rounds, Runtime.getRuntime().availableProcessors(), common.poller));
            return exitStatus(rows);
        }

        /** 0 when every goal was met, else {@link #GOAL_MISSED}. */
        static int exitStatus(final List<Comparison.Row> rows) {
            return Comparison.allGoalsMet(rows) ? 0 : GOAL_MISSED;
        }
    }

    @Command(name = "rping", description = "An rping peer (librdmacm's example): checks SEND, RDMA READ and RDMA WRITE against another stack.")
    static final class RpingCommand implements Callable<Integer> {
        @Option(names = "--provider", defaultValue = "soft", description = "verbs provider (default: ${DEFAULT-VALUE})")
        String provider;

        @Option(names = {"-s", "--server"}, description = "serve one client")
        boolean server;

        @Option(names = {"-a", "--address"}, required = true, description = "server address (client), or address to listen on (server)")
        InetAddress address;

        @Option(names = {"-p", "--port"}, defaultValue = "" + Rping.DEFAULT_PORT, description = "port (default: ${DEFAULT-VALUE}, as rping)")
        int port;

        @Option(names = {"-C", "--count"}, defaultValue = "10", description = "pings (client; default: ${DEFAULT-VALUE})")
        int count;

        @Option(names = {"-S", "--size"}, defaultValue = "64", converter = IntSize.class, description = "ping buffer size (default: ${DEFAULT-VALUE}, as rping)")
        int size;

        @Override
        public Integer call() throws Exception {
            try (VerbsProvider p = VerbsProvider.load(provider)) {
                final Rping rping = new Rping(p, size, System.out);
                final java.net.InetSocketAddress endpoint = new java.net.InetSocketAddress(address, port);
                final int pings = server ? rping.server(endpoint) : rping.client(endpoint, count);
                System.out.println(server ? "served " + pings + " pings, each read matched rping's pattern"
                    : "completed " + pings + " pings, each echo matched what was sent");
                return server || pings == count ? 0 : 1;
            }
        }
    }

    public static void main(final String[] args) {
        System.exit(new CommandLine(new PerfCommand()).setCaseInsensitiveEnumValuesAllowed(true).execute(args));
    }
}

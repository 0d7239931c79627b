package org.rdmablock.target.srp;

import org.rdmablock.protocol.scsi.BlockBackend;
import org.rdmablock.target.backend.BackendFactory;
import org.rdmablock.target.backend.LunBackend;
import org.rdmablock.target.config.ChannelConfig;
import org.rdmablock.target.config.IdentityConfig;
import org.rdmablock.target.config.ListenConfig;
import org.rdmablock.target.config.LunConfig;
import org.rdmablock.target.config.PipelineConfig;
import org.rdmablock.target.config.TargetConfig;
import org.rdmablock.target.config.TimeoutConfig;
import org.rdmablock.target.core.CommandPipeline;
import org.rdmablock.target.core.DeviceResources;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * The target end to end on loopback over the soft provider, beside the transport alone. Each system under test is
 * a server and a {@link BenchInitiator} connected to it: {@code raw} ({@link RawResponder}: the same IUs answered
 * with the same verbs, nothing else), {@code memory} and {@code null} ({@link SrpTarget} with the daemon's memory or
 * null backend). Every round measures every case on every system in turn, so that the machine's noise falls on all
 * alike; the summary gives the median of the rounds and each target's ratio to {@code raw}.
 *
 * <pre>
 *   bin/jmh target --main org.rdmablock.target.srp.TargetBench [--part transport|channels|all] [--rounds 5]
 *       [--seconds 2] [--systems raw,memory,null] [--backend-threads 1] [--credits 128] [--profile]
 *       [--channel-counts 1,16,64,256]
 * </pre>
 *
 * {@code transport}: 4 KiB random READ and WRITE at QD 1, 16 and 64, WRITE with immediate data, TEST UNIT READY at
 * QD 1 (a SEND each way) and 1 MiB sequential at QD 8, one channel. {@code channels}: 4 KiB random READ at QD 4 on
 * 1, 16, 64 and 256 channels (or {@code --channel-counts}), with the process's threads and resident memory once the
 * systems are up and after the last round (docs/benchmarks/reliability.md). {@code --profile} prints, per
 * measurement and as medians, the CPU time per command of each thread involved: the initiator's, the soft provider's
 * I/O threads (both ends) and the target's stages.
 */
public final class TargetBench {
    private static final long DEVICE_BYTES = 1L << 30;
    /** The soft provider's I/O threads: device name, "-io-", agent number. */
    private static final Pattern SOFT_IO = Pattern.compile("soft\\d+-io-\\d+");

    private record Case(BenchInitiator.Workload workload, int channels, int queueDepth) {
        String label() {
            return workload.name() + (channels > 1 ? " " + channels + " ch" : "") + " QD " + queueDepth;
        }

        boolean bandwidth() {
            return workload.bytes() >= 1 << 20;
        }
    }

    /** A system under test: a server, the initiator connected to it, and the roles of the threads they started. */
    private record Sut(String name, AutoCloseable server, BenchInitiator initiator, Map<Long, String> roles)
            implements AutoCloseable {
        @Override
        public void close() throws Exception {
            initiator.close();
            server.close();
        }
    }

    private int rounds = 5;
    private double seconds = 2;
    private int backendThreads = 1;
    private boolean profile;
    private String part = "all";
    private List<String> systems = List.of("raw", "memory", "null");
    /** Credits per channel of the transport part: above its deepest queue (64), see {@link #transport()}. */
    private int transportCredits = 128;
    private int[] channelCounts = {1, 16, 64, 256};

    public static void main(final String[] args) throws Exception {
        final TargetBench bench = new TargetBench();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--rounds" -> bench.rounds = Integer.parseInt(args[++i]);
                case "--seconds" -> bench.seconds = Double.parseDouble(args[++i]);
                case "--backend-threads" -> bench.backendThreads = Integer.parseInt(args[++i]);
                case "--part" -> bench.part = args[++i];
                case "--profile" -> bench.profile = true;
                case "--systems" -> bench.systems = List.of(args[++i].split(","));
                case "--credits" -> bench.transportCredits = Integer.parseInt(args[++i]);
                case "--channel-counts" -> bench.channelCounts = java.util.Arrays.stream(args[++i].split(","))
                        .mapToInt(Integer::parseInt).toArray();
                default -> throw new IllegalArgumentException("unknown option " + args[i]
                        + " (--part transport|channels|all, --systems raw,memory,null, --rounds N, --seconds S,"
                        + " --backend-threads N, --credits N, --channel-counts 1,16,64,256, --profile)");
            }
        }

        System.out.printf("%d CPUs, %d rounds of %.1f s per case, %d backend thread(s)%n",
                Runtime.getRuntime().availableProcessors(), bench.rounds, bench.seconds, bench.backendThreads);
        if (!bench.part.equals("channels")) {
            bench.transport();
        }
        if (!bench.part.equals("transport")) {
            bench.channels();
        }
        System.exit(0);
    }

    /**
     * One channel, queue depths up to 64, 128 credits: the target counts a command against the credits until its
     * response's send completion, which the soft provider reports only once a confirmation covers it, so an initiator
     * that uses every credit gets some commands answered BUSY (try {@code --credits 64}).
     */
    private void transport() throws Exception {
        final List<Case> cases = new ArrayList<>();
        cases.add(new Case(workload("TUR", CommandIus.Kind.TEST_UNIT_READY, 0, false), 1, 1));
        for (final int qd : new int[] {1, 16, 64}) {
            cases.add(new Case(workload("4k randread", CommandIus.Kind.READ, 4096, false), 1, qd));
        }
        for (final int qd : new int[] {1, 16, 64}) {
            cases.add(new Case(workload("4k randwrite", CommandIus.Kind.WRITE, 4096, false), 1, qd));
        }
        cases.add(new Case(workload("4k randwrite imm", CommandIus.Kind.WRITE_IMMEDIATE, 4096, false), 1, 16));
        cases.add(new Case(workload("1M seqread", CommandIus.Kind.READ, 1 << 20, true), 1, 8));
        cases.add(new Case(workload("1M seqwrite", CommandIus.Kind.WRITE, 1 << 20, true), 1, 8));
        compare("transport", cases, transportCredits, 1, 64);
    }

    private void channels() throws Exception {
        final List<Case> cases = new ArrayList<>();
        for (final int channels : channelCounts) {
            cases.add(new Case(workload("4k randread", CommandIus.Kind.READ, 4096, false), channels, 4));
        }
        compare("channels", cases, 16, java.util.Arrays.stream(channelCounts).max().orElse(1), 4);
    }

    private static BenchInitiator.Workload workload(final String name, final CommandIus.Kind kind, final int bytes,
                                                    final boolean sequential) {
        return new BenchInitiator.Workload(name, kind, bytes, sequential);
    }

    private Sut raw(final int credits, final int channels, final int slots) {
        final TargetConfig config = config(credits, channels, backendThreads);
        final Set<Long> before = threadCpu().keySet();
        final RawResponder server = new RawResponder(config.identity(), config.channel());
        return new Sut("raw", server, connect(server.localAddress(), channels, slots), roles(before));
    }

    private Sut target(final String name, final int credits, final int channels, final int slots,
                          final BlockBackend backend) {
        final Set<Long> before = threadCpu().keySet();
        final SrpTarget server = SrpTarget.start(config(credits, channels, backendThreads), initiator -> PipelineHarness.units(backend));
        return new Sut(name, server, connect(server.localAddress(), channels, slots), roles(before));
    }

    private static BenchInitiator connect(final InetSocketAddress address, final int channels, final int slots) {
        return connect(address, channels, slots, DEVICE_BYTES);
    }

    /** An initiator logged in to the bench's target identity, sending commands within {@code deviceBytes}. */
    static BenchInitiator connect(final InetSocketAddress address, final int channels, final int slots, final long deviceBytes) {
        return new BenchInitiator(address, SrpTargetTest.ID_EXT, SrpTargetTest.IOC_GUID, channels, slots,
                PipelineHarness.BLOCK_SIZE, deviceBytes);
    }

    /** The daemon's backend of {@code kind} (memory or null) for a LUN of {@code bytes}, write-through as by default. */
    static LunBackend lun(final LunConfig.BackendKind kind, final long bytes) {
        return BackendFactory.open(new LunConfig(0, kind, null, bytes, PipelineHarness.BLOCK_SIZE, false,
                LunConfig.WriteCachePolicy.WRITE_THROUGH, false, 0, List.of(), false, false));
    }

    /** A target on loopback with {@code credits} per channel and room for {@code channels} × credits commands. */
    static TargetConfig config(final int credits, final int channels, final int backendThreads) {
        final int commands = Integer.highestOneBit(Math.max(256, 2 * credits * channels) - 1) << 1;
        // the bench is one initiator: it may hold every channel (the default cap per initiator is 16)
        final ChannelConfig limits = new ChannelConfig(credits, TestInitiator.IU_LENGTH, 1 << 20, true, 8192, channels, channels);
        final PipelineConfig pipeline = new PipelineConfig(channels * (3 * credits + 4) + 64, commands, backendThreads,
                PipelineConfig.ReceiveQueueMode.PER_CHANNEL, PipelineConfig.CompletionMode.POLL);
        return new TargetConfig("<bench>", new ListenConfig("soft", "127.0.0.1", 0),
                new IdentityConfig(SrpTargetTest.ID_EXT, SrpTargetTest.IOC_GUID), limits, pipeline,
                new TimeoutConfig(Duration.ZERO, Duration.ZERO), List.of());
    }

    /** Starts the systems asked for, with {@code channels} × {@code slots} command slots, and compares them. */
    private void compare(final String title, final List<Case> cases, final int credits, final int channels,
                         final int slots) throws Exception {
        final List<Sut> started = new ArrayList<>();
        try {
            for (final String name : systems) {
                started.add(switch (name) {
                    case "raw" -> raw(credits, channels, slots);
                    case "memory" -> target(name, credits, channels, slots, lun(LunConfig.BackendKind.MEMORY, DEVICE_BYTES));
                    case "null" -> target(name, credits, channels, slots, lun(LunConfig.BackendKind.NULL, DEVICE_BYTES));
                    default -> throw new IllegalArgumentException("no system " + name + " (raw, memory, null)");
                });
            }
            System.out.println("== " + title + ": systems up (" + channels + " channels each): " + footprint());
            compare(title, cases, started);
            System.out.println("== " + title + ": after the last round: " + footprint());
        } finally {
            for (final Sut sut : started) {
                sut.close();
            }
        }
    }

    /** The process's live threads and resident memory, now and at its peak (Linux /proc/self/status). */
    private static String footprint() {
        try {
            final Map<String, String> status = new HashMap<>();
            for (final String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/self/status"))) {
                final int colon = line.indexOf(':');
                if (colon > 0) {
                    status.put(line.substring(0, colon), line.substring(colon + 1).trim());
                }
            }
            return status.get("Threads") + " threads, resident " + status.get("VmRSS") + " (peak " + status.get("VmHWM") + ")";
        } catch (final java.io.IOException e) {
            return "footprint unknown (" + e.getMessage() + ")";
        }
    }

    /** Measures every case on every system, round after round; prints each measurement and then the medians. */
    private void compare(final String title, final List<Case> cases, final List<Sut> systems) {
        final long nanos = (long) (seconds * 1e9);
        System.out.println("== " + title + ": warm-up");
        for (final Case c : cases) {
            for (final Sut system : systems) {
                system.initiator().run(c.workload(), c.channels(), c.queueDepth(), Math.min(nanos, 500_000_000L));
            }
        }
        final Map<String, List<BenchInitiator.Result>> results = new HashMap<>();
        final Map<String, List<Double>> cpu = new LinkedHashMap<>();
        for (int round = 1; round <= rounds; round++) {
            System.out.println("== " + title + ": round " + round + " of " + rounds);
            for (final Case c : cases) {
                for (final Sut system : systems) {
                    final Map<Long, Long> cpuBefore = profile ? threadCpu() : null;
                    final ChunkSampler chunks = profile && system.server() instanceof SrpTarget t ? new ChunkSampler(t) : null;
                    final BenchInitiator.Result r = system.initiator().run(c.workload(), c.channels(), c.queueDepth(), nanos);
                    if (chunks != null) {
                        System.out.println("    " + chunks.stop());
                    }
                    results.computeIfAbsent(c.label() + "|" + system.name(), k -> new ArrayList<>()).add(r);
                    System.out.printf("%-26s %-7s %10.0f IOPS %9.1f MB/s  p50 %8.1f us  p99 %8.1f us%s%n", c.label(),
                            system.name(), r.iops(), r.megabytesPerSecond(), r.p50() / 1e3, r.p99() / 1e3,
                            r.failed() > 0 ? "  " + r.failed() + " NOT GOOD" : "");
                    if (profile) {
                        final Map<String, Double> perCommand = cpuPerCommand(system, cpuBefore, r.commands());
                        final StringBuilder line = new StringBuilder("    CPU us/command:");
                        perCommand.forEach((role, ns) -> {
                            line.append(String.format(" %s %.1f", role, ns / 1e3));
                            cpu.computeIfAbsent(c.label() + "|" + system.name() + "|" + role, k -> new ArrayList<>()).add(ns);
                        });
                        System.out.println(line);
                    }
                }
            }
        }
        summary(title, cases, systems, results);
        if (profile) {
            System.out.println("== " + title + ": CPU microseconds per command by thread (medians)");
            cpu.forEach((key, values) -> System.out.printf("| %s | %.1f |%n", key.replace("|", " | "),
                    median(values.stream().mapToDouble(Double::doubleValue).toArray()) / 1e3));
            System.out.println();
        }
    }

    private static void summary(final String title, final List<Case> cases, final List<Sut> systems,
                                final Map<String, List<BenchInitiator.Result>> results) {
        System.out.println();
        System.out.println("== " + title + ": medians (IOPS, or MB/s for 1 MiB; p50 latency) and ratio to raw");
        final StringBuilder header = new StringBuilder("| case |");
        final StringBuilder rule = new StringBuilder("|---|");
        for (final Sut system : systems) {
            header.append(' ').append(system.name()).append(" |");
            rule.append("---:|");
            if (!system.name().equals("raw") && systems.getFirst().name().equals("raw")) {
                header.append(" ").append(system.name()).append(" / raw |");
                rule.append("---:|");
            }
        }
        System.out.println(header);
        System.out.println(rule);
        for (final Case c : cases) {
            final StringBuilder row = new StringBuilder("| " + c.label() + " |");
            double raw = Double.NaN;
            for (final Sut system : systems) {
                final List<BenchInitiator.Result> runs = results.get(c.label() + "|" + system.name());
                final double value = median(runs.stream().mapToDouble(r -> c.bandwidth() ? r.megabytesPerSecond() : r.iops()).toArray());
                final double p50 = median(runs.stream().mapToDouble(r -> r.p50() / 1e3).toArray());
                row.append(String.format(" %.0f%s (%.0f us) |", value, c.bandwidth() ? " MB/s" : "", p50));
                if (system.name().equals("raw")) {
                    raw = value;
                } else if (!Double.isNaN(raw)) {
                    row.append(String.format(" %.2f |", value / raw));
                }
            }
            System.out.println(row);
        }
        System.out.println();
    }

    private static double median(final double[] values) {
        final double[] sorted = values.clone();
        java.util.Arrays.sort(sorted);
        final int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    /**
     * Samples, every millisecond while a measurement runs, how many of the target's data buffer chunks are in use:
     * a command that finds none free waits in the intake stage, its receive not yet reposted.
     */
    private static final class ChunkSampler {
        private final Thread thread;
        private volatile boolean running = true;
        private long samples;
        private long sum;
        private int max;

        ChunkSampler(final SrpTarget target) {
            thread = Thread.ofPlatform().name("chunk-sampler").daemon().start(() -> {
                while (running) {
                    final int inUse = target.dataChunksInUse();
                    samples++;
                    sum += inUse;
                    max = Math.max(max, inUse);
                    java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
                }
            });
        }

        String stop() {
            running = false;
            try {
                thread.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return String.format("data chunks in use: mean %.0f, max %d (of %d)", sum / (double) Math.max(1, samples), max,
                    DeviceResources.MIN_DATA_BYTES / CommandPipeline.DATA_CHUNK_BYTES);
        }
    }

    /** CPU time of every live thread, by id. */
    private static Map<Long, Long> threadCpu() {
        final ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        final Map<Long, Long> cpu = new HashMap<>();
        for (final long id : mx.getAllThreadIds()) {
            cpu.put(id, mx.getThreadCpuTime(id));
        }
        return cpu;
    }

    /**
     * What each thread a system started does, by name: the target's poller, intake and backend stages (or the raw
     * responder's poller) and the soft provider's I/O threads, of both ends together. Threads that only log in or
     * wait are left out.
     */
    private static Map<Long, String> roles(final Set<Long> before) {
        final Map<Long, String> roles = new TreeMap<>();
        for (final Thread t : Thread.getAllStackTraces().keySet()) {
            final String name = t.getName();
            if (before.contains(t.threadId())) {
                continue;
            } else if (name.equals("srp-poller") || name.equals("raw-poller")) {
                roles.put(t.threadId(), "poller");
            } else if (name.equals(PipelineHarness.THREAD_PREFIX + "0")) {
                roles.put(t.threadId(), "intake");
            } else if (name.startsWith(PipelineHarness.THREAD_PREFIX)) {
                roles.put(t.threadId(), "backend");
            } else if (SOFT_IO.matcher(name).matches()) {
                roles.put(t.threadId(), "soft io");
            }
        }
        return roles;
    }

    /** CPU nanoseconds per command of each role of {@code system} and of this (the initiator's) thread since {@code before}. */
    private static Map<String, Double> cpuPerCommand(final Sut system, final Map<Long, Long> before, final long commands) {
        final Map<Long, Long> now = threadCpu();
        final Map<String, Double> perCommand = new LinkedHashMap<>();
        final long self = Thread.currentThread().threadId();
        perCommand.put("initiator", (now.get(self) - before.get(self)) / (double) commands);
        system.roles().forEach((id, role) -> {
            if (now.containsKey(id) && before.containsKey(id)) {
                perCommand.merge(role, (now.get(id) - before.get(id)) / (double) commands, Double::sum);
            }
        });
        return perCommand;
    }
}

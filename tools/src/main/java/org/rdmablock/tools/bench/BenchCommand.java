package org.rdmablock.tools.bench;

import org.rdmablock.initiator.InitiatorConfig;
import org.rdmablock.initiator.Lun;
import org.rdmablock.initiator.SrpInitiator;
import org.rdmablock.initiator.SrpIoException;
import org.rdmablock.target.CommandLines;
import org.rdmablock.target.config.Quantities;
import org.rdmablock.tools.session.EmbeddedTarget;
import org.rdmablock.tools.session.TargetOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code rdmablock bench}: fio's job for an SRP or NVMe target, through the initiator library. Logs in to the target (or to
 * one it starts in this process), keeps {@code --iodepth} I/Os in flight on each of {@code --threads} threads with
 * the callback API and registered buffers, and reports IOPS, MB/s and latency percentiles (HdrHistogram) of the
 * measured window, the commands it took, and with {@code --verify} whether every block read back is the one
 * written. A progress line goes to stderr each second; {@code --json} writes the figures for scripts.
 *
 * <p>Exit status: 0 ran (and verified); 1 could not connect or an I/O failed; 2 a bad option; 3 verify found a block
 * other than the one written (the report says where).
 */
@Command(name = "rdmablock bench", mixinStandardHelpOptions = true, versionProvider = CommandLines.Version.class, sortOptions = false,
        description = "Block I/O benchmark against an SRP or NVMe over Fabrics target, fio-like (the initiator library's asynchronous API).")
public final class BenchCommand implements Callable<Integer> {
    /** Exit status of an option the run cannot go with (picocli's own usage errors are 2 as well). */
    static final int EXIT_USAGE = 2;

    @Mixin
    TargetOptions session;

    @Option(names = "--lun", description = "LUN number, or with --nvme the namespace id (default: LUN 0, namespace 1)")
    Integer lun;

    @Option(names = "--rw", defaultValue = "randread", description = "randread, randwrite, read, write or randrw (default: ${DEFAULT-VALUE})")
    String rw;

    @Option(names = "--rwmix-read", paramLabel = "PCT", defaultValue = "50", description = "randrw: percent of reads (default: ${DEFAULT-VALUE})")
    int rwmixRead;

    @Option(names = "--bs", defaultValue = "4k", description = "bytes per I/O: 4k, 64k, 1m (default: ${DEFAULT-VALUE})")
    String bs;

    @Option(names = "--iodepth", defaultValue = "1", description = "I/Os in flight per thread (default: ${DEFAULT-VALUE})")
    int ioDepth;

    @Option(names = "--queue-depth", defaultValue = "0", description = "commands in flight per channel at most "
            + "(default 0: the threads' I/Os on it, plus one); fewer makes requests wait, which is when the initiator "
            + "merges and lets reads pass")
    int queueDepth;

    @Option(names = "--threads", defaultValue = "1", description = "submitting threads, each on its own slice of the region "
            + "(default: ${DEFAULT-VALUE})")
    int threads;

    @Option(names = "--channels", defaultValue = "1", description = "RDMA channels (QPs) of the session (default: ${DEFAULT-VALUE})")
    int channels;

    @Option(names = "--channel-policy", defaultValue = "per-thread", description = "per-thread or round-robin: how an I/O "
            + "picks its channel (default: ${DEFAULT-VALUE})")
    String channelPolicy;

    @Option(names = "--runtime", paramLabel = "DURATION", description = "how long to measure: 10s, 500ms, 2m (default: 10s, "
            + "unless --size alone is given)")
    String runtime;

    @Option(names = "--size", description = "bytes of the LUN used, from LBA 0 (default: the whole LUN); without --runtime "
            + "the run moves this many bytes once and ends")
    String size;

    @Option(names = "--ramp", paramLabel = "DURATION", defaultValue = "0", description = "I/O before measuring, left out of "
            + "every figure (default: none)")
    String ramp;

    @Option(names = "--verify", description = "write a pattern that encodes LBA and generation, check every read and read "
            + "back what was written; exit 3 on a mismatch (reads: the region is written first, not measured)")
    boolean verify;

    /*
     * Park by default: the initiator's channel thread is what must run for an I/O to complete, and a bench thread
     * spinning beside it takes the core it needs; spinning pays only with cores to spare (measured:
     * docs/benchmarks/initiator-scheduling.md). Ignored with --channel-wait caller (the thread polls).
     */
    @Option(names = "--wait", defaultValue = "park", description = "how a bench thread waits for completions: park (at "
            + "once: leaves the cores to the initiator's channel threads and the target), adaptive (spin, yield, then "
            + "park: with cores to spare) or spin (never park) (default: ${DEFAULT-VALUE})")
    String waitMode;

    @Option(names = "--json", paramLabel = "FILE|-", description = "write the figures as JSON to FILE, or to stdout with - "
            + "(the text report then goes to stderr)")
    String json;

    @Option(names = "--channel-wait", defaultValue = "yield", description = "how the initiator's channel threads wait "
            + "for completions: yield (poll, yielding the core), events (sleep on the completion channel) or caller (no "
            + "channel threads: the bench threads drive the channels themselves) (default: ${DEFAULT-VALUE})")
    String channelWait;

    @Option(names = "--merge", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "let the initiator merge adjacent waiting requests into one command (default: on)")
    boolean merge = true;

    @Option(names = "--read-priority", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "let the initiator start waiting reads ahead of waiting writes (default: on)")
    boolean readPriority = true;

    @Option(names = "--progress", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "a progress line each second on stderr (default: on)")
    boolean progress;

    @Option(names = "--embedded-target", paramLabel = "memory|null", description = "start our target in this process on "
            + "127.0.0.1 (a free port), LUN 0 of this backend, and run against it (--target is ignored)")
    String embeddedTarget;

    @Option(names = "--embedded-size", defaultValue = "1g", description = "size of the embedded target's LUN (default: ${DEFAULT-VALUE})")
    String embeddedSize;

    private final PrintStream out;
    private final PrintStream err;

    /** A bench that prints to the process's stdout and stderr. */
    public BenchCommand() {
        this(System.out, System.err);
    }

    /** A bench that prints its report to {@code out} and its progress and errors to {@code err} (for tests). */
    public BenchCommand(final PrintStream out, final PrintStream err) {
        this.out = out;
        this.err = err;
    }

    public static void main(final String[] args) {
        final String[] rest = args.length > 0 && args[0].equals("bench") ? java.util.Arrays.copyOfRange(args, 1, args.length) : args;
        System.exit(CommandLines.of(new BenchCommand(), "rdmablock bench").execute(rest));
    }

    @Override
    public Integer call() throws Exception {
        final Workload.Mode mode;
        final int blockBytes;
        final long runtimeNanos;
        final long rampNanos;
        final Long regionBytes;
        final InitiatorConfig.ChannelPolicy policy;
        final BenchWorker.WaitMode wait;
        try {
            mode = Workload.Mode.of(rw);
            blockBytes = Math.toIntExact(Quantities.parseSize(bs));
            runtimeNanos = runtime != null ? Quantities.parseDuration(runtime).toNanos() : size != null ? 0 : 10_000_000_000L;
            if (runtime != null && runtimeNanos <= 0) {
                throw new IllegalArgumentException("--runtime must be positive");
            }
            rampNanos = Quantities.parseDuration(ramp).toNanos();
            regionBytes = size == null ? null : Quantities.parseSize(size);
            policy = switch (channelPolicy.toLowerCase(Locale.ROOT)) {
                case "per-thread" -> InitiatorConfig.ChannelPolicy.PER_THREAD;
                case "round-robin" -> InitiatorConfig.ChannelPolicy.ROUND_ROBIN;
                default -> throw new IllegalArgumentException("--channel-policy must be per-thread or round-robin, not " + channelPolicy);
            };
            wait = switch (waitMode.toLowerCase(Locale.ROOT)) {
                case "adaptive" -> BenchWorker.WaitMode.ADAPTIVE;
                case "park" -> BenchWorker.WaitMode.PARK;
                case "spin" -> BenchWorker.WaitMode.SPIN;
                default -> throw new IllegalArgumentException("--wait must be adaptive, park or spin, not " + waitMode);
            };
            if (channels < 1 || channels > 256) {
                throw new IllegalArgumentException("--channels must be 1..256, not " + channels);
            }
            if (ioDepth < 1 || ioDepth > 4096 || threads < 1 || threads > 256) {
                throw new IllegalArgumentException("--iodepth must be 1..4096 and --threads 1..256");
            }
        } catch (IllegalArgumentException | ArithmeticException e) {
            err.println("rdmablock bench: " + e.getMessage());
            return EXIT_USAGE;
        }
        EmbeddedTarget embedded = null;
        try {
            final InitiatorConfig sessionConfig;
            final String where;
            try {
                if (embeddedTarget != null) {
                    final String kind = embeddedTarget.toLowerCase(Locale.ROOT);
                    if (!kind.equals("memory") && !kind.equals("null")) {
                        throw new IllegalArgumentException("--embedded-target must be memory or null, not " + embeddedTarget);
                    }
                    embedded = EmbeddedTarget.start(kind, Quantities.parseSize(embeddedSize), null, session.provider(),
                            session.nvmeSubsystem());
                }
                where = embedded != null ? embedded.where() : session.target();
                final InitiatorConfig config = session.config(embedded);
                final int perChannel = (threads + channels - 1) / channels * ioDepth;
                sessionConfig = config
                        .withChannels(channels, policy)
                        .withQueueDepth(queueDepth > 0 ? Math.clamp(queueDepth, 2, 4096) : Math.clamp(perChannel + 1L, 2, 4096))
                        .withBounceBytes(4096) // every bench buffer is registered: bounce buffers carry only discovery
                        .withScheduling(merge, readPriority)
                        .withWaiting(InitiatorConfig.Waiting.named(channelWait));
            } catch (IllegalArgumentException e) {
                err.println("rdmablock bench: " + e.getMessage());
                return EXIT_USAGE;
            }
            try (SrpInitiator initiator = SrpInitiator.connect(sessionConfig)) {
                final int number = lun != null ? lun : session.defaultLun();
                final Lun unit = initiator.lun(number);
                final Workload workload;
                try {
                    if (blockBytes % unit.blockSize() != 0) {
                        throw new IllegalArgumentException("--bs " + bs + " is not a multiple of LUN " + number + "'s block size, "
                                + unit.blockSize());
                    }
                    final long region = regionBytes == null ? unit.sizeBytes() : regionBytes;
                    if (region > unit.sizeBytes()) {
                        throw new IllegalArgumentException("--size " + size + " is larger than LUN " + number + " ("
                                + unit.sizeBytes() + " bytes)");
                    }
                    workload = new Workload(mode, rwmixRead, blockBytes, ioDepth, threads, region, runtimeNanos,
                            runtimeNanos > 0 ? 0 : region, rampNanos, verify);
                } catch (IllegalArgumentException e) {
                    err.println("rdmablock bench: " + e.getMessage());
                    return EXIT_USAGE;
                }
                final BenchResult result = new BenchRun(initiator, unit, workload, wait, progress ? err : null).execute();
                final BenchResult.Setup setup = new BenchResult.Setup(where, session.provider(), initiator.channelCount(), embeddedTarget);
                final PrintStream report = "-".equals(json) ? err : out;
                report.print(result.text(setup));
                report.flush();
                if (json != null) {
                    final String document = result.json(setup);
                    if ("-".equals(json)) {
                        out.println(document);
                        out.flush();
                    } else {
                        Files.writeString(Path.of(json), document + "\n");
                    }
                }
                return result.exitCode();
            }
        } catch (SrpIoException e) {
            err.println("rdmablock bench: " + e.getMessage());
            return BenchResult.EXIT_FAILED;
        } catch (IOException e) {
            err.println("rdmablock bench: cannot write " + json + ": " + e.getMessage());
            return BenchResult.EXIT_FAILED;
        } finally {
            if (embedded != null) {
                embedded.close();
            }
        }
    }
}

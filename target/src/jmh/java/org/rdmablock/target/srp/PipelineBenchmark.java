package org.rdmablock.target.srp;

import org.HdrHistogram.Histogram;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

import java.util.concurrent.TimeUnit;

/**
 * The command pipeline alone ({@link PipelineHarness}: fake verbs, a backend that touches no data, one channel or {@code channels}): 4 KiB commands per
 * second through the intake stage and {@code backendThreads} backend threads, the benchmark thread playing poller
 * and initiator with {@code queueDepth} commands in flight. After the run it prints the latency from publishing an
 * IU's receive completion to the post of its response (p50, p99, p99.9 over the measurement iterations) and the
 * CPU time the stage threads spent per command (waiting included), i.e. what one core could carry. With
 * {@code gapMicros} the benchmark thread idles that long after each response, as an initiator at queue depth 1
 * over a real link does, so that the latency includes waking the sleeping stages. Run with
 * {@code -prof gc}: {@code gc.alloc.rate.norm} counts every thread of the JVM, the pipeline's included.
 * {@code bin/jmh target -prof gc PipelineBenchmark}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xmx1g", "--enable-native-access=ALL-UNNAMED"})
public class PipelineBenchmark {
    /** Commands per benchmark call: the pipeline stays full across calls. */
    static final int BATCH = 1000;

    @Param({"READ", "WRITE", "MIXED"})
    public String mix;
    @Param({"1", "32"})
    public int queueDepth;
    @Param({"1"})
    public int backendThreads;
    /** Channels, each with {@code queueDepth} commands in flight (256 × 4 fills the data buffer pool). */
    @Param({"1"})
    public int channels;
    /** Idle microseconds before each command: with a gap the stages sleep between commands and must be woken. */
    @Param({"0"})
    public int gapMicros;

    private PipelineHarness harness;
    private final Histogram measured = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
    private long iterationCpu;
    private long iterationIntakeCpu;
    private long iterationCommands;
    private long measuredCpu;
    private long measuredIntakeCpu;
    private long measuredCommands;

    @Setup(Level.Trial)
    public void setUp() {
        harness = new PipelineHarness(channels, queueDepth, backendThreads, new DiscardingBackend(PipelineHarness.DEVICE_BYTES));
        harness.mix(PipelineHarness.Mix.valueOf(mix));
        harness.gap(TimeUnit.MICROSECONDS.toNanos(gapMicros));
    }

    @Setup(Level.Iteration)
    public void startIteration() {
        harness.latency.reset();
        iterationCpu = harness.pipelineCpuNanos();
        iterationIntakeCpu = harness.intakeCpuNanos();
        iterationCommands = harness.completed;
    }

    @TearDown(Level.Iteration)
    public void endIteration(final IterationParams iteration) {
        if (iteration.getType() == IterationType.MEASUREMENT) {
            measured.add(harness.latency);
            measuredCpu += harness.pipelineCpuNanos() - iterationCpu;
            measuredIntakeCpu += harness.intakeCpuNanos() - iterationIntakeCpu;
            measuredCommands += harness.completed - iterationCommands;
        }
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long commands() {
        harness.run(BATCH);
        return harness.completed;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        harness.drain();
        final double cpuPerCommand = measuredCpu / (double) measuredCommands;
        System.out.printf("%n  receive completion -> response post, %s %d x QD %d gap %d us: p50 %.2f us, p99 %.2f us, p99.9 %.2f us"
                        + " (%d commands, %d not GOOD); intake + backend threads' CPU %.0f ns/command (intake %.0f) = %.0f"
                        + " commands per core-second%n", mix, channels, queueDepth, gapMicros, measured.getValueAtPercentile(50) / 1e3,
                measured.getValueAtPercentile(99) / 1e3, measured.getValueAtPercentile(99.9) / 1e3,
                measured.getTotalCount(), harness.failed, cpuPerCommand, measuredIntakeCpu / (double) measuredCommands,
                1e9 / cpuPerCommand);
        harness.close();
    }
}

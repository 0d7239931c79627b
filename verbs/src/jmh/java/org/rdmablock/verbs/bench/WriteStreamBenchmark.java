package org.rdmablock.verbs.bench;

import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.rdmablock.verbs.SendOpcode;
import org.rdmablock.verbs.SendWorkRequest;
import org.rdmablock.verbs.WorkCompletions;

/**
 * A stream of large RDMA WRITEs on a soft RC QP, {@link #depth} in flight: one operation is one WRITE of
 * {@link #size} bytes completed (ops/s times size is the bandwidth). The passive side's I/O agent parses the
 * stream and places the payload; compare its read strategies with {@code -jvmArgsAppend
 * -Drdmablock.soft.headerFirstMin=2147483647} (every staging read greedy) against the default:
 * {@code bin/jmh verbs -f 3 WriteStreamBenchmark}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class WriteStreamBenchmark {
    @Param({"65536", "1048576"})
    public int size;

    /** WRITEs in flight. */
    @Param({"8"})
    public int depth;

    private SoftPairFixture fixture;
    private SendWorkRequest write;
    private final WorkCompletions wc = new WorkCompletions(16);

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        fixture = new SoftPairFixture(size);
        write = fixture.request(SendOpcode.RDMA_WRITE, size);
        for (int i = 0; i < depth; i++) {
            fixture.pair.clientQp.postSend(write);
        }
    }

    /** Waits for the oldest WRITE in flight and posts the next one. */
    @Benchmark
    public int completeOne() {
        final int n = SoftPairFixture.awaitOne(fixture.pair.clientCq, wc);
        fixture.pair.clientQp.postSend(write);
        return n;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        fixture.close();
    }
}

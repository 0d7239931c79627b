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
import org.rdmablock.verbs.CompletionQueue;
import org.rdmablock.verbs.ReceiveWorkRequest;
import org.rdmablock.verbs.SendOpcode;
import org.rdmablock.verbs.SendWorkRequest;
import org.rdmablock.verbs.WorkCompletions;
import org.rdmablock.verbs.conformance.ConnectedPair;

/**
 * One signaled 64-byte operation on an RC QP of the soft provider, posted and polled to completion: the verbs
 * hot path end to end (post, framing, socket I/O, placement, completion). Run with {@code -prof gc} to see the
 * allocation per operation: {@code bin/jmh verbs -prof gc PostPollBenchmark}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class PostPollBenchmark {
    @Param({"SEND", "RDMA_WRITE", "RDMA_READ"})
    public String operation;

    private SoftPairFixture fixture;
    private ConnectedPair pair;
    private SendWorkRequest send;
    private ReceiveWorkRequest receive;
    private final WorkCompletions wc = new WorkCompletions(4);
    private boolean twoSided;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        fixture = new SoftPairFixture(4096);
        pair = fixture.pair;
        send = fixture.request(SendOpcode.valueOf(operation), 64);
        receive = new ReceiveWorkRequest();
        receive.sgl().add(fixture.remote, 0, 64);
        twoSided = send.opcode() == SendOpcode.SEND;
        if (twoSided) {
            pair.serverQp.postReceive(receive);
        }
    }

    @Benchmark
    public int postAndPoll() {
        pair.clientQp.postSend(send);
        if (twoSided) {
            await(pair.serverCq);
            pair.serverQp.postReceive(receive);
        }
        return await(pair.clientCq);
    }

    private int await(final CompletionQueue cq) {
        return SoftPairFixture.awaitOne(cq, wc);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        fixture.close();
    }
}

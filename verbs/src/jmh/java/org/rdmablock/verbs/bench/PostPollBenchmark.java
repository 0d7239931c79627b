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
import org.rdmablock.verbs.AccessFlags;
import org.rdmablock.verbs.CompletionQueue;
import org.rdmablock.verbs.MemoryRegion;
import org.rdmablock.verbs.QueuePairType;
import org.rdmablock.verbs.ReceiveWorkRequest;
import org.rdmablock.verbs.SendFlags;
import org.rdmablock.verbs.SendOpcode;
import org.rdmablock.verbs.SendWorkRequest;
import org.rdmablock.verbs.WorkCompletions;
import org.rdmablock.verbs.conformance.ConnectedPair;
import org.rdmablock.verbs.conformance.ProviderFixture;

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

    private ConnectedPair pair;
    private SendWorkRequest send;
    private ReceiveWorkRequest receive;
    private final WorkCompletions wc = new WorkCompletions(4);
    private boolean twoSided;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        pair = new ConnectedPair(ProviderFixture.soft(), QueuePairType.RC);
        final MemoryRegion local = pair.client.register(4096, AccessFlags.LOCAL_WRITE);
        final MemoryRegion remote = pair.server.register(4096, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_WRITE);
        send = new SendWorkRequest().opcode(SendOpcode.valueOf(operation)).flags(SendFlags.SIGNALED).remote(remote.address(), remote.rkey());
        send.sgl().add(local, 0, 64);
        receive = new ReceiveWorkRequest();
        receive.sgl().add(remote, 0, 64);
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
        int n;
        while ((n = cq.poll(wc, 1)) == 0) {
            Thread.onSpinWait();
        }
        if (!wc.isSuccess(0)) { // a flushed QP completes fast: never time one
            throw new IllegalStateException("operation failed: " + wc.toString(0));
        }
        return n;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        pair.close();
    }
}

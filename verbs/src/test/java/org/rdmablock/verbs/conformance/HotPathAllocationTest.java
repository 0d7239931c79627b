package org.rdmablock.verbs.conformance;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.rdmablock.verbs.conformance.DataTransferConformanceTest.ALL;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.rdmablock.verbs.AccessFlags;
import org.rdmablock.verbs.CompletionQueue;
import org.rdmablock.verbs.MemoryRegion;
import org.rdmablock.verbs.QueuePairType;
import org.rdmablock.verbs.ReceiveWorkRequest;
import org.rdmablock.verbs.SendFlags;
import org.rdmablock.verbs.SendOpcode;
import org.rdmablock.verbs.SendWorkRequest;
import org.rdmablock.verbs.WorkCompletions;

/**
 * The hot path allocates nothing: post send, post receive and poll on the caller's thread, and the provider's own
 * I/O threads that move the data, counted with the JVM's per-thread allocation counters over tens of thousands
 * of operations after warm-up.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class HotPathAllocationTest {
    private static final int WARMUP = 20_000;
    private static final int MEASURED = 40_000;
    /** Average bytes per operation tolerated: JIT deoptimisation or a stray lazy init may allocate once. */
    private static final double MAX_BYTES_PER_OP = 2.0;

    static Stream<Arguments> operations() {
        return Fixtures.providers().flatMap(f -> Stream.of(SendOpcode.SEND, SendOpcode.RDMA_WRITE, SendOpcode.RDMA_READ,
            SendOpcode.ATOMIC_FETCH_AND_ADD).map(op -> Arguments.of(f, op)));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("operations")
    void postingPollingAndTheIoThreadsAllocateNothingPerOperation(final ProviderFixture fixture, final SendOpcode opcode) throws Exception {
        try (ConnectedPair pair = new ConnectedPair(fixture, QueuePairType.RC)) {
            final MemoryRegion local = pair.client.register(4096, AccessFlags.LOCAL_WRITE);
            final MemoryRegion remote = pair.server.register(4096, ALL);
            final int size = opcode.isAtomic() ? 8 : 64;
            final SendWorkRequest send = new SendWorkRequest().opcode(opcode).flags(SendFlags.SIGNALED)
                .remote(remote.address(), remote.rkey()).atomic(1, 0);
            send.sgl().add(local, 0, size);
            final ReceiveWorkRequest recv = new ReceiveWorkRequest();
            recv.sgl().add(remote, 0, 64);
            final WorkCompletions wc = new WorkCompletions(4);
            final boolean twoSided = opcode == SendOpcode.SEND;
            if (twoSided) {
                pair.serverQp.postReceive(recv);
            }
            run(pair, send, recv, wc, twoSided, WARMUP);

            final List<Long> threads = measuredThreads();
            final long before = allocated(threads);
            run(pair, send, recv, wc, twoSided, MEASURED);
            final long after = allocated(threads);
            final double perOp = (after - before) / (double) MEASURED;
            System.out.printf("%s %s: %.3f bytes allocated per operation over %d operations (%d threads)%n",
                fixture.name(), opcode, perOp, MEASURED, threads.size());
            assertTrue(perOp <= MAX_BYTES_PER_OP, opcode + " allocated " + perOp + " bytes per operation");
        }
    }

    private static void run(final ConnectedPair pair, final SendWorkRequest send, final ReceiveWorkRequest recv,
                            final WorkCompletions wc, final boolean twoSided, final int count) {
        for (int i = 0; i < count; i++) {
            send.wrId(i);
            pair.clientQp.postSend(send);
            if (twoSided) {
                await(pair.serverCq, wc);
                pair.serverQp.postReceive(recv);
            }
            await(pair.clientCq, wc);
        }
    }

    private static void await(final CompletionQueue cq, final WorkCompletions wc) {
        while (cq.poll(wc, 1) == 0) {
            Thread.onSpinWait();
        }
        if (!wc.isSuccess(0)) {
            throw new AssertionError(wc.toString(0));
        }
    }

    /** This thread and the providers' I/O threads. */
    private static List<Long> measuredThreads() {
        final List<Long> ids = new ArrayList<>();
        ids.add(Thread.currentThread().threadId());
        for (final Thread thread : Thread.getAllStackTraces().keySet()) {
            if (thread.getName().contains("-io-")) {
                ids.add(thread.threadId());
            }
        }
        return ids;
    }

    private static long allocated(final List<Long> threads) {
        final com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long total = 0;
        for (final long id : threads) {
            total += mx.getThreadAllocatedBytes(id);
        }
        return total;
    }
}

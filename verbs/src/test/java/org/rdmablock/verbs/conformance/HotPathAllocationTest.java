package org.rdmablock.verbs.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.rdmablock.verbs.conformance.DataTransferConformanceTest.ALL;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.rdmablock.verbs.AccessFlags;
import org.rdmablock.verbs.CompletionChannel;
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
 * I/O threads that move the data, counted with the JVM's per-thread allocation counters after warm-up. Covers what
 * block I/O posts: 4 KiB to 1 MiB WRITEs and READs (above the soft provider's copy limit the payload is written
 * from registered memory), several gather elements, unsignaled requests and chains posted in one call.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class HotPathAllocationTest {
    /** Average bytes per operation tolerated: JIT deoptimisation or a stray lazy init may allocate once. */
    private static final double MAX_BYTES_PER_OP = 2.0;
    /**
     * How long one completion may take before the test fails instead of hanging. The waits here are hand-written
     * loops, not Await: they run inside the measured window, where Awaitility's own allocations would be counted.
     */
    private static final long AWAIT_NANOS = TimeUnit.SECONDS.toNanos(20);

    /**
     * One posting pattern: {@code chain} requests of {@code size} bytes each, gathered from {@code sges} elements,
     * posted in one call; the last of the chain is signaled, the others only when {@code signalEach}.
     */
    record Pattern(SendOpcode opcode, int size, int sges, int chain, boolean signalEach) {
        @Override
        public String toString() {
            return opcode + " " + (size >= 1 << 20 ? (size >> 20) + " MiB" : size >= 1024 ? (size >> 10) + " KiB" : size + " B")
                + (sges > 1 ? " x" + sges + " SGEs" : "") + (chain > 1 ? " chain of " + chain : "")
                + (chain > 1 && !signalEach ? " unsignaled but the last" : "");
        }

        /** Operations measured: enough to make 2 bytes per operation meaningful, bounded by the bytes moved. */
        int measured(final ProviderFixture fixture) {
            // rxe under emulation moves ~60 MB/s and a post costs tens of microseconds: fewer there
            final boolean soft = fixture.name().equals("soft");
            final long budget = soft ? 128L << 20 : 32L << 20;
            return (int) Math.max(soft ? 1000 : 100, Math.min(soft ? 20_000 : 5000, budget / ((long) size * chain)));
        }

        /** Untimed operations first, so that the JIT has compiled the path. */
        int warmup(final ProviderFixture fixture) {
            return measured(fixture) / 2 + (fixture.name().equals("soft") ? 500 : 50);
        }
    }

    static Stream<Arguments> operations() {
        final List<Pattern> patterns = List.of(
            new Pattern(SendOpcode.SEND, 64, 1, 1, true),
            new Pattern(SendOpcode.RDMA_WRITE, 64, 1, 1, true),
            new Pattern(SendOpcode.RDMA_READ, 64, 1, 1, true),
            new Pattern(SendOpcode.ATOMIC_FETCH_AND_ADD, 8, 1, 1, true),
            new Pattern(SendOpcode.RDMA_WRITE, 4096, 1, 1, true),
            new Pattern(SendOpcode.RDMA_READ, 4096, 1, 1, true),
            new Pattern(SendOpcode.RDMA_WRITE, 64 << 10, 1, 1, true),
            new Pattern(SendOpcode.RDMA_READ, 64 << 10, 1, 1, true),
            new Pattern(SendOpcode.RDMA_WRITE, 1 << 20, 1, 1, true),
            new Pattern(SendOpcode.RDMA_READ, 1 << 20, 1, 1, true),
            new Pattern(SendOpcode.RDMA_WRITE, 64 << 10, 4, 1, true),
            new Pattern(SendOpcode.RDMA_READ, 64 << 10, 4, 1, true),
            new Pattern(SendOpcode.SEND, 16 << 10, 4, 1, true),
            new Pattern(SendOpcode.RDMA_WRITE, 4096, 1, 8, false),
            new Pattern(SendOpcode.RDMA_WRITE, 64 << 10, 2, 8, true),
            new Pattern(SendOpcode.RDMA_READ, 4096, 1, 8, false));
        return Fixtures.providers().flatMap(f -> patterns.stream().map(p -> Arguments.of(f, p)));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("operations")
    void postingPollingAndTheIoThreadsAllocateNothingPerOperation(final ProviderFixture fixture, final Pattern pattern) throws Exception {
        try (ConnectedPair pair = new ConnectedPair(fixture, QueuePairType.RC)) {
            final long span = (long) pattern.size() * pattern.chain();
            final MemoryRegion local = pair.client.register(span, AccessFlags.LOCAL_WRITE);
            final MemoryRegion remote = pair.server.register(span, ALL);
            local.segment().fill((byte) 0x5A);
            remote.segment().fill((byte) 0x3C);
            final SendWorkRequest[] chain = chain(pattern, local, remote);
            final ReceiveWorkRequest recv = new ReceiveWorkRequest();
            recv.sgl().add(remote, 0, pattern.size());
            final WorkCompletions wc = new WorkCompletions(pattern.chain() + 4);
            final boolean twoSided = pattern.opcode() == SendOpcode.SEND;
            if (twoSided) {
                pair.serverQp.postReceive(recv);
            }
            final int measured = pattern.measured(fixture);
            run(pair, pattern, chain, recv, wc, pattern.warmup(fixture));
            // the data really moved: the last operation's bytes are at the other end
            if (pattern.opcode() == SendOpcode.RDMA_READ) {
                assertArrayEquals(bytes(remote, 0, span), bytes(local, 0, span), "READ data");
            } else if (!pattern.opcode().isAtomic()) {
                assertArrayEquals(bytes(local, 0, pattern.size()), bytes(remote, 0, pattern.size()), pattern.opcode() + " data");
            }

            final List<Thread> ioThreads = ioThreads();
            if (fixture.name().equals("soft")) {
                // both hosts' devices move data on their own agents; counting none would measure only the poster
                assertTrue(ioThreads.size() >= 2, "the soft devices' I/O threads were not found: " + ioThreads);
            }
            final List<Long> threads = new ArrayList<>();
            threads.add(Thread.currentThread().threadId());
            ioThreads.forEach(t -> threads.add(t.threadId()));
            final long first = allocated(threads);
            final long before = allocated(threads);
            final long counting = before - first; // what reading the counters allocates, not the hot path
            run(pair, pattern, chain, recv, wc, measured);
            final long after = allocated(threads);
            final double perOp = (after - before - counting) / (double) measured;
            System.out.printf("%s %s: %.3f bytes allocated per post over %d posts (%d threads)%n",
                fixture.name(), pattern, perOp, measured, threads.size());
            assertTrue(perOp <= MAX_BYTES_PER_OP, pattern + " allocated " + perOp + " bytes per post");
        }
    }

    /**
     * A completion thread that lives on a channel allocates nothing per wake-up: alternately an event (a SEND
     * completing at the server, whose CQ is on the channel) and a {@link CompletionChannel#wakeup()} from this
     * thread wake it; it takes the event, polls, re-arms. Counted on the waiting thread after a warm-up.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("org.rdmablock.verbs.conformance.Fixtures#providers")
    void aThreadWaitingOnACompletionChannelAllocatesNothingPerWakeUp(final ProviderFixture fixture) throws Exception {
        final ConnectedPair.Side client = ConnectedPair.Side.of(QueuePairType.RC);
        try (ConnectedPair pair = new ConnectedPair(fixture, client, ConnectedPair.Side.of(QueuePairType.RC).withCompletionChannel())) {
            final MemoryRegion source = pair.client.register(64, AccessFlags.LOCAL_WRITE);
            final MemoryRegion sink = pair.server.register(64, AccessFlags.LOCAL_WRITE);
            final SendWorkRequest send = new SendWorkRequest().opcode(SendOpcode.SEND).flags(SendFlags.SIGNALED);
            send.sgl().add(source, 0, 64);
            final ReceiveWorkRequest recv = new ReceiveWorkRequest();
            recv.sgl().add(sink, 0, 64);
            final WorkCompletions wc = new WorkCompletions(4);
            // rxe under emulation takes tens of microseconds a post and an interrupt a wake-up: fewer there
            final boolean soft = fixture.name().equals("soft");
            final ChannelWaiter waiter = new ChannelWaiter(pair.serverChannel, pair.serverCq, soft ? 4000 : 1200, soft ? 2000 : 600);
            final Thread thread = Thread.ofPlatform().name("channel-waiter").start(waiter);
            try {
                runChannelSteps(pair, waiter, send, recv, wc);
            } finally {
                // the waiter must be gone before the pair's CQ is destroyed: it would arm a freed CQ
                waiter.stop = true;
                pair.serverChannel.wakeup();
                thread.join(AWAIT_NANOS / 1_000_000);
            }
            assertTrue(!thread.isAlive(), "the waiter ended");
            assertTrue(waiter.wrong == 0, waiter.wrong + " wake-ups brought the wrong thing (an event when a wakeup was due, or none)");
            final double perWakeUp = waiter.measuredBytes / (double) (waiter.total - waiter.measureFrom);
            System.out.printf("%s completion channel: %.3f bytes allocated per wake-up over %d wake-ups (half events, half wakeup())%n",
                fixture.name(), perWakeUp, waiter.total - waiter.measureFrom);
            assertTrue(waiter.measuredBytes >= 0 && perWakeUp <= MAX_BYTES_PER_OP, "await allocated " + perWakeUp + " bytes per wake-up");
        }
    }

    /** Even steps: a SEND whose receive completion raises an event; odd steps: a wakeup(). Each waits for the waiter. */
    private static void runChannelSteps(final ConnectedPair pair, final ChannelWaiter waiter, final SendWorkRequest send,
                                        final ReceiveWorkRequest recv, final WorkCompletions wc) {
        final long armDeadline = System.nanoTime() + AWAIT_NANOS;
        while (!waiter.armed) { // a completion before the CQ is armed raises no event
            if (System.nanoTime() - armDeadline > 0) {
                throw new AssertionError("the waiter did not arm the CQ within 20 s");
            }
            Thread.onSpinWait();
        }
        for (int i = 0; i < waiter.total; i++) {
            if (i % 2 == 0) {
                pair.serverQp.postReceive(recv);
                pair.clientQp.postSend(send);
                await(pair.clientCq, wc, 1);
            } else {
                pair.serverChannel.wakeup();
            }
            final long deadline = System.nanoTime() + AWAIT_NANOS;
            while (waiter.done <= i && waiter.failure == null) {
                if (System.nanoTime() - deadline > 0) {
                    throw new AssertionError("the waiter did not wake within 20 s at step " + i);
                }
                Thread.onSpinWait();
            }
            if (waiter.failure != null) {
                throw new AssertionError("waiter failed at step " + i, waiter.failure);
            }
        }
    }

    /** Takes {@code total} wake-ups from a channel: events at even steps, wakeups at odd ones; counts its allocation from {@code measureFrom}. */
    private static final class ChannelWaiter implements Runnable {
        private static final Duration WAIT = Duration.ofSeconds(20);
        final CompletionChannel channel;
        final CompletionQueue cq;
        final int total;
        final int measureFrom;
        final WorkCompletions wc = new WorkCompletions(4);
        volatile int done;
        volatile int wrong;
        volatile boolean armed;
        volatile boolean stop;
        volatile long measuredBytes = -1;
        volatile Throwable failure;

        ChannelWaiter(final CompletionChannel channel, final CompletionQueue cq, final int total, final int measureFrom) {
            this.channel = channel;
            this.cq = cq;
            this.total = total;
            this.measureFrom = measureFrom;
        }

        @Override
        public void run() {
            final com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            final long self = Thread.currentThread().threadId();
            try {
                cq.requestNotify(false);
                armed = true;
                long before = 0;
                long counting = 0;
                for (int i = 0; i < total && !stop; i++) {
                    if (i == measureFrom) {
                        final long first = mx.getThreadAllocatedBytes(self);
                        before = mx.getThreadAllocatedBytes(self);
                        counting = before - first; // what reading the counter allocates
                    }
                    final CompletionQueue woken = channel.awaitEvent(WAIT);
                    if (stop) {
                        return;
                    }
                    if (i % 2 == 0) {
                        if (woken != cq || cq.poll(wc) != 1 || !wc.isSuccess(0)) {
                            wrong++;
                        }
                        cq.requestNotify(false);
                        if (cq.poll(wc) != 0) {
                            wrong++; // nothing else was sent
                        }
                    } else if (woken != null) {
                        wrong++;
                    }
                    done = i + 1;
                }
                measuredBytes = mx.getThreadAllocatedBytes(self) - before - counting;
            } catch (final Throwable e) {
                failure = e;
            }
        }
    }

    /** The chain of one post: request i covers bytes [i × size, (i + 1) × size) of both buffers, in {@code sges} pieces. */
    private static SendWorkRequest[] chain(final Pattern pattern, final MemoryRegion local, final MemoryRegion remote) {
        final SendWorkRequest[] chain = new SendWorkRequest[pattern.chain()];
        for (int i = 0; i < chain.length; i++) {
            final long offset = (long) i * pattern.size();
            final boolean last = i == chain.length - 1;
            chain[i] = new SendWorkRequest(Math.max(1, pattern.sges())).opcode(pattern.opcode())
                .flags(last || pattern.signalEach() ? SendFlags.SIGNALED : 0)
                .remote(remote.address() + offset, remote.rkey()).atomic(1, 0);
            final int piece = pattern.size() / pattern.sges();
            for (int s = 0; s < pattern.sges(); s++) {
                chain[i].sgl().add(local, offset + (long) s * piece, s == pattern.sges() - 1 ? pattern.size() - s * piece : piece);
            }
            if (i > 0) {
                chain[i - 1].next(chain[i]);
            }
        }
        return chain;
    }

    private static void run(final ConnectedPair pair, final Pattern pattern, final SendWorkRequest[] chain,
                            final ReceiveWorkRequest recv, final WorkCompletions wc, final int posts) {
        final int signaled = pattern.signalEach() ? chain.length : 1;
        for (int i = 0; i < posts; i++) {
            chain[0].wrId(i);
            pair.clientQp.postSend(chain[0]);
            if (pattern.opcode() == SendOpcode.SEND) {
                await(pair.serverCq, wc, 1);
                pair.serverQp.postReceive(recv);
            }
            await(pair.clientCq, wc, signaled);
        }
    }

    /** Polls until {@code count} successful completions arrived; fails on an error or after {@link #AWAIT_NANOS}. */
    private static void await(final CompletionQueue cq, final WorkCompletions wc, final int count) {
        final long deadline = System.nanoTime() + AWAIT_NANOS;
        int seen = 0;
        while (seen < count) {
            final int n = cq.poll(wc, Math.min(count - seen, wc.capacity()));
            for (int k = 0; k < n; k++) {
                if (!wc.isSuccess(k)) {
                    throw new AssertionError(wc.toString(k));
                }
            }
            seen += n;
            if (n == 0) {
                if (System.nanoTime() - deadline > 0) {
                    throw new AssertionError("only " + seen + " of " + count + " completions within 20 s");
                }
                Thread.onSpinWait();
            }
        }
    }

    private static byte[] bytes(final MemoryRegion region, final long offset, final long length) {
        return region.segment().asSlice(offset, length).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
    }

    /** The soft providers' I/O agent threads (named {@code <device>-io-<n>}). */
    private static List<Thread> ioThreads() {
        final List<Thread> found = new ArrayList<>();
        for (final Thread thread : Thread.getAllStackTraces().keySet()) {
            if (thread.getName().contains("-io-") && thread.isAlive()) {
                found.add(thread);
            }
        }
        return found;
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

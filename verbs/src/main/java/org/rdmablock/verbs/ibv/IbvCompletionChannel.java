package org.rdmablock.verbs.ibv;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.rdmablock.verbs.CompletionChannel;
import org.rdmablock.verbs.CompletionQueue;
import org.rdmablock.verbs.ibv.bindings.Rdma;
import org.rdmablock.verbs.ibv.bindings.ibv_comp_channel;
import org.rdmablock.verbs.ibv.bindings.pollfd;

/**
 * A completion channel ({@code struct ibv_comp_channel}): waits with poll(2) on its fd (so a timeout is
 * possible), then ibv_get_cq_event. Events are acknowledged in batches and before the CQ is destroyed, as
 * ibv_get_cq_event(3) requires.
 */
final class IbvCompletionChannel implements CompletionChannel {
    private final IbvContext context;
    final MemorySegment channel;
    private final Map<Long, int[]> unacknowledged = new ConcurrentHashMap<>();
    private boolean closed;

    IbvCompletionChannel(final IbvContext context, final MemorySegment channel) {
        this.context = context;
        this.channel = channel.reinterpret(ibv_comp_channel.sizeof());
    }

    @Override
    public CompletionQueue awaitEvent(final Duration timeout) throws InterruptedException {
        try (Arena scratch = Arena.ofConfined()) {
            final MemorySegment fds = scratch.allocate(pollfd.layout());
            pollfd.fd(fds, ibv_comp_channel.fd(channel));
            pollfd.events(fds, (short) 1);
            final long deadline = System.nanoTime() + timeout.toNanos();
            while (true) {
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
                final long left = Math.max(0, (deadline - System.nanoTime()) / 1_000_000);
                if (Rdma.poll(fds, 1, (int) Math.min(left, 200)) > 0) {
                    break;
                }
                if (System.nanoTime() - deadline >= 0) {
                    return null;
                }
            }
            final MemorySegment cqOut = scratch.allocate(ValueLayout.ADDRESS);
            final MemorySegment contextOut = scratch.allocate(ValueLayout.ADDRESS);
            IbvContext.check(Rdma.ibv_get_cq_event(channel, cqOut, contextOut), "ibv_get_cq_event");
            final long cq = cqOut.get(ValueLayout.JAVA_LONG, 0);
            final int[] count = unacknowledged.computeIfAbsent(cq, k -> new int[1]);
            synchronized (count) {
                if (++count[0] >= 64) {
                    Rdma.ibv_ack_cq_events(MemorySegment.ofAddress(cq), count[0]);
                    count[0] = 0;
                }
            }
            return context.cqAt(cq);
        }
    }

    /** Acknowledges every event of {@code cq} (before it is destroyed). */
    void acknowledge(final IbvCompletionQueue cq) {
        final int[] count = unacknowledged.remove(cq.cq.address());
        if (count != null) {
            synchronized (count) {
                if (count[0] > 0) {
                    Rdma.ibv_ack_cq_events(cq.cq, count[0]);
                }
            }
        }
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            IbvContext.check(Rdma.ibv_destroy_comp_channel(channel), "ibv_destroy_comp_channel");
            closed = true;
            context.released(this);
        }
    }
}

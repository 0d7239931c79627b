package org.rdmablock.verbs.ibv;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;

import org.rdmablock.verbs.CompletionChannel;
import org.rdmablock.verbs.CompletionQueue;
import org.rdmablock.verbs.VerbsException;
import org.rdmablock.verbs.ibv.bindings.Rdma;
import org.rdmablock.verbs.ibv.bindings.ibv_comp_channel;
import org.rdmablock.verbs.ibv.bindings.pollfd;
import org.rdmablock.verbs.posix.LibC;

/**
 * A completion channel ({@code struct ibv_comp_channel}): waits with poll(2) on its fd and on an eventfd that
 * {@link #wakeup()} signals (a semaphore eventfd: each wakeup is read, and counts, once), then ibv_get_cq_event.
 * The poll set and the out-parameters are allocated once, and waiters take turns on one lock, so a wait allocates
 * nothing. Events are acknowledged in batches, counted on the CQ, and before the CQ is destroyed, as
 * ibv_get_cq_event(3) requires.
 */
final class IbvCompletionChannel implements CompletionChannel {
    /** Acknowledge a CQ's events once this many have been taken (ibv_ack_cq_events takes a mutex). */
    private static final int ACK_BATCH = 64;
    /** Longest single poll(2), so that an interrupt is seen. */
    private static final int POLL_SLICE_MILLIS = 200;

    private final IbvContext context;
    final MemorySegment channel;
    private final int wakeFd;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment fds;
    private final MemorySegment channelFd;
    private final MemorySegment wakeFdEntry;
    private final MemorySegment cqOut;
    private final MemorySegment contextOut;
    private final MemorySegment counter;
    private final MemorySegment one;
    /** Waiters take turns: the poll set and out-parameters are shared. Close frees them under it too. */
    private final Object waiting = new Object();
    /** The CQs made on this channel, copy-on-write, searched by address for each event. */
    private volatile IbvCompletionQueue[] queues = new IbvCompletionQueue[0];
    private volatile boolean closing;
    private boolean closed;

    IbvCompletionChannel(final IbvContext context, final MemorySegment channel) {
        this.context = context;
        this.channel = channel.reinterpret(ibv_comp_channel.sizeof());
        final int fd = LibC.eventfd(0, LibC.EFD_SEMAPHORE | LibC.EFD_NONBLOCK | LibC.EFD_CLOEXEC);
        if (fd < 0) {
            throw Native.failure("eventfd", -fd);
        }
        this.wakeFd = fd;
        fds = arena.allocate(pollfd.layout(), 2);
        channelFd = fds.asSlice(0, pollfd.sizeof());
        wakeFdEntry = fds.asSlice(pollfd.sizeof(), pollfd.sizeof());
        pollfd.fd(channelFd, ibv_comp_channel.fd(this.channel));
        pollfd.events(channelFd, LibC.POLLIN);
        pollfd.fd(wakeFdEntry, wakeFd);
        pollfd.events(wakeFdEntry, LibC.POLLIN);
        cqOut = arena.allocate(ValueLayout.ADDRESS);
        contextOut = arena.allocate(ValueLayout.ADDRESS);
        counter = arena.allocate(ValueLayout.JAVA_LONG);
        one = arena.allocate(ValueLayout.JAVA_LONG);
        one.set(ValueLayout.JAVA_LONG, 0, 1L);
    }

    @Override
    public CompletionQueue awaitEvent(final Duration timeout) throws InterruptedException {
        final long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (waiting) {
            if (closed) {
                throw new VerbsException(VerbsException.EINVAL, "completion channel is closed");
            }
            while (true) {
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
                final long left = deadline - System.nanoTime();
                final int slice = (int) Math.min(Math.max(0, left / 1_000_000), POLL_SLICE_MILLIS);
                if (Rdma.poll(fds, 2, slice) > 0) {
                    if ((pollfd.revents(wakeFdEntry) & LibC.POLLIN) != 0) {
                        LibC.read(wakeFd, counter, Long.BYTES); // takes one wakeup (EFD_SEMAPHORE)
                        return null;
                    }
                    if (pollfd.revents(channelFd) != 0) {
                        break; // an event, or an error that ibv_get_cq_event reports rather than a spin here
                    }
                }
                if (closing || System.nanoTime() - deadline >= 0) {
                    return null;
                }
            }
            IbvContext.check(Rdma.ibv_get_cq_event(channel, cqOut, contextOut), "ibv_get_cq_event");
            final IbvCompletionQueue cq = queueAt(cqOut.get(ValueLayout.JAVA_LONG, 0));
            if (cq != null) {
                cq.eventTaken(ACK_BATCH);
            }
            return cq;
        }
    }

    private IbvCompletionQueue queueAt(final long address) {
        for (final IbvCompletionQueue cq : queues) {
            if (cq.cq.address() == address) {
                return cq;
            }
        }
        return null;
    }

    @Override
    public void wakeup() {
        LibC.write(wakeFd, one, Long.BYTES); // adds 1 to the eventfd's count; fails only at 2^64-2 pending wakeups
    }

    /** A CQ was created on this channel. */
    synchronized void attach(final IbvCompletionQueue cq) {
        final IbvCompletionQueue[] current = queues;
        final IbvCompletionQueue[] next = java.util.Arrays.copyOf(current, current.length + 1);
        next[current.length] = cq;
        queues = next;
    }

    /** A CQ of this channel was destroyed. */
    synchronized void detach(final IbvCompletionQueue cq) {
        queues = java.util.Arrays.stream(queues).filter(each -> each != cq).toArray(IbvCompletionQueue[]::new);
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closing) {
                return;
            }
            if (queues.length > 0) {
                throw new VerbsException(VerbsException.EBUSY, "completion channel still used by " + queues.length + " CQ(s)");
            }
            closing = true;
        }
        wakeup(); // a waiter returns null and releases the lock
        synchronized (waiting) {
            IbvContext.check(Rdma.ibv_destroy_comp_channel(channel), "ibv_destroy_comp_channel");
            closed = true;
            LibC.close(wakeFd);
            arena.close();
        }
        context.released(this);
    }
}

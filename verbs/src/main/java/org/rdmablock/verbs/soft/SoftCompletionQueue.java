package org.rdmablock.verbs.soft;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import org.rdmablock.verbs.AsyncEvent;
import org.rdmablock.verbs.CompletionChannel;
import org.rdmablock.verbs.CompletionQueue;
import org.rdmablock.verbs.DeviceContext;
import org.rdmablock.verbs.VerbsException;
import org.rdmablock.verbs.WorkCompletions;

/**
 * A completion queue of the soft provider: a multi-producer ring of {@code struct ibv_wc} entries in native
 * memory. Producers (I/O agents, posting threads) claim a slot with a CAS on the producer sequence, write it
 * and publish it with a release store of its sequence; {@link #poll} copies published entries in bulk into the
 * caller's {@link WorkCompletions}. Nothing is allocated per completion.
 */
final class SoftCompletionQueue implements CompletionQueue {
    private static final VarHandle PUBLISHED = MethodHandles.arrayElementVarHandle(long[].class);
    private static final int ARM_NONE = 0;
    private static final int ARM_NEXT = 1;
    private static final int ARM_SOLICITED = 2;
    /**
     * Whether a poll that finds the CQ empty reads the sockets of its QPs itself (default true): a polling
     * thread then sees incoming messages without a hand-off from an I/O thread, as with a NIC's completion queue.
     * The I/O threads still make progress when nobody polls. {@link Configuration#POLL_PROGRESS_PROP_NAME}.
     */
    static final boolean POLL_PROGRESS = Configuration.pollProgress();
    /**
     * Up to this many QPs an empty poll reads each QP's socket directly (one read each, which is all a lone QP
     * costs); above it, it asks the CQ's own readiness selector which sockets have bytes (one epoll_wait) and reads
     * only those, so that an empty poll costs the ready QPs, not all of them (default 2,
     * {@link Configuration#DIRECT_PROGRESS_QPS_PROP_NAME}).
     */
    static final int DIRECT_PROGRESS_MAX = Configuration.directProgressQps();

    private final SoftContext context;
    private final SoftCompletionChannel channel;
    private final int capacity;
    private final int mask;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment ring;
    private final long[] published;
    private final AtomicLong claimed = new AtomicLong();
    private final java.util.concurrent.atomic.AtomicInteger armed = new java.util.concurrent.atomic.AtomicInteger();
    /**
     * The QPs on this CQ, replaced whole under {@link #membersLock} (not the CQ's own lock, which a poll holds
     * while it drives its QPs) so that {@link #poll} iterates without allocating.
     */
    private volatile SoftQueuePair[] members = new SoftQueuePair[0];
    private final Object membersLock = new Object();
    private volatile long consumed;
    /** When {@link #poll} last found the CQ empty, {@link System#nanoTime()} terms. */
    private volatile long lastPoll = Long.MIN_VALUE / 2;
    /** Moving average of the time between empty polls, nanoseconds: small when a thread spins on this CQ. */
    private volatile long pollInterval = Long.MAX_VALUE / 2;
    private volatile boolean overrun;
    private volatile boolean closed;
    /**
     * The member QPs' sockets, registered for OP_READ with their QP attached: what an empty poll of many QPs asks
     * (see {@link #DIRECT_PROGRESS_MAX}). Selected only under this CQ's monitor; opened on first use.
     */
    private Selector readiness;
    private final Consumer<SelectionKey> progressReady = key -> ((SoftQueuePair) key.attachment()).progress();
    private static final Consumer<SelectionKey> IGNORE = key -> { };

    SoftCompletionQueue(final SoftContext context, final int requested, final SoftCompletionChannel channel) {
        if (requested <= 0 || requested > SoftDevice.MAX_CQE) {
            throw new VerbsException(VerbsException.EINVAL, "CQ size " + requested + " outside 1.." + SoftDevice.MAX_CQE);
        }
        this.context = context;
        this.channel = channel;
        this.capacity = requested;
        final int slots = Integer.highestOneBit(Math.max(2, requested - 1)) << 1;
        this.mask = slots - 1;
        this.ring = arena.allocate((long) slots * WorkCompletions.ENTRY_SIZE, 8);
        this.published = new long[slots];
        java.util.Arrays.fill(published, -1L);
    }

    @Override
    public DeviceContext context() {
        return context;
    }

    @Override
    public int capacity() {
        return capacity;
    }

    @Override
    public CompletionChannel channel() {
        return channel;
    }

    void attach(final SoftQueuePair qp) {
        synchronized (membersLock) {
            final SoftQueuePair[] now = java.util.Arrays.copyOf(members, members.length + 1);
            now[now.length - 1] = qp;
            members = now;
        }
    }

    void detach(final SoftQueuePair qp) {
        synchronized (membersLock) {
            final SoftQueuePair[] now = members;
            for (int i = 0; i < now.length; i++) {
                if (now[i] == qp) {
                    final SoftQueuePair[] fewer = java.util.Arrays.copyOf(now, now.length - 1);
                    System.arraycopy(now, i + 1, fewer, i, now.length - i - 1);
                    members = fewer;
                    return;
                }
            }
        }
    }

    /**
     * Registers a member QP's connected socket with this CQ's readiness selector; the key is cancelled by
     * {@link #unwatch} before the socket closes.
     */
    SelectionKey watch(final SelectableChannel channel, final SoftQueuePair qp) throws IOException {
        synchronized (membersLock) {
            if (closed) {
                throw new VerbsException(VerbsException.EINVAL, "the completion queue is closed");
            }
            if (readiness == null) {
                readiness = Selector.open();
            }
            return channel.register(readiness, SelectionKey.OP_READ, qp);
        }
    }

    /**
     * Cancels a key from {@link #watch} and lets the selector drop it at once: a socket registered with a selector
     * is only really closed when every selector has dropped it, and nobody may poll this CQ again.
     */
    void unwatch(final SelectionKey key) {
        key.cancel();
        synchronized (this) {
            final Selector selector = readiness;
            if (selector != null && selector.isOpen()) {
                try {
                    selector.selectNow(IGNORE);
                } catch (final IOException ignored) {
                    // the key is cancelled; the selector's close drops it anyway
                }
            }
        }
    }

    /**
     * Adds a completion. On overrun the CQ enters its error state: the completion is counted as lost, the
     * {@code CQ_ERR} event fires and the QPs on this CQ move to ERR.
     *
     * @param solicited whether the completion may wake a CQ armed for solicited events only (solicited receives
     *                  and every error completion)
     */
    void add(final long wrId, final int status, final int opcode, final int byteLen, final int immOrRkey,
             final int qpNum, final int srcQp, final int flags, final boolean solicited) {
        if (closed) {
            return; // destroyed while a QP's I/O agent was still flushing it (its close raced the agent): nobody polls
        }
        long sequence;
        do {
            sequence = claimed.get();
            if (sequence - consumed >= capacity) {
                markOverrun();
                return;
            }
        } while (!claimed.compareAndSet(sequence, sequence + 1));
        final int slot = (int) sequence & mask;
        try {
            WorkCompletions.write(ring, (long) slot * WorkCompletions.ENTRY_SIZE, wrId, status, opcode, byteLen, immOrRkey,
                qpNum, srcQp, flags);
        } catch (final IllegalStateException closedMeanwhile) {
            return; // the ring's memory went with a close between the check above and this write
        }
        PUBLISHED.setRelease(published, slot, sequence);
        if (channel == null) {
            return;
        }
        // Dekker with requestNotify's arm-then-poll: the publish above must be visible before `armed` is read, or this
        // thread may see the CQ unarmed while the poller's last poll misses the entry, and the poller sleeps with a
        // completion waiting (a release store may pass a later load; CompletionWakeupRaceTest caught it)
        VarHandle.fullFence();
        final int arm = armed.get();
        if (arm != ARM_NONE && (arm == ARM_NEXT || solicited || status != 0) && armed.compareAndSet(arm, ARM_NONE)) {
            channel.signal(this);
        }
    }

    private void markOverrun() {
        if (!overrun) {
            overrun = true;
            context.raise(AsyncEvent.ofCq(AsyncEvent.Type.CQ_ERR, this));
            for (final SoftQueuePair qp : members) {
                qp.fatal(AsyncEvent.Type.QP_FATAL, "completion queue overrun");
            }
        }
    }

    @Override
    public synchronized int poll(final WorkCompletions completions, final int max) {
        if (overrun) {
            throw new VerbsException(VerbsException.EIO, "completion queue overrun: completions were lost (CQ of " + capacity + " entries)");
        }
        int count = published(max, completions);
        if (count == 0 && POLL_PROGRESS) {
            final long now = System.nanoTime();
            pollInterval += (Math.min(now - lastPoll, 1_000_000L) - pollInterval) >> 3;
            lastPoll = now;
            final SoftQueuePair[] qps = members;
            if (qps.length <= DIRECT_PROGRESS_MAX || readiness == null) {
                for (final SoftQueuePair qp : qps) {
                    qp.progress();
                }
            } else {
                try {
                    readiness.selectNow(progressReady);
                } catch (final IOException e) {
                    throw new VerbsException(VerbsException.EIO, "completion queue readiness: " + e.getMessage());
                }
            }
            if (armed.get() != ARM_NONE) {
                // The poll between arming and sleeping: requestNotify told the agents before this poll read the
                // streams, and an agent that found a stream held by it stepped back (InboundStream.yieldToHolder).
                // Tell them again now that this poll has let go, or a message could wait for the hand-off timer.
                for (final SoftQueuePair qp : qps) {
                    qp.pollerSleeping();
                }
            }
            count = published(max, completions);
        }
        if (count == 0) {
            return 0;
        }
        final long start = consumed;
        final int first = (int) start & mask;
        final int firstRun = Math.min(count, mask + 1 - first);
        MemorySegment.copy(ring, (long) first * WorkCompletions.ENTRY_SIZE, completions.segment(), 0,
            (long) firstRun * WorkCompletions.ENTRY_SIZE);
        if (firstRun < count) {
            MemorySegment.copy(ring, 0, completions.segment(), (long) firstRun * WorkCompletions.ENTRY_SIZE,
                (long) (count - firstRun) * WorkCompletions.ENTRY_SIZE);
        }
        consumed = start + count;
        return count;
    }

    /** Longest average time between polls that counts as a thread spinning on this CQ. */
    static final long SPIN_POLL_INTERVAL_NANOS = 10_000;

    /**
     * Whether a thread is spinning on this CQ: it found the CQ empty within {@code window} nanoseconds before
     * {@code now}, and its polls come at most {@link #SPIN_POLL_INTERVAL_NANOS} apart on average. A thread that
     * polls now and then (between waits on memory, say) does not count: it would not read the sockets in time.
     */
    boolean spunOnWithin(final long now, final long window) {
        return now - lastPoll < window && pollInterval <= SPIN_POLL_INTERVAL_NANOS;
    }

    private int published(final int max, final WorkCompletions completions) {
        final long start = consumed;
        final int limit = Math.min(max, completions.capacity());
        int count = 0;
        while (count < limit && (long) PUBLISHED.getAcquire(published, (int) (start + count) & mask) == start + count) {
            count++;
        }
        return count;
    }

    @Override
    public void requestNotify(final boolean solicitedOnly) {
        if (channel == null) {
            throw new VerbsException(VerbsException.EINVAL, "this CQ has no completion channel");
        }
        armed.set(solicitedOnly ? ARM_SOLICITED : ARM_NEXT);
        // The caller is about to sleep: it no longer counts as spinning, and the agents read for it again.
        lastPoll = Long.MIN_VALUE / 2;
        pollInterval = NOT_SPINNING_INTERVAL_NANOS;
        for (final SoftQueuePair qp : members) {
            qp.pollerSleeping();
        }
    }

    /**
     * The poll interval an armed CQ starts again from: a thread must then poll some 35 times, 1 µs apart, before
     * it counts as spinning again (the average moves an eighth of the way per empty poll).
     */
    private static final long NOT_SPINNING_INTERVAL_NANOS = 1_000_000L;

    @Override
    public void close() {
        final int users = members.length;
        if (users != 0) {
            throw new VerbsException(VerbsException.EBUSY, "CQ still used by " + users + " queue pair(s)");
        }
        synchronized (membersLock) {
            if (closed) {
                return;
            }
            closed = true;
        }
        synchronized (this) {
            if (readiness != null) {
                try {
                    readiness.close();
                } catch (final IOException ignored) {
                    // closing anyway
                }
            }
        }
        context.released(this);
        arena.close();
    }
}

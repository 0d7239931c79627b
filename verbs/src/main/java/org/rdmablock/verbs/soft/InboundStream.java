package org.rdmablock.verbs.soft;

import java.io.IOException;
import java.nio.channels.SelectionKey;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.rdmablock.verbs.DisconnectReason;

/**
 * Who reads a {@link SoftConnectedQueuePair}'s socket, and when: the receive ownership of the incoming stream. It
 * owns the {@link FpduReader} (whose handler is the QP's {@link RdmapReceiver}), the hand-off between the I/O
 * agent and threads that poll the QP's completion queues, and the pause of the stream while a SEND waits for a
 * receive (RNR) and its resumption.
 *
 * <p><b>Threads.</b> The QP's I/O agent reads when the socket is readable ({@link #onReadable}) and on its timers;
 * a thread polling one of the QP's completion queues reads through {@link #progress} (see
 * {@link SoftCompletionQueue#POLL_PROGRESS}). They take turns through {@link #rxOwner}: everything the reader calls
 * runs on the thread that holds it. Resuming a paused stream always runs on the agent (a thread posting a receive
 * hands it over).
 */
final class InboundStream {
    /**
     * While an application thread spins on this QP's completion queues, it reads the stream itself (see
     * {@link SoftCompletionQueue#POLL_PROGRESS}); waking the agent for every message as well would only steal its
     * core. So the agent stops watching for input and looks again every {@code pollHandOffNanos} (1 ms by default,
     * the device's {@link SoftDevice#pollHandOffNanos()}): when the
     * spinning has stopped it watches the socket again (at most that long later). A poller that goes to sleep on
     * the CQ's completion channel ends the hand-off at once ({@link #pollerSleeping}); else its wake-up would wait
     * for this timer (it did: 1 ms per I/O for initiators and targets waiting on events).
     */
    static final long POLL_HAND_OFF_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long POLLING_WINDOW_NANOS = TimeUnit.MICROSECONDS.toNanos(50);

    private final SoftConnectedQueuePair qp;
    /** See {@link #POLL_HAND_OFF_NANOS}: the device's value (a test lengthens it to see that nothing waits for it). */
    private final long pollHandOffNanos;
    /**
     * Parses the stream. Set last by {@link SoftConnectedQueuePair#attach} (volatile, through {@link #connect}): a
     * polling thread that finds it set finds the channel, the agent and the state RTS set too ({@link #progress} may
     * run on a CQ's poller while the connection is being attached).
     */
    volatile FpduReader reader;
    /** Receive ownership: the I/O agent and polling threads ({@link #progress}) take turns reading the stream. */
    final AtomicBoolean rxOwner = new AtomicBoolean();
    /** The thread holding {@link #rxOwner}, while one does: a QP entering ERR from inside its own read sees it is. */
    private volatile Thread rxHolder;
    /**
     * When the agent next looks whether the CQs are still polled, or whether a poller that held the stream has let
     * go ({@link #yieldToHolder}); Long.MAX_VALUE while it watches the socket. Written by the agent, and by a poller
     * going to sleep ({@link #pollerSleeping}: due now); volatile, as both sides write it and then read the other's
     * state (the CQ's poll clock, or {@link #rxOwner}), so one of them sees the other.
     */
    volatile long handOffDeadline = Long.MAX_VALUE;
    /** Reads that returned bytes; the liveness sweep compares it with its last look (no clock read per read). */
    long readsWithBytes;

    InboundStream(final SoftConnectedQueuePair qp) {
        this.qp = qp;
        this.pollHandOffNanos = qp.device.pollHandOffNanos();
    }

    /** The connection being attached is whole and in RTS: a reader for its stream, with the MPA CRC negotiated or not. */
    void connect(final boolean crc) {
        this.reader = new FpduReader(qp.receiver, crc, Math.max(qp.maxRecvSge(), qp.caps.maxSendSge()));
    }

    /** Agent: the socket is readable. Reads, unless a thread spinning on the CQs does (then hands off to it). */
    int onReadable(final SelectionKey readyKey) {
        if (pollerActive(System.nanoTime()) && qp.teardown.lingerDeadline == Long.MAX_VALUE) {
            handOffToPoller(readyKey);
            return 0;
        }
        return readable(false);
    }

    private boolean pollerActive(final long now) {
        return SoftCompletionQueue.POLL_PROGRESS && (qp.recvCq.spunOnWithin(now, POLLING_WINDOW_NANOS) || qp.sendCq.spunOnWithin(now, POLLING_WINDOW_NANOS));
    }

    private void handOffToPoller(final SelectionKey readyKey) {
        stopWatching(readyKey);
        recheckPoller();
    }

    /** Agent: stops watching the socket for input until {@link #handOffDeadline}, now set {@link #pollHandOffNanos} ahead. */
    private void stopWatching(final SelectionKey key) {
        key.interestOpsAnd(~SelectionKey.OP_READ);
        handOffDeadline = System.nanoTime() + pollHandOffNanos;
        qp.agent.armTimer(qp);
    }

    /**
     * Agent, after setting a later {@link #handOffDeadline}: if the poller went to sleep meanwhile, its
     * {@link #pollerSleeping} may have run before that write and been overwritten, so the hand-off ends now
     * (on this duty cycle's timers).
     */
    private void recheckPoller() {
        if (!pollerActive(System.nanoTime())) {
            handOffDeadline = System.nanoTime();
        }
    }

    /**
     * A thread that polled the QP's CQs has armed one to sleep on its completion channel: if the agent left the
     * reading to it, the agent takes it back now (its next duty cycle), not when the hand-off timer runs out.
     * Called after the CQ's poll clock says "not spinning" ({@link SoftCompletionQueue#requestNotify}).
     */
    void pollerSleeping() {
        // a CAS, not a store: had the agent meanwhile ended the hand-off (MAX_VALUE, and possibly dropped the QP from
        // its timers), a store would leave a deadline nobody looks at; had it set a later one (a new hand-off, or a
        // step back from a stream held by a poller: yieldToHolder), the loop ends that one too
        long deadline;
        while ((deadline = handOffDeadline) != Long.MAX_VALUE) {
            if (HAND_OFF_DEADLINE.compareAndSet(this, deadline, System.nanoTime())) {
                final IoAgent agent = qp.agent;
                if (agent != null) {
                    agent.wakeup();
                }
                return;
            }
        }
    }

    private static final java.lang.invoke.VarHandle HAND_OFF_DEADLINE;

    static {
        try {
            HAND_OFF_DEADLINE = java.lang.invoke.MethodHandles.lookup().findVarHandle(InboundStream.class, "handOffDeadline", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Agent timer: still polled? look again later; else watch the socket again and read what waits. */
    int checkHandOff(final long now) {
        if (now - handOffDeadline < 0) {
            return 0;
        }
        if (qp.teardown.closed) {
            handOffDeadline = Long.MAX_VALUE; // nothing to read: a read would only report the closed channel as lost
            return 0;
        }
        if (pollerActive(now)) {
            handOffDeadline = now + pollHandOffNanos;
            recheckPoller();
            return 0;
        }
        handOffDeadline = Long.MAX_VALUE;
        return readable(true);
    }

    /**
     * Agent: reads, when no poller holds the stream.
     *
     * @param watchAgain the hand-off has ended: watch the socket for input again, unless the stream is paused for a
     *                   receive (decided while holding the stream: a poller's read may pause it meanwhile, and a
     *                   paused stream's socket stays readable, which would wake the agent again and again)
     */
    private int readable(final boolean watchAgain) {
        if (!hold()) {
            return yieldToHolder();
        }
        try {
            final SelectionKey key = qp.key;
            if (watchAgain && key != null && key.isValid() && !reader.isPaused()) {
                key.interestOpsOr(SelectionKey.OP_READ);
            }
            if (qp.teardown.lingerDeadline != Long.MAX_VALUE || reader.hasFailed()) {
                return qp.teardown.drainLinger();
            }
            return read();
        } finally {
            letGo();
        }
    }

    /**
     * Agent: a polling thread holds the stream ({@link #progress}) although it does not count as spinning (its
     * polls come further apart than {@link SoftCompletionQueue#SPIN_POLL_INTERVAL_NANOS}, as when each brings a
     * large transfer). The socket stays readable while that thread reads, and select is level-triggered, so the
     * agent would come back to it at once, again and again: some 100 000 futile selects a second on each side of a
     * 1 MiB transfer, a core's third spent in epoll on a machine of two. So the agent stops watching for input as
     * in a hand-off: it looks again when the hand-off time is up, at once when the holder goes to sleep, and on its
     * next duty cycle when the holder let go before the deadline was written. A holder about to sleep has armed its CQ,
     * and its poll calls {@link #pollerSleeping} after it lets go (SoftCompletionQueue.poll): either that call sees
     * the deadline written here, or the check below sees the release. A holder that polls on reads the stream at
     * its next empty poll; one that stops without sleeping leaves it to the agent's timer.
     *
     * @return 1 when the holder let go meanwhile (work to come at once: from a timer, the agent must not block),
     *     else 0
     */
    private int yieldToHolder() {
        final SelectionKey key = qp.key;
        if (key == null || !key.isValid() || qp.teardown.lingerDeadline != Long.MAX_VALUE) {
            return 0; // lingering: the agent drains alone (pollers keep out), and its timer is the linger's
        }
        stopWatching(key);
        if (!rxOwner.get()) {
            handOffDeadline = System.nanoTime();
            return 1;
        }
        return 0;
    }

    private int read() {
        try {
            final int n = reader.onReadable(qp.channel);
            if (n < 0) {
                qp.teardown.connectionLost("peer closed the connection");
            } else if (n > 0) {
                readsWithBytes++; // a plain counter: the sweep only needs to see that it moved
            }
            return Math.max(0, n);
        } catch (final IOException e) {
            qp.teardown.endCause = DisconnectReason.CONNECTION_LOST; // a reset, not the peer's orderly close
            qp.teardown.connectionLost(e.getMessage());
            return 1;
        }
    }

    /** A thread polling the QP's CQ found nothing: it reads the stream itself, unless another thread does. */
    void progress() {
        // the reader first: the QP is on its CQs while its constructor runs, so a poll may come here before the
        // teardown exists; a reader, set once the QP is connected, makes it visible (the read below follows it)
        if (reader == null) {
            return;
        }
        final ConnectionTeardown teardown = qp.teardown;
        if (teardown.closed || teardown.lingerDeadline != Long.MAX_VALUE || !hold()) {
            return;
        }
        try {
            if (!reader.isPaused() && !reader.hasFailed() && !teardown.closed) {
                read();
            }
        } finally {
            letGo();
        }
    }

    /** Agent thread: goes on with a stream paused for a receive. */
    void resumeReading() {
        while (!hold()) {
            Thread.onSpinWait(); // a poller holds it only to see that the reader is paused
        }
        try {
            if (!reader.isPaused() || qp.teardown.closed) {
                return;
            }
            reader.resume();
            final SelectionKey key = qp.key;
            if (!reader.isPaused() && key != null && key.isValid()) {
                if (handOffDeadline == Long.MAX_VALUE) {
                    key.interestOpsOr(SelectionKey.OP_READ);
                }
                read();
            }
        } finally {
            letGo();
        }
    }

    /**
     * The QP entered ERR: the receive a SEND was being placed into completes flushed, before the queued ones
     * ({@link RdmapReceiver#flushInProgress}). A read that found the stream broken holds the stream and flushes at
     * once; any other thread (the agent's liveness sweep, an application's modify) waits its turn for the stream, as
     * {@link #resumeReading} does, since the receiver's state is the holder's.
     */
    void flushReceiveInProgress() {
        if (rxHolder == Thread.currentThread()) {
            qp.receiver.flushInProgress();
            return;
        }
        while (!hold()) {
            Thread.onSpinWait(); // a read is bounded: the socket does not block
        }
        try {
            qp.receiver.flushInProgress();
        } finally {
            letGo();
        }
    }

    private boolean hold() {
        if (rxOwner.compareAndSet(false, true)) {
            rxHolder = Thread.currentThread();
            return true;
        }
        return false;
    }

    private void letGo() {
        rxHolder = null;
        rxOwner.set(false);
    }
}

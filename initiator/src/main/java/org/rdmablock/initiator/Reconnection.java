package org.rdmablock.initiator;

import org.rdmablock.verbs.CompletionChannel;
import org.rdmablock.verbs.ConnectionId;
import org.rdmablock.verbs.ReceiveWorkRequest;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brings back a channel whose connection was lost, on the agent thread (which has nothing else to do meanwhile:
 * submitters wait in the ring).
 *
 * <p>Every command in flight goes to the retry queue (the old QP is gone, so nothing lands late), and the channel logs
 * in again with back-off until the reconnect timeout. Past it the channel is down: its requests fail at once (as Linux
 * ib_srp's do after {@code fast_io_fail_tmo}) and a login is tried every {@link #DOWN_LOGIN_INTERVAL_NANOS}; the first
 * that succeeds brings it back.
 */
final class Reconnection {
    private static final Logger LOG = LoggerFactory.getLogger(Reconnection.class);
    /** First wait between reconnect attempts; doubled each time up to {@link #MAX_RECONNECT_BACKOFF_NANOS}. */
    static final long RECONNECT_BACKOFF_NANOS = 100_000_000;
    static final long MAX_RECONNECT_BACKOFF_NANOS = 2_000_000_000;
    /**
     * How often a channel that is down (lost, and not back within the reconnect timeout) tries to log in again.
     * Default 5 s: a dead target costs one refused connection per interval.
     */
    static final long DOWN_LOGIN_INTERVAL_NANOS = 5_000_000_000L;

    private final int index;
    private final ChannelState state;
    private final CommandTable table;
    private final RetryQueue retryQueue;
    private final TaskManagement taskManagement;
    private final Credits credits;
    private final SendQueue sendQueue;
    private final CommandEncoder encoder;
    private final Reconnector reconnector;
    private final ReceiveWorkRequest[] receives;
    private final CompletionChannel events;
    private final long reconnectTimeoutNanos;
    /** The channel is down, not failed for good: it tries to log in again every {@link #DOWN_LOGIN_INTERVAL_NANOS}. */
    private boolean down;
    private long downSinceNanos;
    private long nextLoginNanos;
    /** The target's address as the lost connection had it, for the log lines of a down channel. */
    private String downTarget;
    /** Statistics, read by any thread. */
    private volatile long reconnects;

    Reconnection(final ChannelState state, final CommandTable table, final RetryQueue retryQueue,
                 final TaskManagement taskManagement, final Credits credits, final SendQueue sendQueue,
                 final CommandEncoder encoder, final Reconnector reconnector, final ChannelMemory memory,
                 final CompletionChannel events, final FaultPolicy faults) {
        this.index = state.index();
        this.state = state;
        this.table = table;
        this.retryQueue = retryQueue;
        this.taskManagement = taskManagement;
        this.credits = credits;
        this.sendQueue = sendQueue;
        this.encoder = encoder;
        this.reconnector = reconnector;
        this.receives = memory.receiveRequests();
        this.events = events;
        this.reconnectTimeoutNanos = faults.reconnectTimeoutNanos();
    }

    /** Times the channel logged in again. */
    long reconnects() {
        return reconnects;
    }

    /** Whether the channel is down, still running, and its next login attempt is due. */
    boolean loginDue() {
        return down && state.isRunning() && System.nanoTime() - nextLoginNanos >= 0;
    }

    /**
     * The connection was lost because of {@code why}: requeues what was in flight and logs in again until the
     * reconnect timeout. Returns null when the channel is back; else the failure everything it holds is to be answered
     * with (the channel has failed, and is down unless it is closing).
     */
    SrpIoException recover(final String why) {
        final ConnectionId lost = state.connection();
        LOG.warn("channel " + index + " to " + lost.remoteAddress() + " lost: " + why + "; logging in again");
        requeueEverything();
        state.closeConnection();
        final long deadline = System.nanoTime() + reconnectTimeoutNanos;
        long backoff = RECONNECT_BACKOFF_NANOS;
        SrpIoException last = null;
        while (state.isRunning() && System.nanoTime() < deadline) {
            try {
                loggedIn(reconnector.reconnect(index, receives, events));
                LOG.info("channel " + index + " logged in again to " + state.connection().remoteAddress() + "; sending "
                        + retryQueue.size() + " command part(s) again");
                return null;
            } catch (SrpIoException e) {
                last = e;
                LockSupport.parkNanos(Math.min(backoff, Math.max(0, deadline - System.nanoTime())));
                backoff = Math.min(backoff * 2, MAX_RECONNECT_BACKOFF_NANOS);
            }
        }
        final SrpIoException failure = new SrpIoException("channel " + index + " to " + lost.remoteAddress() + " lost: "
                + why + (last != null ? "; no login again within " + seconds(reconnectTimeoutNanos)
                + " (last: " + last.getMessage() + ")" : ""), last);
        state.fail(failure);
        if (state.isRunning()) {
            down = true;
            downTarget = String.valueOf(lost.remoteAddress());
            downSinceNanos = System.nanoTime();
            nextLoginNanos = downSinceNanos + DOWN_LOGIN_INTERVAL_NANOS;
            LOG.warn("channel " + index + " to " + downTarget + " is down: no login again within "
                    + seconds(reconnectTimeoutNanos) + "; its requests fail until one succeeds (tried every "
                    + seconds(DOWN_LOGIN_INTERVAL_NANOS) + ")");
        }
        return failure;
    }

    /** A time for a log line: "30 s", "0.5 s". */
    private static String seconds(final long nanos) {
        return java.math.BigDecimal.valueOf(nanos, 9).stripTrailingZeros().toPlainString() + " s";
    }

    /**
     * A down channel's login attempt (nothing in flight: everything was answered when it went down). Returns 1 when
     * the channel is back, 0 when the target is still away (the next attempt after the interval).
     */
    int loginWhileDown() {
        final ChannelLink link;
        try {
            link = reconnector.reconnect(index, receives, events);
        } catch (SrpIoException e) {
            nextLoginNanos = System.nanoTime() + DOWN_LOGIN_INTERVAL_NANOS;
            LOG.debug("channel " + index + " to " + downTarget + " still down: " + e.getMessage());
            return 0;
        }
        loggedIn(link);
        down = false;
        state.recovered();
        LOG.info("channel " + index + " logged in again to " + state.connection().remoteAddress() + " after "
                + TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - downSinceNanos) + " s down");
        return 1;
    }

    /** Takes a new logged-in connection: the channel's QP, CQ, credits and limits from now on. */
    private void loggedIn(final ChannelLink link) {
        link.connection().onDisconnect(c -> state.connectionLost(c, "the connection was disconnected"));
        state.take(link);
        credits.reset(link.credits());
        encoder.immediateLimit(link.immediateLimit());
        sendQueue.reset();
        reconnects++;
    }

    /** Every command in flight goes to the retry queue, its slot freed (the old QP is gone, so nothing lands late). */
    private void requeueEverything() {
        for (int slot = 0; slot < table.size(); slot++) {
            final OutstandingCommand c = table.get(slot);
            retryQueue.addParts(c);
            if (c.quarantined) {
                table.releaseQuarantined(c);
            } else if (c.inUse()) {
                c.aborting = false;
                table.release(c);
            }
        }
        taskManagement.forget();
    }
}

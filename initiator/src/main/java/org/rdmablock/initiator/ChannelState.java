package org.rdmablock.initiator;

import org.rdmablock.verbs.CompletionQueue;
import org.rdmablock.verbs.ConnectionId;
import org.rdmablock.verbs.QueuePair;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A channel's connection and its health, shared by the channel's parts: written on the agent thread, except
 * {@link #connectionLost} (a provider thread) and {@link #stopRunning} (the closing thread); read on any.
 *
 * <p>Holds the current QP and CQ (replaced by a login again), why the connection was lost, whether the channel failed
 * (its requests fail at once) and whether it still runs. State only: it calls no part.
 */
final class ChannelState {
    private static final Logger LOG = LoggerFactory.getLogger(ChannelState.class);

    private final int index;
    private final AgentWakeup wakeup;
    /** Read by the provider's disconnect handler and by the closing thread. */
    private volatile ConnectionId connection;
    private QueuePair queuePair;
    private CompletionQueue completionQueue;
    /** Why the connection is lost (set by any part, or the provider thread); the agent then logs in again. */
    private volatile String lostBecause;
    /** Set once the channel failed: requests from now on fail at once (until a login again, when it is down). */
    private SrpIoException failed;
    private volatile boolean running = true;

    ChannelState(final int index, final ChannelLink link, final AgentWakeup wakeup) {
        this.index = index;
        this.wakeup = wakeup;
        take(link);
    }

    /** The channel's number in its session, for log lines. */
    int index() {
        return index;
    }

    /** Takes a new logged-in connection: its QP and CQ from now on, and it is not lost. */
    void take(final ChannelLink link) {
        connection = link.connection();
        queuePair = link.queuePair();
        completionQueue = link.completionQueue();
        lostBecause = null;
    }

    ConnectionId connection() {
        return connection;
    }

    QueuePair queuePair() {
        return queuePair;
    }

    CompletionQueue completionQueue() {
        return completionQueue;
    }

    /** Why the connection was lost, or null while it is not. */
    String lostBecause() {
        return lostBecause;
    }

    boolean isLost() {
        return lostBecause != null;
    }

    /** The connection is lost because of {@code why} (this reason replaces an earlier one). */
    void lost(final String why) {
        lostBecause = why;
    }

    /** The connection is lost because of {@code why}, unless it already was for another reason. */
    void lostUnlessAlready(final String why) {
        if (lostBecause == null) {
            lostBecause = why;
        }
    }

    /** Provider thread: {@code ended} ended; the agent logs in again if it is still the channel's connection. */
    void connectionLost(final ConnectionId ended, final String why) {
        if (ended != connection) {
            return; // an earlier connection's late notice
        }
        if (wakeup.events() != null) {
            wakeup.wake();
        }
        lostUnlessAlready(why);
        wakeup.unpark();
    }

    /** The failure requests meet at once while the channel is failed or down, or null. */
    SrpIoException failed() {
        return failed;
    }

    boolean hasFailed() {
        return failed != null;
    }

    void fail(final SrpIoException why) {
        failed = why;
    }

    /** Logged in again after being down: requests go to the target again. */
    void recovered() {
        failed = null;
    }

    boolean isRunning() {
        return running;
    }

    /** Closing thread: the agent stops after its duty cycle; a login again under way gives up after its attempt. */
    void stopRunning() {
        running = false;
    }

    /** Closes the current connection (its QP goes with it) and its CQ (agent thread, or after the agent stopped). */
    void closeConnection() {
        try {
            connection.close();
        } catch (RuntimeException e) {
            LOG.debug("closing the connection of channel " + index, e);
        }
        try {
            completionQueue.close();
        } catch (RuntimeException e) {
            LOG.debug("closing the completion queue of channel " + index, e);
        }
    }

    /** Disconnects the current connection (closing thread, after the agent stopped). */
    void disconnect() {
        try {
            connection.disconnect();
        } catch (RuntimeException e) {
            LOG.debug("disconnecting channel " + index, e);
        }
    }
}

package org.rdmablock.initiator;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.IdleStrategy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A channel's duty cycle and its idling between cycles, run by the agent thread (or, with
 * {@link InitiatorConfig.Waiting#CALLER}, by the application thread driving the channel, one at a time).
 *
 * <p>A cycle takes completions first (they free credits and slots), then a lost connection's recovery or a down
 * channel's login, the command timeouts, then new commands. Without work the agent spins, then yields (commands in
 * flight: their answers come soon), then sleeps: in the completion event channel ({@link InitiatorConfig.Waiting#EVENTS}),
 * else parked until a submission wakes it. A cycle that throws fails the channel: no caller may be left waiting.
 *
 * <p>An Agrona {@link Agent} whose idling is an {@link IdleStrategy} ({@link Idling}), as the soft provider's I/O agent
 * is; its thread runs them in a loop of its own ({@link #run}) rather than on an {@code AgentRunner}, which, like
 * {@code AgentInvoker}, ends the agent silently when its thread is interrupted: a channel ends only when it is stopped
 * (the soft provider's agent left {@code AgentRunner} for that reason: verbs/README.md).
 */
final class ChannelAgent implements Agent {
    private static final Logger LOG = LoggerFactory.getLogger(ChannelAgent.class);
    /** Polls without work before the agent yields its core, then parks when nothing is in flight. */
    private static final int SPINS_BEFORE_YIELD = 64;
    private static final long PARK_NANOS = 1_000_000;
    /** Longest event wait with commands in flight: the command timeout is checked this often. */
    private static final Duration EVENT_WAIT_IN_FLIGHT = Duration.ofNanos(TaskManagement.TIMEOUT_CHECK_NANOS);
    private static final Duration EVENT_WAIT_IDLE = Duration.ofMillis(100);

    private final int index;
    private final ChannelState state;
    private final AgentWakeup wakeup;
    private final CommandTable table;
    private final RetryQueue retryQueue;
    private final SendQueue sendQueue;
    private final RequestScheduler scheduler;
    private final RequestCompleter completer;
    private final ChannelReceiver receiver;
    private final CommandIssuer issuer;
    private final TaskManagement taskManagement;
    private final Reconnection reconnection;
    private final Idling idling = new Idling();

    ChannelAgent(final ChannelState state, final AgentWakeup wakeup, final CommandTable table, final RetryQueue retryQueue,
                 final SendQueue sendQueue, final RequestScheduler scheduler, final RequestCompleter completer,
                 final ChannelReceiver receiver, final CommandIssuer issuer, final TaskManagement taskManagement,
                 final Reconnection reconnection) {
        this.index = state.index();
        this.state = state;
        this.wakeup = wakeup;
        this.table = table;
        this.retryQueue = retryQueue;
        this.sendQueue = sendQueue;
        this.scheduler = scheduler;
        this.completer = completer;
        this.receiver = receiver;
        this.issuer = issuer;
        this.taskManagement = taskManagement;
        this.reconnection = reconnection;
    }

    /** The agent thread's loop: one duty cycle after another until the channel stops; then what is left fails. */
    void run() {
        while (state.isRunning()) {
            idling.idle(dutyCycle());
        }
        onClose();
    }

    @Override
    public String roleName() {
        return "srp-initiator-" + index; // the name of its thread
    }

    /** The channel stopped: what it still holds fails (the agent thread, after its last cycle). */
    @Override
    public void onClose() {
        failEverything(new SrpIoException("channel " + index + " closed"));
    }

    /**
     * The agent's idling between duty cycles without work (agent thread): spins, then sleeps in the event channel, or
     * yields while commands are in flight, or parks until a submission wakes it.
     */
    private final class Idling implements IdleStrategy {
        /** Duty cycles without work since the last that had some. */
        private int idle;

        @Override
        public void idle(final int workCount) {
            if (workCount > 0) {
                idle = 0;
            } else {
                idle();
            }
        }

        @Override
        public void idle() {
            if (++idle < SPINS_BEFORE_YIELD) {
                Thread.onSpinWait();
            } else if (wakeup.events() != null) {
                // sleeps only in the event channel, where a completion or a submission's wakeup ends the sleep (a
                // park here would outlast a submission: its wakeup goes to the event channel, not to the park)
                if (awaitEvent()) {
                    idle = 0;
                }
            } else if (table.inFlight() > 0) {
                Thread.yield(); // commands in flight: their responses come soon
            } else {
                wakeup.parking(); // fences: parked before the ring's look
                if (!scheduler.hasWaiting() && completer.issuing() == null) {
                    LockSupport.parkNanos(ChannelAgent.this, PARK_NANOS);
                }
                wakeup.awake();
            }
        }

        @Override
        public void reset() {
            idle = 0;
        }
    }

    /**
     * Event waiting: arms the CQ, looks once more (a completion or a submission just before arming raises no event or
     * wakeup), then sleeps in the event channel until a completion, a submission or the timeout check. Returns
     * whether it slept.
     */
    private boolean awaitEvent() {
        if (state.hasFailed() || state.isLost()) {
            LockSupport.parkNanos(this, PARK_NANOS); // nothing to arm: the connection is gone
            return false;
        }
        state.completionQueue().requestNotify(false);
        wakeup.parking();
        try {
            if (receiver.poll() + issuer.issue() > 0 || !state.isRunning()) {
                return false;
            }
            wakeup.events().awaitEvent(table.inFlight() > 0 ? EVENT_WAIT_IN_FLIGHT : EVENT_WAIT_IDLE);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } finally {
            wakeup.awake();
        }
    }

    /** One duty cycle, failing the channel (everything answered) when it throws. Returns the work done. */
    int dutyCycle() {
        try {
            return doWork();
        } catch (RuntimeException e) {
            LOG.error("channel " + index + " failed", e);
            final SrpIoException failure = new SrpIoException("channel " + index + " failed: " + e, e);
            state.fail(failure);
            failEverything(failure);
            return 1;
        }
    }

    /** One duty cycle: what a cycle does, in order (the agent thread, or the caller driving the channel). */
    @Override
    public int doWork() {
        int work = receiver.poll();
        final String lost = state.lostBecause();
        if (lost != null && !state.hasFailed()) {
            final SrpIoException failure = reconnection.recover(lost);
            if (failure != null) {
                failEverything(failure);
            }
            work++;
        } else if (reconnection.loginDue()) {
            work += reconnection.loginWhileDown();
        }
        if (!state.hasFailed() && !table.allFree()) {
            work += taskManagement.checkTimeouts(System.nanoTime());
        }
        return work + issuer.issue();
    }

    /**
     * Answers everything the channel holds with {@code why}: the parts waiting to be sent again, every command in
     * flight, the request being issued (the channel is gone, or closing). Requests not yet taken from the ring are not
     * among them: a failed channel answers each as it takes it.
     */
    void failEverything(final SrpIoException why) {
        sendQueue.discardChained();
        while (!retryQueue.isEmpty()) {
            fail(retryQueue.removeHead(), why);
        }
        for (int slot = 0; slot < table.size(); slot++) {
            final OutstandingCommand c = table.get(slot);
            if (c.quarantined) {
                table.releaseQuarantined(c);
                continue;
            }
            if (!c.inUse()) {
                continue;
            }
            for (int i = 0; i < c.partCount; i++) {
                fail(c.parts[i], why);
            }
            table.release(c);
        }
        completer.failIssuing(why);
    }

    private void fail(final IoRequest request, final SrpIoException why) {
        if (request.failure == null) {
            request.failure = why;
        }
        completer.commandEnded(request);
    }
}

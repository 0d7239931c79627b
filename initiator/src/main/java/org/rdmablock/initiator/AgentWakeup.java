package org.rdmablock.initiator;

import org.rdmablock.verbs.CompletionChannel;

import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * Wakes a channel's sleeping agent (any thread: submitters, the provider's disconnect handler, the closing thread) and
 * lets the agent say that it sleeps (agent thread).
 *
 * <p>The agent sleeps in the completion event channel ({@link InitiatorConfig.Waiting#EVENTS}) or parked; it says so
 * in {@link #parked}, so that a submitter pays for a wakeup only then.
 */
final class AgentWakeup {
    /** The event channel of every CQ the channel has, or null when the agent parks instead. */
    private final CompletionChannel events;
    /** The agent thread; null when the callers drive the channel (nobody sleeps). */
    private final Thread agent;
    /** The agent is going to sleep or sleeps (agent thread writes, submitters read). */
    private volatile boolean parked;

    AgentWakeup(final CompletionChannel events, final Thread agent) {
        this.events = events;
        this.agent = agent;
    }

    /** The event channel the channel's CQs are made with, or null. */
    CompletionChannel events() {
        return events;
    }

    /**
     * Agent thread: about to sleep. The caller then looks for work once more (see {@link #wakeIfParked}); the fence
     * here is the other half of the submitters': {@code parked} is visible before the ring is looked at
     * ({@code ParkPublishHandshake}, jcstress).
     */
    void parking() {
        parked = true;
        VarHandle.fullFence();
    }

    /** Agent thread: awake again. */
    void awake() {
        parked = false;
    }

    /** Submitting thread, after publishing: wakes the agent if it sleeps or is about to. */
    void wakeIfParked() {
        // Dekker with the agent's "parked = true, then look at the ring": the ring's release store must be visible
        // before `parked` is read, or both may miss the other and the request waits out the agent's sleep
        VarHandle.fullFence();
        if (parked) {
            wake();
        }
    }

    /** Wakes the agent from its sleep: in the event channel, or parked. Any thread. */
    void wake() {
        if (events != null) {
            events.wakeup();
        } else {
            LockSupport.unpark(agent);
        }
    }

    /** Ends a park of the agent's (also with an event channel: the agent parks while it has no connection to arm). */
    void unpark() {
        LockSupport.unpark(agent);
    }
}

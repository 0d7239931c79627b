package org.rdmablock.target.core;

import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * What other threads hand the intake stage, which takes it on its housekeeping tick: slots back without a completion,
 * channels whose connection ended, PREEMPT AND ABORTs, and the word that the target is stopping. The
 * poller's idle tick comes at once while any of it waits ({@link #hasWork}).
 *
 * <p>Threads: provider threads (disconnects), backend and blocking-call threads
 * (returned slots, PREEMPT AND ABORTs), the closing thread (stop) add; the intake stage alone takes.
 */
final class IntakeInbox {
    /** Slots back without a completion (refused posts, dropped commands' returned backend calls). */
    final ReturnedSlots returned = new ReturnedSlots();
    /** Channels whose connection ended (rdma_cm's disconnect, on a provider thread). */
    final ConcurrentLinkedQueue<Channel> disconnected = new ConcurrentLinkedQueue<>();
    /** PREEMPT AND ABORTs whose preempted commands the intake stage is to abort ({@link TaskAborts}). */
    final ConcurrentLinkedQueue<TaskAborts.Request> aborts = new ConcurrentLinkedQueue<>();
    /** Writes released by a COMPARE AND WRITE wait for events to go out on (set by the intake stage). */
    volatile boolean gatedReady;
    /** From now on the intake stage logs every channel out. */
    volatile boolean shuttingDown;

    /** Whether anything waits that only a tick brings the intake stage to. */
    boolean hasWork() {
        return !returned.isEmpty() || !disconnected.isEmpty() || !aborts.isEmpty() || gatedReady;
    }
}

package org.rdmablock.tools.perf;

import org.rdmablock.verbs.CompletionQueue;
import org.rdmablock.verbs.WcStatus;
import org.rdmablock.verbs.WorkCompletions;

/**
 * How a test thread waits for completions: spin (perftest's way: lowest latency, needs a spare core per
 * spinning thread) or spin and yield (lets the provider's I/O threads run on machines with few cores).
 */
enum Poller {
    BUSY, YIELD;

    /** The default for this machine: yielding unless there are cores to spare for spinning threads. */
    static Poller forThisMachine() {
        return Runtime.getRuntime().availableProcessors() >= 8 ? BUSY : YIELD;
    }

    void pause() {
        Thread.onSpinWait();
        if (this == YIELD) {
            Thread.yield();
        }
    }

    /** How long a test waits for a completion before declaring the run stuck. */
    static final long STALL_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(30);

    /** Polls until at least one completion arrived; fails on an error completion or after {@link #STALL_NANOS}. */
    int await(final CompletionQueue cq, final WorkCompletions wc) {
        int n;
        long deadline = 0;
        while ((n = cq.poll(wc)) == 0) {
            pause();
            deadline = checkStall(deadline, "completion");
        }
        check(wc, n);
        return n;
    }

    /**
     * Call after each unsuccessful look for {@code what}: the first call starts the stall clock (so a wait that
     * succeeds at once reads no clock), a later one throws once {@link #STALL_NANOS} passed. Returns the deadline
     * to pass next time; start with 0.
     */
    static long checkStall(final long deadline, final String what) {
        if (deadline == 0) {
            return System.nanoTime() + STALL_NANOS;
        }
        if (System.nanoTime() - deadline > 0) {
            throw new IllegalStateException("no " + what + " within " + STALL_NANOS / 1_000_000_000 + " s: the run is stuck");
        }
        return deadline;
    }

    /** Fails on the first of {@code n} polled completions that is not a success. */
    static void check(final WorkCompletions wc, final int n) {
        for (int i = 0; i < n; i++) {
            if (wc.status(i) != WcStatus.SUCCESS) {
                throw new IllegalStateException("work request failed: " + wc.toString(i));
            }
        }
    }
}

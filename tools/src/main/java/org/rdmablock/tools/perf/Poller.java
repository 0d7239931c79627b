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
            if (deadline == 0) {
                deadline = System.nanoTime() + STALL_NANOS;
            } else if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("no completion within " + STALL_NANOS / 1_000_000_000 + " s: the run is stuck");
            }
        }
        for (int i = 0; i < n; i++) {
            if (wc.status(i) != WcStatus.SUCCESS) {
                throw new IllegalStateException("work request failed: " + wc.toString(i));
            }
        }
        return n;
    }
}

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

    /** Polls until at least one completion arrived; fails on an error completion. */
    int await(final CompletionQueue cq, final WorkCompletions wc) {
        int n;
        while ((n = cq.poll(wc)) == 0) {
            pause();
        }
        for (int i = 0; i < n; i++) {
            if (wc.status(i) != WcStatus.SUCCESS) {
                throw new IllegalStateException("work request failed: " + wc.toString(i));
            }
        }
        return n;
    }
}

package org.rdmablock.verbs.conformance;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.rdmablock.verbs.Await;
import org.rdmablock.verbs.CompletionQueue;
import org.rdmablock.verbs.WcOpcode;
import org.rdmablock.verbs.WcStatus;
import org.rdmablock.verbs.WorkCompletions;

/** Test helpers to reap completions with a deadline and keep them as values. */
final class Completions {
    /** A completion copied out of the flyweight. */
    record Wc(long wrId, WcStatus status, WcOpcode opcode, int byteLength, boolean hasImmediate, int immediate,
              int flags, int qpNum, int sourceQp, int invalidatedRkey) {
    }

    private Completions() {
    }

    /** Polls until {@code count} completions arrived or {@code timeout} passed; fails on timeout. */
    static List<Wc> await(final CompletionQueue cq, final int count, final Duration timeout) {
        final List<Wc> result = new ArrayList<>();
        final WorkCompletions wc = new WorkCompletions(16);
        Await.atMost(count + " completions", timeout).untilAsserted(() -> {
            final int n = cq.poll(wc, Math.min(16, count - result.size()));
            for (int i = 0; i < n; i++) {
                result.add(copy(wc, i));
            }
            if (result.size() < count) {
                throw new AssertionError("expected " + count + " completions, got " + result);
            }
        });
        return result;
    }

    static Wc awaitOne(final CompletionQueue cq) {
        return await(cq, 1, ConnectedPair.TIMEOUT).getFirst();
    }

    /** Polls for {@code window}; returns whatever arrived (to check that nothing did). */
    static List<Wc> drain(final CompletionQueue cq, final Duration window) throws InterruptedException {
        final List<Wc> result = new ArrayList<>();
        final WorkCompletions wc = new WorkCompletions(16);
        final long deadline = System.nanoTime() + window.toNanos();
        do {
            final int n = cq.poll(wc);
            for (int i = 0; i < n; i++) {
                result.add(copy(wc, i));
            }
            Thread.sleep(1);
        } while (System.nanoTime() < deadline);
        return result;
    }

    static Wc copy(final WorkCompletions wc, final int i) {
        final boolean ok = wc.status(i) == WcStatus.SUCCESS;
        return new Wc(wc.wrId(i), wc.status(i), ok ? wc.opcode(i) : null, wc.byteLength(i), wc.hasImmediate(i),
            wc.hasImmediate(i) ? wc.immediateData(i) : 0, wc.flags(i), wc.qpNum(i), wc.sourceQp(i), wc.invalidatedRkey(i));
    }
}

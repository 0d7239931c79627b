package org.rdmablock.tools.mount;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Eight threads take turns at driving a fake channel that answers one submitted operation per poll, newest first, and
 * only in a poll: never two threads poll at once, and every operation is answered although a waiter's park bound
 * (10 s here) is far longer than the test, so each hand-over must come from the thread that passes the turn (the
 * holder's own answer tends to come first, leaving others waiting).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PollingTurnTest {
    private static final int THREADS = 8;
    private static final int OPERATIONS = 2_000;

    @Test
    void oneThreadPollsAtATimeAndTheTurnIsPassedToAWaiter() throws Exception {
        final ConcurrentLinkedDeque<IoSlot> submitted = new ConcurrentLinkedDeque<>();
        final AtomicInteger inPoll = new AtomicInteger();
        final AtomicInteger overlaps = new AtomicInteger();
        final AtomicLong polls = new AtomicLong();
        final PollingTurn turn = new PollingTurn(() -> {
            if (inPoll.incrementAndGet() != 1) {
                overlaps.incrementAndGet();
            }
            polls.incrementAndGet();
            final IoSlot next = submitted.pollLast(); // newest first: the holder's own answer comes before others'
            if (next != null) {
                IoSlot.DONE.completed(next, 4096, null);
            }
            inPoll.decrementAndGet();
            return next == null ? 0 : 1;
        }, TimeUnit.SECONDS.toNanos(10));
        final IoSlot[] slots = new IoSlot[THREADS];
        for (int i = 0; i < THREADS; i++) {
            slots[i] = new IoSlot(Arena.ofAuto().allocate(4096), turn);
        }
        turn.slots(slots);
        final AtomicInteger answered = new AtomicInteger();
        final AtomicInteger unanswered = new AtomicInteger();
        final List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            final IoSlot slot = slots[t];
            threads.add(Thread.ofPlatform().name("fuse-" + t).start(() -> {
                for (int i = 0; i < OPERATIONS; i++) {
                    slot.begin();
                    submitted.add(slot);
                    if (slot.await(TimeUnit.SECONDS.toNanos(5)) && slot.bytes() == 4096) {
                        answered.incrementAndGet();
                    } else {
                        unanswered.incrementAndGet();
                        return;
                    }
                }
            }));
        }
        for (final Thread t : threads) {
            t.join();
        }
        assertEquals(0, unanswered.get(), "operations left unanswered (a turn not passed on)");
        assertEquals(THREADS * OPERATIONS, answered.get());
        assertEquals(0, overlaps.get(), "polls that overlapped another thread's");
        assertTrue(polls.get() >= THREADS * OPERATIONS, "polls: " + polls.get());
        assertEquals(null, turn.holder(), "the turn is free once nobody waits");
    }
}

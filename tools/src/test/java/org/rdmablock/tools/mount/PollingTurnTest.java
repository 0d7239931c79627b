package org.rdmablock.tools.mount;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.awaitility.core.ThrowingRunnable;
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
    /** How long a thread may take to get where a test waits for it (a loaded 2-CPU machine). */
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final Duration POLL = Duration.ofMillis(1);

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

    /** CPU a thread may take over {@link #INTERRUPTED_WAIT} while it waits; a spinning one takes about all of it. */
    private static final long WAIT_CPU_BOUND_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    /** How long the interrupted waiter is watched. */
    private static final Duration INTERRUPTED_WAIT = Duration.ofMillis(500);

    /**
     * A FUSE thread interrupted while it waits for its answer (another thread holds the turn) keeps waiting, parked,
     * not spinning: a park returns at once while the interrupt flag is set, so the flag is cleared for the wait and set
     * again when the answer has come.
     */
    @Test
    void anInterruptedWaiterParksUntilItsAnswerAndKeepsItsInterrupt() throws Exception {
        final ConcurrentLinkedDeque<IoSlot> submitted = new ConcurrentLinkedDeque<>();
        final CountDownLatch answer = new CountDownLatch(1);
        final PollingTurn turn = new PollingTurn(() -> {
            try {
                answer.await(); // the holder sits in its poll until the test lets the answers come
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            int n = 0;
            for (IoSlot slot; (slot = submitted.poll()) != null; n++) {
                IoSlot.DONE.completed(slot, 4096, null);
            }
            return n;
        }, TimeUnit.SECONDS.toNanos(10));
        final IoSlot holderSlot = new IoSlot(Arena.ofAuto().allocate(4096), turn);
        final IoSlot waiterSlot = new IoSlot(Arena.ofAuto().allocate(4096), turn);
        turn.slots(new IoSlot[] {holderSlot, waiterSlot});
        final AtomicBoolean answered = new AtomicBoolean();
        final AtomicBoolean stillInterrupted = new AtomicBoolean();
        final Thread holder;
        final Thread waiter;
        try {
            holder = startWaiting(holderSlot, submitted, new AtomicBoolean(), new AtomicBoolean());
            await("the first thread takes the turn").atMost(WAIT).pollInterval(POLL).until(() -> turn.holder() == holder);
            waiter = startWaiting(waiterSlot, submitted, answered, stillInterrupted);
            assertParksWhenInterrupted(waiter, waiterSlot);
        } finally {
            answer.countDown();
        }
        holder.join(10_000);
        waiter.join(10_000);
        assertAnsweredAndStillInterrupted(answered, stillInterrupted);
    }

    /** The same without a polling turn (the mount's default: the channel's own thread answers). */
    @Test
    void anInterruptedWaiterWithoutATurnParksToo() throws Exception {
        final IoSlot slot = new IoSlot(Arena.ofAuto().allocate(4096), null);
        final AtomicBoolean answered = new AtomicBoolean();
        final AtomicBoolean stillInterrupted = new AtomicBoolean();
        final Thread waiter = startWaiting(slot, new ConcurrentLinkedDeque<>(), answered, stillInterrupted);
        try {
            assertParksWhenInterrupted(waiter, slot);
        } finally {
            IoSlot.DONE.completed(slot, 4096, null);
        }
        waiter.join(10_000);
        assertAnsweredAndStillInterrupted(answered, stillInterrupted);
    }

    /** The interrupted waiter got its answer, and kept its interrupt. */
    private static void assertAnsweredAndStillInterrupted(final AtomicBoolean answered, final AtomicBoolean stillInterrupted) {
        assertTrue(answered.get(), "the interrupted waiter's answer came through");
        assertTrue(stillInterrupted.get(), "the waiter's interrupt was kept for its caller");
    }

    private static Thread startWaiting(final IoSlot slot, final ConcurrentLinkedDeque<IoSlot> submitted,
                                       final AtomicBoolean answered, final AtomicBoolean stillInterrupted) {
        final CountDownLatch begun = new CountDownLatch(1);
        final Thread thread = Thread.ofPlatform().name("fuse-waiter").start(() -> {
            slot.begin(); // on the waiting thread: the answer unparks the thread that began the operation
            submitted.add(slot);
            begun.countDown();
            answered.set(slot.await(TimeUnit.SECONDS.toNanos(30)) && slot.bytes() == 4096);
            stillInterrupted.set(Thread.currentThread().isInterrupted());
        });
        try {
            begun.await();
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
        return thread;
    }

    /**
     * Interrupts {@code waiter} once it waits on {@code slot}, and checks that over the next {@link #INTERRUPTED_WAIT}
     * it takes less than {@link #WAIT_CPU_BOUND_NANOS} of CPU (it parked) and is still waiting.
     */
    private static void assertParksWhenInterrupted(final Thread waiter, final IoSlot slot) {
        await("the waiter waits").atMost(WAIT).pollInterval(POLL)
                .until(() -> slot.waiting || waiter.getState() == Thread.State.TIMED_WAITING);
        final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        waiter.interrupt();
        final long before = threads.getThreadCpuTime(waiter.threadId());
        assertTrue(before >= 0, "thread CPU time is measured here");
        final ThrowingRunnable parked = () -> {
            final long now = threads.getThreadCpuTime(waiter.threadId());
            assertTrue(now >= 0, "the interrupted waiter ended before its answer");
            assertTrue(now - before < WAIT_CPU_BOUND_NANOS, "the interrupted waiter took " + (now - before) / 1_000_000
                    + " ms of CPU since its interrupt, more than " + WAIT_CPU_BOUND_NANOS / 1_000_000 + " ms: it spins");
        };
        // CPU time only grows: a breach is final, so it fails at once (failFast) with its figure
        await("the interrupted waiter stays parked").during(INTERRUPTED_WAIT).atMost(INTERRUPTED_WAIT.plus(WAIT))
                .pollInterval(Duration.ofMillis(50)).failFast(parked).untilAsserted(parked);
    }
}

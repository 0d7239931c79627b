package org.rdmablock.tools.mount;

import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntSupplier;

/**
 * With {@code --channel-wait caller}: which FUSE thread drives the initiator's channels. Of the threads waiting for
 * an answer, one at a time holds the turn and polls ({@code SrpInitiator::poll}), running everyone's callbacks; the
 * others park until their own callback unparks them. When the holder's own answer has come it passes the turn to a
 * thread still waiting (a leader/follower hand-over), so that the channels are never left without a driver while
 * anyone waits, and no more than one core spins on them however many FUSE threads there are.
 *
 * <p>The hand-over is a Dekker pair on volatiles: a waiter marks its slot waiting, then looks for a free turn; the
 * holder frees the turn, then looks for waiting slots. Either the waiter sees the free turn, or the holder sees the
 * waiter and unparks it. A park still has a bound ({@link Configuration#turnParkNanos()}), a safety net that costs
 * nothing when unused. An interrupt does not end a wait (see {@link IoSlot#await}).
 */
final class PollingTurn {
    /** Polls that bring nothing before the holder yields the core between polls. */
    private static final int SPINS = 64;

    private final IntSupplier poll;
    private final AtomicReference<Thread> holder = new AtomicReference<>();
    private final long parkNanos;
    /** Every slot a thread may wait on (set once by the slot pool, before any I/O). */
    private IoSlot[] slots = new IoSlot[0];

    PollingTurn(final IntSupplier poll) {
        this(poll, Configuration.turnParkNanos());
    }

    /** {@code parkNanos}: the longest park of a waiter between looks at its answer and the turn. */
    PollingTurn(final IntSupplier poll, final long parkNanos) {
        this.poll = poll;
        this.parkNanos = parkNanos;
    }

    void slots(final IoSlot[] all) {
        slots = all.clone();
    }

    /**
     * Waits until {@code slot} is answered or {@code deadline} ({@code System.nanoTime()}) passes, driving the
     * channels while this thread holds the turn. Returns whether it was answered.
     */
    boolean await(final IoSlot slot, final long deadline) {
        slot.waiting = true;
        boolean interrupted = false;
        try {
            while (!slot.isDone()) {
                final long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                if (holder.get() == null && holder.compareAndSet(null, Thread.currentThread())) {
                    try {
                        drive(slot, deadline);
                    } finally {
                        pass();
                    }
                } else {
                    LockSupport.parkNanos(this, Math.min(left, parkNanos));
                    interrupted |= Thread.interrupted(); // cleared, else every park returns at once
                }
            }
            return true;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            slot.waiting = false;
            if (holder.get() == null) {
                // this thread may have been woken to take the turn and found its answer there (or its deadline
                // passed): the turn goes on to another waiter rather than wait for a park bound
                wakeAWaiter();
            }
        }
    }

    private void drive(final IoSlot slot, final long deadline) {
        int idle = 0;
        while (!slot.isDone() && System.nanoTime() - deadline < 0) {
            if (poll.getAsInt() > 0) {
                idle = 0;
            } else if (++idle > SPINS) {
                Thread.yield();
            } else {
                Thread.onSpinWait();
            }
        }
    }

    /** Frees the turn and wakes one thread that still waits, to take it. */
    private void pass() {
        holder.set(null);
        VarHandle.fullFence(); // the free turn before the waiting flags are read (volatile accesses: belt and braces)
        wakeAWaiter();
    }

    private void wakeAWaiter() {
        for (final IoSlot s : slots) {
            if (s.waiting && !s.isDone() && s.waiter() != Thread.currentThread()) {
                LockSupport.unpark(s.waiter());
                return;
            }
        }
    }

    /** The thread holding the turn now, or null (tests). */
    Thread holder() {
        return holder.get();
    }
}

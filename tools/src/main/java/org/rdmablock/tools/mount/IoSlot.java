package org.rdmablock.tools.mount;

import org.rdmablock.initiator.IoCallback;
import org.rdmablock.initiator.SrpIoException;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.concurrent.locks.LockSupport;

/**
 * One FUSE worker thread's registered buffer and the completion of the one operation it has in flight: the thread
 * copies a request's data into (or out of) {@link #buffer}, submits with {@link #DONE} and this slot as attachment, and
 * parks in {@link #await} until the initiator's channel thread calls back (with {@code Waiting.CALLER} the waiting
 * threads take turns at driving the initiator's channels: {@link PollingTurn}). Nothing is allocated per operation.
 */
final class IoSlot {
    /** The callback of every slot's operations: records the outcome and wakes the waiting thread. */
    static final IoCallback DONE = (attachment, bytes, failure) -> ((IoSlot) attachment).complete(bytes, failure);

    /** The registered memory, for {@code Lun.read/write}. */
    final MemorySegment segment;
    /** The same memory as a buffer, for copies from and to FUSE's buffers (absolute bulk puts allocate nothing). */
    final ByteBuffer buffer;
    private Thread waiter;
    private long bytes;
    private SrpIoException failure;
    /** Written last by the callback, read first by the waiter: publishes {@link #bytes} and {@link #failure}. */
    private volatile boolean done;

    /** With {@code Waiting.CALLER}: the turn at driving the channels this slot's thread takes while it waits, or null. */
    private final PollingTurn turn;
    /** Set while the slot's thread waits for its answer ({@link PollingTurn}'s hand-over looks for such threads). */
    volatile boolean waiting;

    IoSlot(final MemorySegment segment, final PollingTurn turn) {
        this.segment = segment;
        this.turn = turn;
        this.buffer = segment.asByteBuffer();
    }

    /** Whether the operation was answered. */
    boolean isDone() {
        return done;
    }

    /** The thread of the operation in flight. */
    Thread waiter() {
        return waiter;
    }

    /** Bytes of the buffer. */
    int capacity() {
        return buffer.capacity();
    }

    /** Before each submission, on the submitting thread. */
    void begin() {
        waiter = Thread.currentThread();
        failure = null;
        bytes = 0;
        done = false;
    }

    private void complete(final long transferred, final SrpIoException why) {
        bytes = transferred;
        failure = why;
        final Thread thread = waiter;
        done = true;
        LockSupport.unpark(thread);
    }

    /**
     * Waits for the operation's answer, at most {@code timeoutNanos}. An interrupt does not end the wait: the slot's
     * buffer belongs to the channel until the answer comes, so the caller could not reuse it anyway; and a park
     * returns at once while the thread's interrupt flag is set, so keeping the flag would turn the wait into a spin
     * that takes a core until the answer. The flag is cleared while waiting and set again before returning.
     *
     * @return whether it was answered; then {@link #failure()} says how
     */
    boolean await(final long timeoutNanos) {
        final long deadline = System.nanoTime() + timeoutNanos;
        if (turn != null) {
            return turn.await(this, deadline);
        }
        boolean interrupted = false;
        try {
            while (!done) {
                final long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                LockSupport.parkNanos(this, left);
                interrupted |= Thread.interrupted(); // cleared, else every park returns at once
            }
            return true;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** The answered operation's failure, or null. */
    SrpIoException failure() {
        return failure;
    }

    /** Bytes the answered operation moved. */
    long bytes() {
        return bytes;
    }
}

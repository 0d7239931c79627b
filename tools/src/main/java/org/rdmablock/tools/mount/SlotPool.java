package org.rdmablock.tools.mount;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongFunction;

/**
 * The registered buffers of the FUSE worker threads: {@code count} slots of {@link #SLOT_BYTES} carved from one
 * registered region made at mount time. A thread claims a slot at its first I/O and keeps it (libfuse's worker threads
 * live as long as the mount, and it starts at most {@code max_threads} of them, which is {@code count}), so the steady
 * path takes no lock and allocates nothing. Should more threads come than slots, the extra ones take turns on one
 * spare slot under a lock (correct, slower; logged once).
 */
final class SlotPool {
    /**
     * 1 MiB and 8 KiB: a 1 MiB request (the largest the kernel sends, see {@link LunFileSystem#MAX_REQUEST_BYTES}) at an
     * offset that is not block-aligned still fits with its partial first and last blocks.
     */
    static final int SLOT_BYTES = (1 << 20) + 8192;
    private static final Logger LOG = LoggerFactory.getLogger(SlotPool.class);

    private final IoSlot[] slots;
    private final IoSlot spare;
    private final ReentrantLock spareLock = new ReentrantLock();
    private final AtomicInteger claimed = new AtomicInteger();
    private final ThreadLocal<IoSlot> owned = new ThreadLocal<>();

    /** @param register makes registered memory of the given size (the initiator's {@code allocateBuffer}) */
    SlotPool(final int count, final LongFunction<MemorySegment> register) {
        this(count, register, null);
    }

    /**
     * @param register makes registered memory of the given size (the initiator's {@code allocateBuffer})
     * @param driver   polls the initiator's channels ({@code SrpInitiator::poll}, {@code Waiting.CALLER}): the waiting
     *                 threads take turns at it ({@link PollingTurn}); or null
     */
    SlotPool(final int count, final LongFunction<MemorySegment> register, final java.util.function.IntSupplier driver) {
        final MemorySegment region = register.apply((long) (count + 1) * SLOT_BYTES);
        final PollingTurn turn = driver == null ? null : new PollingTurn(driver);
        slots = new IoSlot[count];
        for (int i = 0; i < count; i++) {
            slots[i] = new IoSlot(region.asSlice((long) i * SLOT_BYTES, SLOT_BYTES), turn);
        }
        spare = new IoSlot(region.asSlice((long) count * SLOT_BYTES, SLOT_BYTES), turn);
        if (turn != null) {
            final IoSlot[] all = java.util.Arrays.copyOf(slots, count + 1);
            all[count] = spare;
            turn.slots(all);
        }
    }

    /** The calling thread's slot; give it back with {@link #release} (a no-op unless it is the spare). */
    IoSlot acquire() {
        final IoSlot mine = owned.get();
        if (mine != null) {
            return mine;
        }
        final int index = claimed.getAndIncrement();
        if (index < slots.length) {
            owned.set(slots[index]);
            return slots[index];
        }
        if (index == slots.length) {
            LOG.warn("more FUSE threads than the {} slots: the others share one", slots.length);
        }
        claimed.set(slots.length + 1); // stays past the end, never wraps
        spareLock.lock();
        return spare;
    }

    void release(final IoSlot slot) {
        if (slot == spare) {
            spareLock.unlock();
        }
    }

    /**
     * The calling thread's slot went unanswered past every bound: it is never used again (the target may still write
     * into it), and the thread takes the spare from now on.
     */
    void abandon(final IoSlot slot) {
        if (slot != spare) {
            owned.set(null);
            claimed.set(slots.length + 1);
        }
    }

    /** Slots claimed by a thread so far (at most the pool's size). */
    int claimed() {
        return Math.min(claimed.get(), slots.length);
    }

    int size() {
        return slots.length;
    }
}

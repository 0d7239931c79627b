package org.rdmablock.tools.mount;

import org.rdmablock.initiator.Lun;
import org.rdmablock.initiator.SrpIoException;
import org.rdmablock.verbs.MemoryRegion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.function.Function;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A LUN seen as a file of its capacity ({@code lunN.img}): byte offsets mapped to blocks, reads and writes through the
 * initiator in the caller's {@link IoSlot}. Offset {@code o} is byte {@code o % blockSize} of LBA {@code o / blockSize}.
 * A write that starts or ends inside a block reads that block first and writes it whole (read-modify-write; such writes
 * take a lock, so that two of them on one block do not undo each other; aligned writes, what O_DIRECT programs send,
 * take none). Errors come back as {@code -errno}: EIO (the failure, with its SCSI sense in words, is logged, at most one
 * line per {@link FailureLog#INTERVAL_NANOS} with a count of the others), ENOSPC for a write at or past the end.
 *
 * <p>Where registering is cheap (the {@code soft} provider: {@code SrpInitiator.registrationIsCheap}), a whole-block
 * piece of at least {@link #DIRECT_MIN_BYTES} skips the slot: libfuse's own buffer is registered for that one transfer
 * and the target writes the read's data into it, or reads the write's data from it. One copy of each byte fewer; the
 * registration costs a few small objects per piece, which is why small pieces still copy (they allocate nothing).
 */
final class LunFile {
    /** Linux's ENOSPC (jfuse's {@code Errno} has none): a write at or past the end, as a block device answers. */
    static final int ENOSPC = 28;
    /**
     * How long an operation may stay unanswered before the file gives up on it: past the initiator's own bounds (a
     * 30 s command timeout, then abort, LUN reset and a 60 s reconnect), which answer every request well before.
     */
    static final long ANSWER_TIMEOUT_NANOS = TimeUnit.MINUTES.toNanos(10);
    /** Smallest piece moved straight from or into libfuse's buffer; below it the copy through the slot is cheaper. */
    static final int DIRECT_MIN_BYTES = 64 * 1024;
    private static final Logger LOG = LoggerFactory.getLogger(LunFile.class);

    private final String name;
    private final Lun lun;
    private final int blockSize;
    private final long size;
    private final int eio;
    private final SlotPool slots;
    private final ReentrantLock partialBlocks = new ReentrantLock();
    private final FailureLog failures = new FailureLog(System.nanoTime());
    /** Registers libfuse's buffer for one transfer, or null: every piece is copied through the slot. */
    private final Function<MemorySegment, MemoryRegion> registrar;

    LunFile(final Lun lun, final SlotPool slots, final int eio) {
        this(lun, slots, eio, null);
    }

    /** {@code registrar}: registers a piece of libfuse's buffer for one direct transfer, or null to copy every piece. */
    LunFile(final Lun lun, final SlotPool slots, final int eio, final Function<MemorySegment, MemoryRegion> registrar) {
        this.name = "lun" + lun.number() + ".img";
        this.lun = lun;
        this.blockSize = lun.blockSize();
        this.size = lun.sizeBytes();
        this.eio = eio;
        this.slots = slots;
        this.registrar = registrar;
    }

    /** {@code lunN.img}. */
    String name() {
        return name;
    }

    long size() {
        return size;
    }

    int blockSize() {
        return blockSize;
    }

    Lun lun() {
        return lun;
    }

    /** Reads up to {@code count} bytes at {@code offset} into {@code dst} (from its index 0); returns the bytes read, 0 at the end, or -errno. */
    int read(final ByteBuffer dst, final int count, final long offset) {
        if (offset >= size || count <= 0) {
            return 0;
        }
        return move(false, dst, (int) Math.min(count, size - offset), offset, false);
    }

    /**
     * Writes {@code count} bytes of {@code src} (from its index 0) at {@code offset}; {@code fua}: durable before the
     * answer (files opened O_SYNC or O_DSYNC). Returns the bytes written (fewer at the end of the LUN) or -errno.
     */
    int write(final ByteBuffer src, final int count, final long offset, final boolean fua) {
        if (count <= 0) {
            return 0;
        }
        if (offset >= size) {
            return -ENOSPC;
        }
        return move(true, src, (int) Math.min(count, size - offset), offset, fua);
    }

    /**
     * Moves {@code total} bytes between {@code buffer} and the LUN at {@code offset}, in pieces as large as the slot
     * holds (one piece up to 1 MiB); returns {@code total}, or what moved before a failure, or -errno.
     */
    private int move(final boolean write, final ByteBuffer buffer, final int total, final long offset, final boolean fua) {
        final IoSlot slot = slots.acquire();
        try {
            int done = 0;
            while (done < total) {
                final long position = offset + done;
                final int head = (int) (position % blockSize);
                final int piece = Math.min(total - done, slot.capacity() - head);
                final long lba = position / blockSize;
                final int rc = write ? writePiece(buffer, done, piece, head, lba, fua, slot)
                        : readPiece(buffer, done, piece, head, lba, slot);
                if (rc < 0) {
                    return done > 0 ? done : rc;
                }
                done += piece;
            }
            return total;
        } finally {
            slots.release(slot);
        }
    }

    /** Reads the blocks holding {@code piece} bytes from byte {@code head} of LBA {@code lba} into {@code dst} at {@code at}. */
    private int readPiece(final ByteBuffer dst, final int at, final int piece, final int head, final long lba, final IoSlot slot) {
        if (direct(dst, piece, head)) {
            return transferDirect(false, lba, dst, at, piece, false, slot);
        }
        final int rc = transfer(false, lba, blocks(head + piece), null, 0, false, slot);
        if (rc == 0) {
            dst.put(at, slot.buffer, head, piece);
        }
        return rc;
    }

    /**
     * Writes {@code piece} bytes of {@code src} from {@code at} at byte {@code head} of LBA {@code lba}: a partial first
     * or last block is read first (under the lock, so that two such writes to one block keep both).
     */
    private int writePiece(final ByteBuffer src, final int at, final int piece, final int head, final long lba,
                           final boolean fua, final IoSlot slot) {
        final int blocks = blocks(head + piece);
        final int tail = (head + piece) % blockSize;
        final boolean partial = head != 0 || tail != 0;
        if (!partial && direct(src, piece, head)) {
            return transferDirect(true, lba, src, at, piece, fua, slot);
        }
        if (partial) {
            partialBlocks.lock();
        }
        try {
            int rc = 0;
            if (head != 0) {
                rc = transfer(false, lba, 1, null, 0, false, slot);
            }
            if (rc == 0 && tail != 0 && (blocks > 1 || head == 0)) {
                rc = transfer(false, lba + blocks - 1, 1, null, (long) (blocks - 1) * blockSize, false, slot);
            }
            if (rc == 0) {
                slot.buffer.put(head, src, at, piece);
                rc = transfer(true, lba, blocks, null, 0, fua, slot);
            }
            return rc;
        } finally {
            if (partial) {
                partialBlocks.unlock();
            }
        }
    }

    /** SYNCHRONIZE CACHE (fsync); returns 0 or -errno. */
    int flush() {
        final IoSlot slot = slots.acquire();
        try {
            slot.begin();
            try {
                lun.flush(slot, IoSlot.DONE);
            } catch (RuntimeException e) { // the initiator is closed (unmounting)
                return failed("SYNCHRONIZE CACHE", e);
            }
            return answered("SYNCHRONIZE CACHE", slot);
        } finally {
            slots.release(slot);
        }
    }

    private int blocks(final int bytes) {
        return (bytes + blockSize - 1) / blockSize;
    }

    /**
     * Whether {@code piece} bytes at block offset {@code head} move straight between {@code buffer} and the target. The
     * buffer must start at position 0, as libfuse's do: {@code MemorySegment.ofBuffer} starts at the position, and the
     * pieces are indexed from 0.
     */
    private boolean direct(final ByteBuffer buffer, final int piece, final int head) {
        return registrar != null && head == 0 && piece >= DIRECT_MIN_BYTES && piece % blockSize == 0 && buffer.isDirect()
                && buffer.position() == 0;
    }

    /**
     * One READ or WRITE of the whole blocks in {@code piece} bytes of {@code buffer} from {@code at}, that memory
     * registered for this transfer only (the slot gives the completion); returns 0 or -errno. The registration ends when
     * the answer came or the wait gave up: a late access by the target then fails instead of touching a buffer libfuse
     * has reused.
     */
    private int transferDirect(final boolean write, final long lba, final ByteBuffer buffer, final int at, final int piece,
                               final boolean fua, final IoSlot slot) {
        final MemoryRegion region;
        try {
            region = registrar.apply(MemorySegment.ofBuffer(buffer).asSlice(at, piece));
        } catch (RuntimeException e) { // the initiator is closed (unmounting), or the provider refused
            return failed(operation(write), e);
        }
        try {
            return transfer(write, lba, piece / blockSize, region, 0, fua, slot);
        } finally {
            region.close();
        }
    }

    /**
     * One READ or WRITE of {@code blocks} at {@code lba}: through {@code region} from {@code at} when there is one, else
     * through the slot's buffer at {@code at}; returns 0 or -errno.
     */
    private int transfer(final boolean write, final long lba, final int blocks, final MemoryRegion region, final long at,
                         final boolean fua, final IoSlot slot) {
        slot.begin();
        try {
            if (region != null && write) {
                lun.write(lba, blocks, region, at, fua, slot, IoSlot.DONE);
            } else if (region != null) {
                lun.read(lba, blocks, region, at, slot, IoSlot.DONE);
            } else if (write) {
                lun.write(lba, blocks, slot.segment, at, fua, slot, IoSlot.DONE);
            } else {
                lun.read(lba, blocks, slot.segment, at, slot, IoSlot.DONE);
            }
        } catch (RuntimeException e) { // the initiator is closed (unmounting)
            return failed(operation(write), e);
        }
        return answered(operation(write), slot);
    }

    private static String operation(final boolean write) {
        return write ? "WRITE" : "READ";
    }

    private int answered(final String what, final IoSlot slot) {
        if (!slot.await(ANSWER_TIMEOUT_NANOS)) {
            slots.abandon(slot);
            LOG.error("{}: {} unanswered after {} s; its buffer is set aside", name, what,
                    TimeUnit.NANOSECONDS.toSeconds(ANSWER_TIMEOUT_NANOS));
            return -eio;
        }
        final SrpIoException failure = slot.failure();
        return failure == null ? 0 : failed(what, failure);
    }

    private int failed(final String what, final Exception e) {
        // a SCSI error's message carries its status and sense in words (ScsiStatusException); while the target is
        // away every request fails, so one line per FailureLog interval, with a count of the others
        final long unlogged = failures.admit(System.nanoTime());
        if (unlogged >= 0) {
            LOG.warn("{}: {} failed, EIO: {}{}", name, what, e.getMessage(),
                    unlogged > 0 ? " (and " + unlogged + " more failed operation(s) since the last such line)" : "");
        }
        return -eio;
    }
}

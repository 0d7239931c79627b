package org.rdmablock.tools.soak;

import org.rdmablock.initiator.Lun;
import org.rdmablock.initiator.SrpInitiator;
import org.rdmablock.initiator.SrpIoException;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One soak writer: its own range of blocks, written in turn with rising generations (each block carries its LBA, its
 * generation, and both folded into its last word), and every fourth I/O a read of one of its blocks written before,
 * checked. A block's read must hold a generation at least the last one acknowledged and at most the last one sent
 * (a write that failed may or may not have reached the LUN). Runs on a thread of its own; the counters are read by
 * the soak's controlling thread.
 */
final class SoakWriter implements Runnable {
    private static final int READ_EVERY = 4;

    private final SrpInitiator initiator;
    private final Lun lun;
    private final long firstBlock;
    private final long[] acknowledged;
    private final long[] sent;
    private final int blockSize;
    private final SplittableRandom random;
    private volatile boolean stop;

    final AtomicLong writes = new AtomicLong();
    final AtomicLong reads = new AtomicLong();
    final AtomicLong failed = new AtomicLong();
    final AtomicLong verifyErrors = new AtomicLong();
    /** The first verify error, described; null while there is none. */
    final AtomicReference<String> firstError = new AtomicReference<>();

    SoakWriter(final SrpInitiator initiator, final Lun lun, final long firstBlock, final int blocks, final long seed) {
        this.initiator = initiator;
        this.lun = lun;
        this.firstBlock = firstBlock;
        this.acknowledged = new long[blocks];
        this.sent = new long[blocks];
        this.blockSize = lun.blockSize();
        this.random = new SplittableRandom(seed);
    }

    void stop() {
        stop = true;
    }

    @Override
    public void run() {
        final MemorySegment buffer = initiator.allocateBuffer(blockSize);
        long generation = 0;
        int next = 0;
        for (long io = 0; !stop; io++) {
            if (io % READ_EVERY == READ_EVERY - 1) {
                final int block = random.nextInt(acknowledged.length);
                if (acknowledged[block] > 0) {
                    readAndCheck(block, buffer);
                    continue;
                }
            }
            generation++;
            final long lba = firstBlock + next;
            buffer.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, lba);
            buffer.set(ValueLayout.JAVA_LONG_UNALIGNED, 8, generation);
            buffer.set(ValueLayout.JAVA_LONG_UNALIGNED, blockSize - 8, generation ^ lba);
            sent[next] = generation;
            try {
                lun.writeBlocking(lba, 1, buffer, 0, false);
                acknowledged[next] = generation;
                writes.incrementAndGet();
            } catch (SrpIoException e) {
                failed.incrementAndGet();
            }
            next = (next + 1) % acknowledged.length;
        }
    }

    /** After {@link #stop} and the thread's end: every block written, read back and checked; the count. */
    long verifyAll() {
        final MemorySegment buffer = initiator.allocateBuffer(blockSize);
        long checked = 0;
        for (int block = 0; block < acknowledged.length; block++) {
            if (acknowledged[block] > 0 || sent[block] > 0) {
                readAndCheck(block, buffer);
                checked++;
            }
        }
        return checked;
    }

    private void readAndCheck(final int block, final MemorySegment buffer) {
        final long lba = firstBlock + block;
        try {
            lun.readBlocking(lba, 1, buffer, 0);
        } catch (SrpIoException e) {
            failed.incrementAndGet();
            return;
        }
        reads.incrementAndGet();
        final long seenLba = buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
        final long generation = buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, 8);
        final long folded = buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, blockSize - 8);
        final boolean unwritten = seenLba == 0 && generation == 0 && folded == 0 && acknowledged[block] == 0;
        if (unwritten) {
            return;
        }
        String wrong = null;
        if (seenLba != lba || folded != (generation ^ lba)) {
            wrong = "block " + lba + " is not whole or not its own (LBA " + seenLba + ", generation " + generation + ")";
        } else if (generation < acknowledged[block]) {
            wrong = "block " + lba + " lost acknowledged generation " + acknowledged[block] + " (holds " + generation + ")";
        } else if (generation > sent[block]) {
            wrong = "block " + lba + " holds generation " + generation + ", never sent (last " + sent[block] + ")";
        }
        if (wrong != null) {
            verifyErrors.incrementAndGet();
            firstError.compareAndSet(null, wrong);
        }
    }
}

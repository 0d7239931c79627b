package org.rdmablock.tools.soak;

import org.rdmablock.tools.verify.VerifiedBlock;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One soak writer: its own range of blocks, written in turn with rising generations ({@link VerifiedBlock}s), and
 * every fourth I/O a read of one of its blocks written before, checked: no older than the last generation
 * acknowledged, no newer than the last sent. Runs on a thread of its own, through its {@link SoakBlocks}; the counters
 * are read by the soak's controlling thread.
 */
final class SoakWriter implements Runnable {
    private static final int READ_EVERY = 4;

    private final SoakBlocks blocks;
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

    SoakWriter(final SoakBlocks blocks, final long firstBlock, final int count, final long seed) {
        this.blocks = blocks;
        this.firstBlock = firstBlock;
        this.acknowledged = new long[count];
        this.sent = new long[count];
        this.blockSize = blocks.blockSize();
        this.random = new SplittableRandom(seed);
    }

    String client() {
        return blocks.client();
    }

    void stop() {
        stop = true;
    }

    @Override
    public void run() {
        final MemorySegment buffer = blocks.buffer();
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
            VerifiedBlock.fill(buffer, blockSize, lba, generation);
            sent[next] = generation;
            try {
                blocks.write(lba, buffer);
                acknowledged[next] = generation;
                writes.incrementAndGet();
            } catch (IOException e) {
                failed.incrementAndGet();
            }
            next = (next + 1) % acknowledged.length;
        }
    }

    /** After {@link #stop} and the thread's end: every block written, read back and checked; the count. */
    long verifyAll() {
        final MemorySegment buffer = blocks.buffer();
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
            blocks.read(lba, buffer);
        } catch (IOException e) {
            failed.incrementAndGet();
            return;
        }
        reads.incrementAndGet();
        final String wrong = VerifiedBlock.check(buffer, blockSize, lba, acknowledged[block], sent[block], "acknowledged");
        if (wrong != null) {
            verifyErrors.incrementAndGet();
            firstError.compareAndSet(null, blocks.client() + ": " + wrong);
        }
    }
}

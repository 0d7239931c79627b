package org.rdmablock.tools.powercut;

import org.rdmablock.initiator.Lun;
import org.rdmablock.initiator.SrpInitiator;
import org.rdmablock.initiator.SrpIoException;
import org.rdmablock.tools.verify.VerifiedBlock;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Writes one LUN's blocks in turn with rising generations, each journalled before it is sent and after it is
 * acknowledged; on a write-back LUN every {@link #FUA_EVERY}th write goes with FUA and a SYNCHRONIZE CACHE follows
 * every {@link #SYNC_EVERY}th. Each block is a {@link VerifiedBlock}. Runs on a thread of its own until stopped or
 * until the target stops answering (the machine under it lost its power).
 */
final class PowerCutWriter implements Runnable {
    static final int FUA_EVERY = 7;
    static final int SYNC_EVERY = 16;

    private final SrpInitiator initiator;
    private final Lun lun;
    private final int blocks;
    private final boolean writeBack;
    private final PowerCutJournal journal;
    private final Runnable onFirstAcknowledgement;
    private volatile boolean stop;
    final AtomicLong acknowledged = new AtomicLong();
    volatile String ended;

    PowerCutWriter(final SrpInitiator initiator, final Lun lun, final int blocks, final boolean writeBack,
                   final PowerCutJournal journal, final Runnable onFirstAcknowledgement) {
        this.initiator = initiator;
        this.lun = lun;
        this.blocks = blocks;
        this.writeBack = writeBack;
        this.journal = journal;
        this.onFirstAcknowledgement = onFirstAcknowledgement;
    }

    void stop() {
        stop = true;
    }

    @Override
    public void run() {
        final int blockSize = lun.blockSize();
        final MemorySegment buffer = initiator.allocateBuffer(blockSize);
        long generation = 0;
        try {
            while (!stop) {
                generation++;
                final long lba = (generation - 1) % blocks;
                VerifiedBlock.fill(buffer, blockSize, lba, generation);
                final boolean fua = writeBack && generation % FUA_EVERY == 0;
                journal.sending(lba, generation);
                lun.writeBlocking(lba, 1, buffer, 0, fua);
                journal.acknowledged(lba, generation, fua);
                if (acknowledged.incrementAndGet() == 1) {
                    onFirstAcknowledgement.run();
                }
                if (writeBack && generation % SYNC_EVERY == 0) {
                    lun.flushBlocking();
                    journal.synced();
                }
            }
            ended = "stopped";
        } catch (SrpIoException e) {
            ended = "the target stopped answering: " + e.getMessage();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

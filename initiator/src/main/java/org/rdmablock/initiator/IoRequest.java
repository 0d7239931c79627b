package org.rdmablock.initiator;

import java.lang.foreign.MemorySegment;

/**
 * One block operation as a submitting thread hands it to a channel: a preallocated event of the channel's submission
 * ring, filled in place ({@link #set}), then owned by the channel's thread, which issues it as one or more SRP_CMDs
 * (I/O larger than a command carries is split) and calls back once all of them are answered.
 */
final class IoRequest {
    static final int READ = 1;
    static final int WRITE = 2;
    /** A SCSI command given as a CDB (discovery), one SRP_CMD, data through the bounce buffer. */
    static final int RAW = 3;
    /** Everything written before it made durable: SYNCHRONIZE CACHE, or NVMe Flush. One command, no data. */
    static final int FLUSH = 4;
    /** {@link #blocks} at {@link #lba} deallocated: UNMAP, or NVMe Dataset Management. One command, its range as data. */
    static final int UNMAP = 5;
    static final int NO_DATA = 0;
    static final int DATA_OUT = 1;
    static final int DATA_IN = 2;
    /** Bytes of the CDB field of an SRP_CMD without additional CDB: a RAW command's CDB is copied whole. */
    static final int CDB_LENGTH = 16;

    // set by the submitting thread
    int op;
    long lunField;
    int blockSize;
    long lba;
    long blocks;
    MemorySegment buffer;
    long bufferOffset;
    /** The caller buffer's registration, or {@link RegisteredMemory#NOT_REGISTERED}: data goes through a bounce buffer. */
    int rkey;
    boolean fua;
    /** Bytes one command may carry for this LUN (its block limits, or the initiator's default). */
    int maxTransferBytes;
    IoCallback callback;
    Object attachment;
    final byte[] cdb = new byte[CDB_LENGTH];
    /** {@link #cdb} as a segment, made once: copying it into an IU allocates nothing. */
    final MemorySegment cdbBytes = MemorySegment.ofArray(cdb);
    int cdbLength;
    int rawDirection;
    int rawLength;
    /** Data-out of a command that brings no buffer of its own (an UNMAP parameter list, a deallocate range). */
    final MemorySegment inline = MemorySegment.ofArray(new byte[64]);

    // the channel's thread
    long issuedBlocks;
    int inFlight;
    long bytesDone;
    SrpIoException failure;
    /** Answered and called back: its ring slot may be reused once every earlier one is too. */
    boolean done;
    /** Its ring sequence, once the channel took it up. */
    long sequence;
    /** Taken up by the channel (it may start out of ring order: read priority, merging). */
    boolean started;
    /** Reads that started ahead of it while it waited (read priority), so that a write is passed a bounded number of times. */
    int passedBy;
    /** Times a part of it was sent again (after an abort or a reconnect). */
    int retries;

    void set(final int operation, final long lun, final int blockLength, final long firstBlock, final long blockCount,
             final MemorySegment data, final long dataOffset, final int registration, final boolean forceUnitAccess,
             final int maxTransfer, final Object callerAttachment, final IoCallback whenDone) {
        op = operation;
        lunField = lun;
        blockSize = blockLength;
        lba = firstBlock;
        blocks = blockCount;
        buffer = data;
        bufferOffset = dataOffset;
        rkey = registration;
        fua = forceUnitAccess;
        maxTransferBytes = maxTransfer;
        attachment = callerAttachment;
        callback = whenDone;
        issuedBlocks = 0;
        inFlight = 0;
        bytesDone = 0;
        failure = null;
        done = false;
        started = false;
        passedBy = 0;
        retries = 0;
    }

    /** Whether every command of it has been issued. */
    boolean allIssued() {
        return movesBlocks() ? issuedBlocks >= blocks : issuedBlocks > 0;
    }

    /** Whether it reads or writes blocks through a buffer (split into commands, merged), not one command of its own. */
    boolean movesBlocks() {
        return op == READ || op == WRITE;
    }

    String describe() {
        return switch (op) {
            case READ -> "READ of " + blocks + " blocks at LBA " + lba;
            case WRITE -> "WRITE of " + blocks + " blocks at LBA " + lba;
            case FLUSH -> "FLUSH";
            case UNMAP -> "UNMAP of " + blocks + " blocks at LBA " + lba;
            default -> String.format("command 0x%02x", Byte.toUnsignedInt(cdb[0]));
        };
    }
}

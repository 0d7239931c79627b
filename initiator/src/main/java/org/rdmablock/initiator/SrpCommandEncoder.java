package org.rdmablock.initiator;

import org.rdmablock.protocol.srp.SrpBufferFormat;
import org.rdmablock.protocol.srp.SrpCommand;
import org.rdmablock.protocol.srp.SrpDirectBuffer;
import org.rdmablock.protocol.srp.SrpIndirectBuffer;

/**
 * Builds a command's SRP_CMD in its slot's IU buffer, on the agent thread.
 *
 * <p>The tag, LUN and CDB, and the data as the target is to move it: immediate data inside the IU (small writes), one
 * direct descriptor (the caller's registered buffer, or the slot's bounce buffer, into which a write's data is gathered
 * first), or an indirect descriptor list inside the IU (merged requests in registered buffers, one descriptor each,
 * SRP r16a 5.5.4).
 */
final class SrpCommandEncoder extends CommandEncoder {
    /** Where the target finds immediate data in an SRP_CMD: Linux ib_srp's offset, what the login asks for. */
    static final int IMMEDIATE_DATA_OFFSET = 68;

    /** Largest write carried as immediate data, or 0 when the target did not grant it (a new login may change it). */
    private int immediateLimit;
    private final SrpCommand command = new SrpCommand();
    private final SrpDirectBuffer direct = new SrpDirectBuffer();
    private final SrpIndirectBuffer indirect = new SrpIndirectBuffer();

    SrpCommandEncoder(final ChannelMemory memory, final int immediateLimit) {
        super(memory);
        this.immediateLimit = immediateLimit;
    }

    /** What the login (again) granted: the largest write that goes as immediate data. */
    @Override
    void immediateLimit(final int bytes) {
        immediateLimit = bytes;
    }

    /**
     * Builds the SRP_CMD for the parts in {@code c} ({@code request} is its first) in {@code c}'s IU buffer; sets
     * {@code c.dataIn} and {@code c.bounced}. Returns the IU's length.
     */
    @Override
    int encode(final IoRequest request, final OutstandingCommand c) {
        final long iuOffset = iuOffset(c);
        command.wrap(ius().segment(), iuOffset).reset().setTag(c.tag).setLun(request.lunField);
        final int direction;
        if (request.op == IoRequest.RAW) {
            command.setCdb(request.cdbBytes, 0, IoRequest.CDB_LENGTH);
            direction = request.rawDirection;
        } else if (request.op == IoRequest.FLUSH) {
            ScsiCdb.synchronizeCache10(request.cdb);
            command.setCdb(request.cdbBytes, 0, IoRequest.CDB_LENGTH);
            direction = IoRequest.NO_DATA;
        } else if (request.op == IoRequest.UNMAP) {
            ScsiCdb.unmap(request.cdb, ScsiCdb.UNMAP_ONE_DESCRIPTOR_LENGTH);
            ScsiCdb.unmapParameters(request.inline, request.lba, request.blocks);
            command.setCdb(request.cdbBytes, 0, IoRequest.CDB_LENGTH);
            direction = IoRequest.DATA_OUT;
        } else {
            final boolean write = request.op == IoRequest.WRITE;
            ScsiCdb.readWrite16(ius().segment(), command.cdbOffsetInSegment(), write ? ScsiCdb.WRITE_16 : ScsiCdb.READ_16,
                    request.lba + c.partOffset[0] / request.blockSize, c.length / request.blockSize, request.fua);
            direction = write ? IoRequest.DATA_OUT : IoRequest.DATA_IN;
        }
        c.dataIn = direction == IoRequest.DATA_IN;
        c.bounced = false;
        if (direction == IoRequest.NO_DATA || c.length == 0) {
            return SrpCommand.FIXED_LENGTH;
        }
        final boolean out = direction == IoRequest.DATA_OUT;
        if (out && c.length <= immediateLimit) {
            command.setBufferFormats(SrpBufferFormat.IMMEDIATE, SrpBufferFormat.NONE).setImmediateDataLength(c.length);
            gather(c, ius().segment(), command.immediateDataOffsetInSegment(IMMEDIATE_DATA_OFFSET));
            return IMMEDIATE_DATA_OFFSET + c.length;
        }
        if (request.rkey != RegisteredMemory.NOT_REGISTERED && c.partCount > 1) {
            return indirectList(c, out);
        }
        return directDescriptor(request, c, out);
    }

    /** Merged registered buffers: the descriptor list inside the IU, one descriptor per part. Returns the IU's length. */
    private int indirectList(final OutstandingCommand c, final boolean out) {
        final int listAt;
        if (out) {
            command.setBufferFormats(SrpBufferFormat.INDIRECT, SrpBufferFormat.NONE).setDataOutDescriptorCount(c.partCount);
            listAt = command.dataOutDescriptorOffset();
            command.dataOutIndirect(indirect);
        } else {
            command.setBufferFormats(SrpBufferFormat.NONE, SrpBufferFormat.INDIRECT).setDataInDescriptorCount(c.partCount);
            listAt = command.dataInDescriptorOffset();
            command.dataInIndirect(indirect);
        }
        // the table is the list right behind the header, in this IU
        indirect.setTable(ius().address() + iuOffset(c) + listAt + SrpIndirectBuffer.DESC_LIST_OFFSET, ius().rkey(),
                (long) c.partCount * SrpDirectBuffer.LENGTH, c.length);
        for (int i = 0; i < c.partCount; i++) {
            final IoRequest part = c.parts[i];
            indirect.setDescriptor(i, part.buffer.address() + part.bufferOffset + c.partOffset[i], part.rkey, c.partLength[i]);
        }
        return listAt + SrpIndirectBuffer.length(c.partCount);
    }

    /**
     * One buffer: the caller's registered one, or the slot's bounce buffer (a write's data gathered into it first).
     * Returns the IU's length.
     */
    private int directDescriptor(final IoRequest request, final OutstandingCommand c, final boolean out) {
        final long address = singleBuffer(request, c, out);
        final int rkey = singleBufferKey(request);
        final int descriptorAt;
        if (out) {
            command.setBufferFormats(SrpBufferFormat.DIRECT, SrpBufferFormat.NONE);
            descriptorAt = command.dataOutDescriptorOffset();
            command.dataOutDirect(direct).set(address, rkey, c.length);
        } else {
            command.setBufferFormats(SrpBufferFormat.NONE, SrpBufferFormat.DIRECT);
            descriptorAt = command.dataInDescriptorOffset();
            command.dataInDirect(direct).set(address, rkey, c.length);
        }
        return descriptorAt + SrpDirectBuffer.LENGTH;
    }

    @Override
    int controlDataLength(final IoRequest request) {
        return switch (request.op) {
            case IoRequest.RAW -> request.rawLength;
            case IoRequest.UNMAP -> ScsiCdb.UNMAP_ONE_DESCRIPTOR_LENGTH;
            default -> 0;
        };
    }

    @Override
    boolean carriesSeveralBuffers() {
        return true;
    }
}

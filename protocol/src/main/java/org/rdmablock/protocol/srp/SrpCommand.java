package org.rdmablock.protocol.srp;

import java.lang.foreign.MemorySegment;

/**
 * SRP_CMD, 48 bytes plus additional CDB and buffer descriptors: Linux {@code struct srp_cmd} in
 * {@code include/scsi/srp.h} (T10 SRP r16a 6.8, SRP-2 immediate data).
 *
 * <p>Layout after the fixed part: the additional CDB ({@code add_cdb_len & ~3} bytes, as ib_srpt reads
 * it: the low two bits are reserved), then the data-out descriptor, then the data-in descriptor, each in
 * the format its nibble of {@code buf_fmt} names (high nibble data-out, low nibble data-in). Immediate
 * data (format 3, data-out only) is a 4-byte length descriptor; the data itself starts at the
 * immediate-data offset negotiated at login.
 *
 * <p>Call {@link #validate(long, int)} on a received IU before reading its descriptors or data lengths.
 */
public final class SrpCommand extends SrpInformationUnit<SrpCommand> {
    /** Size of the fixed part. */
    public static final int FIXED_LENGTH = 48;
    /** Solicited notification flags. */
    public static final int SOL_NOT_OFFSET = 1;
    /** Buffer formats: data-out in bits 7:4, data-in in bits 3:0. */
    public static final int BUF_FMT_OFFSET = 5;
    /** Number of data-out direct descriptors carried in an indirect descriptor. */
    public static final int DATA_OUT_DESC_CNT_OFFSET = 6;
    /** Number of data-in direct descriptors carried in an indirect descriptor. */
    public static final int DATA_IN_DESC_CNT_OFFSET = 7;
    /** The logical unit number, 8 bytes (only 4-byte aligned on the wire). */
    public static final int LUN_OFFSET = 20;
    /** Task attribute ({@link #TASK_SIMPLE} etc.). */
    public static final int TASK_ATTR_OFFSET = 29;
    /** Additional CDB length in bytes; bits 1:0 reserved. */
    public static final int ADD_CDB_LEN_OFFSET = 31;
    /** The first 16 CDB bytes. */
    public static final int CDB_OFFSET = 32;
    /** Bytes of CDB in the fixed part. */
    public static final int CDB_LENGTH = 16;
    /** Additional CDB bytes, then descriptors. */
    public static final int ADD_DATA_OFFSET = 48;
    /** Size of the SRP-2 immediate-data descriptor ({@code struct srp_imm_buf}). */
    public static final int IMMEDIATE_DESCRIPTOR_LENGTH = 4;

    /** Task attribute SIMPLE (ib_srpt's {@code SRP_CMD_SIMPLE_Q}). */
    public static final int TASK_SIMPLE = 0;
    /** Task attribute HEAD OF QUEUE. */
    public static final int TASK_HEAD_OF_QUEUE = 1;
    /** Task attribute ORDERED. */
    public static final int TASK_ORDERED = 2;
    /** Task attribute ACA. */
    public static final int TASK_ACA = 4;

    /**
     * Checks that the {@code length} received bytes hold a well-formed SRP_CMD: the additional CDB, both
     * descriptors, every descriptor of an in-IU indirect list and any immediate data lie inside them, the
     * formats are defined, and indirect tables are consistent.
     *
     * @param immediateDataOffset the immediate-data offset the channel negotiated, or 0 if it did not
     */
    public SrpDecodeError validate(long length, int immediateDataOffset) {
        SrpDecodeError error = checkFixed(length, FIXED_LENGTH, SrpOpcode.CMD);
        if (error != SrpDecodeError.NONE) {
            return error;
        }
        long position = ADD_DATA_OFFSET + additionalCdbLength();
        if (position > length) {
            return SrpDecodeError.ADDITIONAL_CDB_PAST_END;
        }
        int out = dataOutFormat();
        int in = dataInFormat();
        if (out > SrpBufferFormat.IMMEDIATE) {
            return SrpDecodeError.BAD_DATA_OUT_FORMAT;
        }
        if (in > SrpBufferFormat.INDIRECT) {
            return SrpDecodeError.BAD_DATA_IN_FORMAT;
        }
        if (out == SrpBufferFormat.IMMEDIATE) {
            if (immediateDataOffset <= 0) {
                return SrpDecodeError.IMMEDIATE_DATA_NOT_NEGOTIATED;
            }
            // ib_srpt: the descriptor must end before the data begins, and the data must be in the IU.
            if (position + IMMEDIATE_DESCRIPTOR_LENGTH > immediateDataOffset
                    || immediateDataOffset > length
                    || immediateDataOffset + u32(position) > length) {
                return SrpDecodeError.IMMEDIATE_DATA_PAST_END;
            }
        } else {
            error = checkDescriptor(out, dataOutDescriptorCount(), position, length);
            if (error != SrpDecodeError.NONE) {
                return error;
            }
        }
        return checkDescriptor(in, dataInDescriptorCount(), position + descriptorLength(out, dataOutDescriptorCount()), length);
    }

    private SrpDecodeError checkDescriptor(int format, int count, long at, long length) {
        if (format == SrpBufferFormat.NONE) {
            return SrpDecodeError.NONE;
        }
        if (at + descriptorLength(format, count) > length) {
            return SrpDecodeError.DESCRIPTOR_PAST_END;
        }
        if (format == SrpBufferFormat.INDIRECT) {
            long tableLength = u32(at + SrpIndirectBuffer.TABLE_DESC_OFFSET + SrpDirectBuffer.LEN_OFFSET);
            if (tableLength % SrpDirectBuffer.LENGTH != 0 || count > tableLength / SrpDirectBuffer.LENGTH) {
                return SrpDecodeError.BAD_INDIRECT_TABLE;
            }
            if (count == tableLength / SrpDirectBuffer.LENGTH) {
                long sum = 0;
                for (int i = 0; i < count; i++) {
                    sum += u32(at + SrpIndirectBuffer.DESC_LIST_OFFSET + (long) i * SrpDirectBuffer.LENGTH + SrpDirectBuffer.LEN_OFFSET);
                }
                if (sum != u32(at + SrpIndirectBuffer.TOTAL_LEN_OFFSET)) {
                    return SrpDecodeError.INDIRECT_LENGTH_MISMATCH;
                }
            }
        }
        return SrpDecodeError.NONE;
    }

    private static int descriptorLength(int format, int count) {
        return switch (format) {
            case SrpBufferFormat.DIRECT -> SrpDirectBuffer.LENGTH;
            case SrpBufferFormat.INDIRECT -> SrpIndirectBuffer.length(count);
            case SrpBufferFormat.IMMEDIATE -> IMMEDIATE_DESCRIPTOR_LENGTH;
            default -> 0;
        };
    }

    /** Zeroes the fixed part and sets the opcode, ready for the setters. */
    public SrpCommand reset() {
        clear(FIXED_LENGTH);
        putU8(OPCODE_OFFSET, SrpOpcode.CMD);
        return this;
    }

    public int solicitedNotification() {
        return u8(SOL_NOT_OFFSET);
    }

    public SrpCommand setSolicitedNotification(int flags) {
        putU8(SOL_NOT_OFFSET, flags);
        return this;
    }

    /** The raw {@code buf_fmt} byte. */
    public int bufferFormat() {
        return u8(BUF_FMT_OFFSET);
    }

    /** Data-out descriptor format ({@link SrpBufferFormat#NONE} .. {@link SrpBufferFormat#IMMEDIATE}). */
    public int dataOutFormat() {
        return bufferFormat() >>> 4;
    }

    /** Data-in descriptor format ({@link SrpBufferFormat#NONE} .. {@link SrpBufferFormat#INDIRECT}). */
    public int dataInFormat() {
        return bufferFormat() & 0x0F;
    }

    public SrpCommand setBufferFormats(int dataOutFormat, int dataInFormat) {
        putU8(BUF_FMT_OFFSET, (dataOutFormat << 4) | (dataInFormat & 0x0F));
        return this;
    }

    public int dataOutDescriptorCount() {
        return u8(DATA_OUT_DESC_CNT_OFFSET);
    }

    public SrpCommand setDataOutDescriptorCount(int count) {
        putU8(DATA_OUT_DESC_CNT_OFFSET, count);
        return this;
    }

    public int dataInDescriptorCount() {
        return u8(DATA_IN_DESC_CNT_OFFSET);
    }

    public SrpCommand setDataInDescriptorCount(int count) {
        putU8(DATA_IN_DESC_CNT_OFFSET, count);
        return this;
    }

    /** The 8 LUN bytes as a big-endian long (see {@code org.rdmablock.protocol.scsi.LunAddress}). */
    public long lun() {
        return s64(LUN_OFFSET);
    }

    public SrpCommand setLun(long lun) {
        put64(LUN_OFFSET, lun);
        return this;
    }

    public int taskAttribute() {
        return u8(TASK_ATTR_OFFSET);
    }

    public SrpCommand setTaskAttribute(int attribute) {
        putU8(TASK_ATTR_OFFSET, attribute);
        return this;
    }

    /** Additional CDB bytes after the first 16 ({@code add_cdb_len & ~3}). */
    public int additionalCdbLength() {
        return u8(ADD_CDB_LEN_OFFSET) & ~3;
    }

    /** The whole CDB length: 16 plus the additional CDB. */
    public int cdbLength() {
        return CDB_LENGTH + additionalCdbLength();
    }

    /** Offset of the CDB's first byte within {@link #segment()} (the CDB is contiguous: 32..48 then 48..). */
    public long cdbOffsetInSegment() {
        return offset + CDB_OFFSET;
    }

    /** One CDB byte. */
    public int cdbByte(int index) {
        return u8(CDB_OFFSET + index);
    }

    /**
     * Writes a CDB: up to 16 bytes go into the fixed part; longer CDBs spill into the additional CDB,
     * whose length is rounded up to a multiple of 4 (what ib_srp does). Unused CDB bytes are zeroed.
     * Wraps the array in a segment: use the segment form on allocation-free paths.
     */
    public SrpCommand setCdb(byte[] cdb) {
        return setCdb(MemorySegment.ofArray(cdb), 0, cdb.length);
    }

    /** As {@link #setCdb(byte[])}, copying {@code length} bytes from {@code src} at {@code srcOffset}. */
    public SrpCommand setCdb(MemorySegment src, long srcOffset, int length) {
        int additional = length > CDB_LENGTH ? (length - CDB_LENGTH + 3) & ~3 : 0;
        if (additional > 252) {
            throw new IllegalArgumentException("a CDB of " + length + " bytes does not fit in SRP_CMD");
        }
        segment.asSlice(offset + CDB_OFFSET, CDB_LENGTH + additional).fill((byte) 0);
        MemorySegment.copy(src, srcOffset, segment, offset + CDB_OFFSET, length);
        putU8(ADD_CDB_LEN_OFFSET, additional);
        return this;
    }

    /** Copies the whole CDB ({@link #cdbLength()} bytes) to {@code dst} at {@code dstOffset}. */
    public void copyCdb(MemorySegment dst, long dstOffset) {
        MemorySegment.copy(segment, offset + CDB_OFFSET, dst, dstOffset, cdbLength());
    }

    /** Offset, from the IU start, of the data-out descriptor. */
    public int dataOutDescriptorOffset() {
        return ADD_DATA_OFFSET + additionalCdbLength();
    }

    /** Offset, from the IU start, of the data-in descriptor (after the data-out one). */
    public int dataInDescriptorOffset() {
        return dataOutDescriptorOffset() + descriptorLength(dataOutFormat(), dataOutDescriptorCount());
    }

    /** Bytes of the IU up to the end of the descriptors (immediate data, if any, is elsewhere). */
    public int descriptorsEnd() {
        return dataInDescriptorOffset() + descriptorLength(dataInFormat(), dataInDescriptorCount());
    }

    /** Total data-out length the descriptor describes (0 with no data-out buffer). */
    public long dataOutLength() {
        return dataLength(dataOutFormat(), dataOutDescriptorOffset());
    }

    /** Total data-in length the descriptor describes (0 with no data-in buffer). */
    public long dataInLength() {
        return dataLength(dataInFormat(), dataInDescriptorOffset());
    }

    private long dataLength(int format, int at) {
        return switch (format) {
            case SrpBufferFormat.DIRECT -> u32(at + SrpDirectBuffer.LEN_OFFSET);
            case SrpBufferFormat.INDIRECT -> u32(at + SrpIndirectBuffer.TOTAL_LEN_OFFSET);
            case SrpBufferFormat.IMMEDIATE -> u32(at);
            default -> 0;
        };
    }

    /** Whether the data-out indirect table has descriptors that are not inside the IU. */
    public boolean dataOutTableIsExternal() {
        return dataOutFormat() == SrpBufferFormat.INDIRECT && tableCount(dataOutDescriptorOffset()) > dataOutDescriptorCount();
    }

    /** Whether the data-in indirect table has descriptors that are not inside the IU. */
    public boolean dataInTableIsExternal() {
        return dataInFormat() == SrpBufferFormat.INDIRECT && tableCount(dataInDescriptorOffset()) > dataInDescriptorCount();
    }

    private long tableCount(int at) {
        return u32(at + SrpIndirectBuffer.TABLE_DESC_OFFSET + SrpDirectBuffer.LEN_OFFSET) / SrpDirectBuffer.LENGTH;
    }

    /** Points {@code flyweight} at this command's data-out descriptor (format DIRECT). */
    public SrpDirectBuffer dataOutDirect(SrpDirectBuffer flyweight) {
        return flyweight.wrap(segment, offset + dataOutDescriptorOffset());
    }

    /** Points {@code flyweight} at this command's data-in descriptor (format DIRECT). */
    public SrpDirectBuffer dataInDirect(SrpDirectBuffer flyweight) {
        return flyweight.wrap(segment, offset + dataInDescriptorOffset());
    }

    /** Points {@code flyweight} at this command's data-out descriptor (format INDIRECT). */
    public SrpIndirectBuffer dataOutIndirect(SrpIndirectBuffer flyweight) {
        return flyweight.wrap(segment, offset + dataOutDescriptorOffset());
    }

    /** Points {@code flyweight} at this command's data-in descriptor (format INDIRECT). */
    public SrpIndirectBuffer dataInIndirect(SrpIndirectBuffer flyweight) {
        return flyweight.wrap(segment, offset + dataInDescriptorOffset());
    }

    /** Writes the SRP-2 immediate-data descriptor (data-out format must be IMMEDIATE). */
    public SrpCommand setImmediateDataLength(long length) {
        put32(dataOutDescriptorOffset(), length);
        return this;
    }

    /**
     * Where the immediate data starts within {@link #segment()}, given the channel's negotiated offset;
     * it is {@link #dataOutLength()} bytes long.
     */
    public long immediateDataOffsetInSegment(int immediateDataOffset) {
        return offset + immediateDataOffset;
    }
}

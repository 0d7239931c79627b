package org.rdmablock.target.srp;

import org.rdmablock.protocol.srp.SrpBufferFormat;
import org.rdmablock.protocol.srp.SrpCommand;
import org.rdmablock.protocol.srp.SrpDirectBuffer;
import org.rdmablock.protocol.srp.SrpInformationUnit;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The SRP_CMD IUs of the benchmarks: READ(16) and WRITE(16) of whole blocks with one direct descriptor, WRITE(16)
 * with immediate data, or TEST UNIT READY, written once into an IU buffer and then re-aimed per command by patching tag and LBA in
 * place ({@link #aim}), which allocates nothing.
 */
final class CommandIus {
    /** How a command moves its data. */
    enum Kind {
        /** READ(16): data-in by the target's RDMA WRITE. */
        READ(0x88),
        /** WRITE(16): data-out by the target's RDMA READ. */
        WRITE(0x8A),
        /** WRITE(16): data-out inside the IU (SRP-2 immediate data). */
        WRITE_IMMEDIATE(0x8A),
        /** TEST UNIT READY: no data, a SEND each way. */
        TEST_UNIT_READY(0x00);

        final int opcode;

        Kind(final int opcode) {
            this.opcode = opcode;
        }
    }

    private static final ValueLayout.OfLong BE_LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt BE_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong TAG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.nativeOrder());
    /** Where READ(16)/WRITE(16) keep the LBA (8 bytes) and the transfer length in blocks (4 bytes). */
    private static final int LBA_AT = SrpCommand.CDB_OFFSET + 2;
    private static final int BLOCKS_AT = SrpCommand.CDB_OFFSET + 10;

    private CommandIus() {
    }

    /**
     * Writes an SRP_CMD of {@code kind} for {@code bytes} at {@code at}: data by a direct descriptor naming
     * {@code address}/{@code rkey}, or immediate data at {@code immediateOffset}. Returns the IU's length.
     */
    static int write(final MemorySegment iu, final long at, final Kind kind, final int bytes, final int blockSize,
                     final long address, final int rkey, final int immediateOffset) {
        final SrpCommand cmd = new SrpCommand().wrap(iu, at).reset();
        cmd.setCdb(new byte[16]);
        iu.set(ValueLayout.JAVA_BYTE, at + SrpCommand.CDB_OFFSET, (byte) kind.opcode);
        iu.set(BE_INT, at + BLOCKS_AT, bytes / blockSize);
        final SrpDirectBuffer descriptor = new SrpDirectBuffer();
        return switch (kind) {
            case READ -> {
                cmd.setBufferFormats(SrpBufferFormat.NONE, SrpBufferFormat.DIRECT);
                descriptor.wrap(iu, at + cmd.dataInDescriptorOffset()).set(address, rkey, bytes);
                yield cmd.descriptorsEnd();
            }
            case WRITE -> {
                cmd.setBufferFormats(SrpBufferFormat.DIRECT, SrpBufferFormat.NONE);
                descriptor.wrap(iu, at + cmd.dataOutDescriptorOffset()).set(address, rkey, bytes);
                yield cmd.descriptorsEnd();
            }
            case WRITE_IMMEDIATE -> {
                cmd.setBufferFormats(SrpBufferFormat.IMMEDIATE, SrpBufferFormat.NONE).setImmediateDataLength(bytes);
                yield immediateOffset + bytes;
            }
            case TEST_UNIT_READY -> SrpCommand.FIXED_LENGTH;
        };
    }

    /** Sets the tag and the LBA of the IU at {@code at} (for TEST UNIT READY, pass LBA 0: its CDB has no LBA). */
    static void aim(final MemorySegment iu, final long at, final long tag, final long lba) {
        iu.set(TAG, at + SrpInformationUnit.TAG_OFFSET, tag);
        iu.set(BE_LONG, at + LBA_AT, lba);
    }

    /** The tag of the IU (or response) at {@code at}. */
    static long tag(final MemorySegment iu, final long at) {
        return iu.get(TAG, at + SrpInformationUnit.TAG_OFFSET);
    }
}

package org.rdmablock.target.srp;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.rdmablock.protocol.scsi.InMemoryBackend;
import org.rdmablock.protocol.scsi.LogicalUnit;
import org.rdmablock.protocol.scsi.LogicalUnitConfig;
import org.rdmablock.protocol.scsi.LogicalUnitTable;
import org.rdmablock.protocol.scsi.ScsiStatus;
import org.rdmablock.protocol.srp.SrpBufferFormat;
import org.rdmablock.protocol.srp.SrpCommand;
import org.rdmablock.protocol.srp.SrpDirectBuffer;
import org.rdmablock.protocol.srp.SrpIndirectBuffer;
import org.rdmablock.target.core.CommandSlot;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Indirect descriptor tables that do not fit in the IU (Linux ib_srp's "external" tables, allow_ext_sg): the target
 * fetches the table by RDMA READ first, then moves the data through every descriptor of it.
 */
class ExternalDescriptorTableTest {
    /** Where the descriptor table lies in the initiator's data buffer (scattered data buffers lie below it). */
    static final long TABLE_AT = 900_000;
    static final int PIECES = 4;
    static final int PIECE = 4096;
    SrpTarget target;

    @BeforeEach
    void start() {
        final LogicalUnitTable units = new LogicalUnitTable();
        units.add(new LogicalUnit(0, LogicalUnitConfig.builder().serialNumber("ext").blockSize(512).build(),
                new InMemoryBackend(16L << 20)));
        target = SrpTarget.start(SrpTargetTest.config(0), initiator -> units);
    }

    @AfterEach
    void stop() {
        target.close();
    }

    /** Sends a READ(16)/WRITE(16) whose data descriptors are all in a table in initiator memory, none in the IU. */
    private static TestInitiator.Response externalCommand(final TestInitiator ini, final byte[] cdb, final boolean dataOut,
                                                          final long[] pieces) {
        return externalCommand(ini, 42, cdb, dataOut, pieces, PIECE, (long) pieces.length * PIECE);
    }

    /** The same with the total data length the IU claims, which should be what the table's entries add up to. */
    private static TestInitiator.Response externalCommand(final TestInitiator ini, final long tag, final byte[] cdb,
                                                          final boolean dataOut, final long[] pieces, final int pieceLength,
                                                          final long total) {
        final MemorySegment data = ini.buffer();
        for (int i = 0; i < pieces.length; i++) {
            new SrpDirectBuffer().wrap(data, TABLE_AT + (long) i * SrpDirectBuffer.LENGTH)
                    .set(ini.data.address() + pieces[i], ini.data.rkey(), pieceLength);
        }
        final MemorySegment iu = ini.iuBuffer(1);
        final SrpCommand cmd = new SrpCommand().wrap(iu, 0).reset();
        cmd.setTag(tag).setLun(0).setCdb(cdb);
        final int offset;
        if (dataOut) {
            cmd.setBufferFormats(SrpBufferFormat.INDIRECT, SrpBufferFormat.NONE).setDataOutDescriptorCount(0);
            offset = cmd.dataOutDescriptorOffset();
        } else {
            cmd.setBufferFormats(SrpBufferFormat.NONE, SrpBufferFormat.INDIRECT).setDataInDescriptorCount(0);
            offset = cmd.dataInDescriptorOffset();
        }
        new SrpIndirectBuffer().wrap(iu, offset).setTable(ini.data.address() + TABLE_AT, ini.data.rkey(),
                (long) pieces.length * SrpDirectBuffer.LENGTH, total);
        assertEquals(true, dataOut ? cmd.dataOutTableIsExternal() : cmd.dataInTableIsExternal(), "the table is outside the IU");
        ini.sendRaw(1, offset + SrpIndirectBuffer.HEADER_LENGTH);
        final TestInitiator.Response r = ini.awaitResponse();
        assertEquals(tag, r.tag());
        return r;
    }

    @Test
    void writesAndReadsThroughATableFetchedFromTheInitiator() {
        try (TestInitiator ini = TestInitiator.login(target.localAddress(), SrpTargetTest.ID_EXT, SrpTargetTest.IOC_GUID, 5, 1 << 20)) {
            final long[] writePieces = {0, 3 * PIECE, 10 * PIECE, 7 * PIECE};
            final byte[] expected = new byte[PIECES * PIECE];
            for (int i = 0; i < PIECES; i++) {
                final byte value = (byte) (0x41 + i);
                ini.buffer().asSlice(writePieces[i], PIECE).fill(value);
                java.util.Arrays.fill(expected, i * PIECE, (i + 1) * PIECE, value);
            }
            assertEquals(ScsiStatus.GOOD, externalCommand(ini, TestInitiator.write16(64, PIECES * PIECE / 512), true, writePieces).status());

            final long[] readPieces = {20 * PIECE, 30 * PIECE, 25 * PIECE, 40 * PIECE};
            ini.buffer().asSlice(0, TABLE_AT).fill((byte) 0);
            assertEquals(ScsiStatus.GOOD, externalCommand(ini, TestInitiator.read16(64, PIECES * PIECE / 512), false, readPieces).status());
            final byte[] got = new byte[PIECES * PIECE];
            for (int i = 0; i < PIECES; i++) {
                MemorySegment.copy(ini.buffer(), ValueLayout.JAVA_BYTE, readPieces[i], got, i * PIECE, PIECE);
            }
            assertArrayEquals(expected, got, "each piece went to (and came from) the buffer its table entry names");
        }
    }

    /**
     * A table of {@link CommandSlot#MAX_DESCRIPTORS} entries, far more than one round of RDMA operations
     * ({@link CommandSlot#TRANSFERS_PER_ROUND}) or the read depth: the target moves the data round by round, each
     * 512-byte piece to and from the place its entry names (the pieces are shuffled, so an entry skipped, repeated or
     * taken out of order shows).
     */
    @Test
    void aTableOfMoreDescriptorsThanOneRoundMovesEveryPiece() {
        final int n = CommandSlot.MAX_DESCRIPTORS;
        final int piece = 512;
        final java.util.List<Long> order = new java.util.ArrayList<>();
        for (int i = 0; i < n; i++) {
            order.add(i * 2L * piece); // every other 512 bytes, so that a piece placed one slot off lands in a gap
        }
        java.util.Collections.shuffle(order, new java.util.Random(7));
        final long[] writePieces = order.stream().mapToLong(Long::longValue).toArray();
        final long[] readPieces = new long[n];
        for (int i = 0; i < n; i++) {
            readPieces[i] = 400_000 + writePieces[(i + 1) % n];
        }
        try (TestInitiator ini = TestInitiator.login(target.localAddress(), SrpTargetTest.ID_EXT, SrpTargetTest.IOC_GUID, 7, 1 << 20)) {
            final byte[] expected = new byte[n * piece];
            new java.util.Random(11).nextBytes(expected);
            for (int i = 0; i < n; i++) {
                MemorySegment.copy(expected, i * piece, ini.buffer(), ValueLayout.JAVA_BYTE, writePieces[i], piece);
            }
            assertEquals(ScsiStatus.GOOD, externalCommand(ini, 44, TestInitiator.write16(128, n), true, writePieces, piece,
                    (long) n * piece).status());
            ini.buffer().asSlice(0, TABLE_AT).fill((byte) 0);
            assertEquals(ScsiStatus.GOOD, externalCommand(ini, 45, TestInitiator.read16(128, n), false, readPieces, piece,
                    (long) n * piece).status());
            final byte[] got = new byte[n * piece];
            for (int i = 0; i < n; i++) {
                MemorySegment.copy(ini.buffer(), ValueLayout.JAVA_BYTE, readPieces[i], got, i * piece, piece);
            }
            assertArrayEquals(expected, got, "every piece of every round went to (and came from) its entry's buffer");
        }
    }

    /** The same with the descriptors inside the IU (a long cmd_sg_entries), and data-in shorter than they offer. */
    @Test
    void descriptorsInTheIuBeyondOneRoundMoveEveryPiece() {
        final int n = 100;
        final int piece = 512;
        try (TestInitiator ini = TestInitiator.login(target.localAddress(), SrpTargetTest.ID_EXT, SrpTargetTest.IOC_GUID, 8, 1 << 20)) {
            final TestInitiator.Extent[] out = new TestInitiator.Extent[n];
            final TestInitiator.Extent[] in = new TestInitiator.Extent[n + 20];
            final byte[] expected = new byte[n * piece];
            new java.util.Random(13).nextBytes(expected);
            for (int i = 0; i < n; i++) {
                out[i] = new TestInitiator.Extent((long) (n - 1 - i) * 2 * piece, piece);
                MemorySegment.copy(expected, i * piece, ini.buffer(), ValueLayout.JAVA_BYTE, out[i].offset(), piece);
            }
            for (int i = 0; i < in.length; i++) {
                in[i] = new TestInitiator.Extent(300_000L + (long) i * 2 * piece, piece);
            }
            ini.submitIndirect(50, 0, TestInitiator.write16(512, n), true, out);
            assertEquals(ScsiStatus.GOOD, ini.awaitResponse().status());
            ini.submitIndirect(51, 0, TestInitiator.read16(512, n), false, in);
            final TestInitiator.Response r = ini.awaitResponse();
            assertEquals(ScsiStatus.GOOD, r.status());
            assertEquals(20L * piece, r.dataInResidual(), "the 20 descriptors past the data are an underflow");
            final byte[] got = new byte[n * piece];
            for (int i = 0; i < n; i++) {
                MemorySegment.copy(ini.buffer(), ValueLayout.JAVA_BYTE, in[i].offset(), got, i * piece, piece);
            }
            assertArrayEquals(expected, got);
            final byte[] past = new byte[20 * piece];
            for (int i = n; i < in.length; i++) {
                MemorySegment.copy(ini.buffer(), ValueLayout.JAVA_BYTE, in[i].offset(), past, (i - n) * piece, piece);
            }
            assertArrayEquals(new byte[20 * piece], past, "nothing written past the data");
        }
    }

    @Test
    void aTableWhoseLengthsDoNotAddUpIsRefused() {
        try (TestInitiator ini = TestInitiator.login(target.localAddress(), SrpTargetTest.ID_EXT, SrpTargetTest.IOC_GUID, 6, 1 << 20)) {
            // the IU claims 4 pieces of data in total but names a table of 3 entries: total length mismatch
            final long[] pieces = {0, PIECE, 2 * PIECE};
            final TestInitiator.Response r = externalCommand(ini, 43, TestInitiator.read16(0, 32), false, pieces, PIECE, 4L * PIECE);
            assertEquals(ScsiStatus.CHECK_CONDITION, r.status());
            assertEquals(0x0E, Byte.toUnsignedInt(r.sense()[12]), "INVALID FIELD IN COMMAND INFORMATION UNIT");
            assertEquals(0x03, Byte.toUnsignedInt(r.sense()[13]));
        }
    }
}

package org.rdmablock.protocol.scsi;

import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The CDBs a translating front end writes are the ones the engine's decoder reads (the same fields back), and the
 * UNMAP parameter list is SBC-4's bytes (5.30.2: data length, block descriptor data length, then LBA, count, reserved).
 */
class CdbWriterTest {
    private final MemorySegment cdb = MemorySegment.ofArray(new byte[CdbWriter.LENGTH_16]);
    private final CdbDecoder decoder = new CdbDecoder();

    private CdbDecoder decoded(final int length) {
        assertTrue(decoder.decode(cdb, 0, length), "decodes: " + decoder.error());
        return decoder;
    }

    @Test
    void readAndWriteSixteenCarryLbaBlocksAndFua() {
        CdbDecoder d = decoded(CdbWriter.read16(cdb, 0x1_2345_6789L, 65536, true));
        assertEquals(CommandKind.READ, d.kind());
        assertEquals(0x88, d.opcode());
        assertEquals(0x1_2345_6789L, d.lba());
        assertEquals(65536, d.transferLength());
        assertTrue(d.has(CdbDecoder.FUA));
        d = decoded(CdbWriter.write16(cdb, 7, 8, false));
        assertEquals(CommandKind.WRITE, d.kind());
        assertEquals(7, d.lba());
        assertEquals(8, d.transferLength());
        assertFalse(d.has(CdbDecoder.FUA));
    }

    @Test
    void compareIsVerifySixteenWithTheDataOutByteCheck() {
        final CdbDecoder d = decoded(CdbWriter.compare16(cdb, 0x1_0000_0001L, 3));
        assertEquals(CommandKind.VERIFY, d.kind());
        assertEquals(0x8F, d.opcode());
        assertEquals(CdbDecoder.BYTCHK_DATA_OUT, d.byteCheck());
        assertEquals(0x1_0000_0001L, d.lba());
        assertEquals(3, d.transferLength());
    }

    @Test
    void flushIsSynchronizeCacheOfTheWholeMedium() {
        final CdbDecoder d = decoded(CdbWriter.synchronizeCache16(cdb));
        assertEquals(CommandKind.SYNCHRONIZE_CACHE, d.kind());
        assertEquals(0, d.lba());
        assertEquals(0, d.transferLength());
    }

    @Test
    void writeZeroesIsWriteSameWithoutADataBuffer() {
        CdbDecoder d = decoded(CdbWriter.writeZeroes16(cdb, 100, 16, true));
        assertEquals(CommandKind.WRITE_SAME, d.kind());
        assertTrue(d.has(CdbDecoder.NDOB));
        assertTrue(d.has(CdbDecoder.UNMAP_BIT));
        assertEquals(100, d.lba());
        assertEquals(16, d.transferLength());
        d = decoded(CdbWriter.writeZeroes16(cdb, 100, 16, false));
        assertFalse(d.has(CdbDecoder.UNMAP_BIT));
    }

    @Test
    void unmapAndItsParameterListAreSbcBytes() {
        final CdbDecoder d = decoded(CdbWriter.unmap(cdb, 2));
        assertEquals(CommandKind.UNMAP, d.kind());
        assertEquals(8 + 2 * 16, d.parameterListLength());
        final MemorySegment list = MemorySegment.ofArray(new byte[4 + 8 + 2 * 16]);
        CdbWriter.unmapHeader(list, 4, 2);
        CdbWriter.unmapDescriptor(list, 4, 0, 0x0102030405060708L, 0x11223344L);
        CdbWriter.unmapDescriptor(list, 4, 1, 9, 1);
        final ByteBuffer expected = ByteBuffer.allocate(4 + 8 + 2 * 16); // big-endian
        expected.putShort(4, (short) (6 + 32)).putShort(6, (short) 32);
        expected.putLong(12, 0x0102030405060708L).putInt(20, 0x11223344);
        expected.putLong(28, 9).putInt(36, 1);
        assertArrayEquals(expected.array(), list.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
    }
}

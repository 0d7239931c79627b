package org.rdmablock.verbs.soft.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.zip.CRC32C;

import org.junit.jupiter.api.Test;

/**
 * Byte images of the iWARP wire formats, built by hand from the RFC layouts (and, where Linux siw is the
 * reference peer, from frames siw sends), compared with what the flyweights write and read.
 */
class WireFormatTest {
    private static byte[] hex(final String text) {
        return HexFormat.of().parseHex(text.replace(" ", ""));
    }

    private static byte[] bytes(final ByteBuffer buffer, final int length) {
        final byte[] out = new byte[length];
        buffer.get(0, out);
        return out;
    }

    @Test
    void mpaCrcIsCrc32cWrittenLeastSignificantByteFirst() {
        // RFC 3720 B.4 test vector: 32 zero bytes -> CRC32C 0x8A9136AA
        final CRC32C crc = new CRC32C();
        crc.update(new byte[32]);
        final ByteBuffer trailer = ByteBuffer.allocate(4);
        Fpdu.putCrc(trailer, 0, (int) crc.getValue());
        assertArrayEquals(hex("aa 36 91 8a"), bytes(trailer, 4));
        assertEquals(0x8A9136AA, Fpdu.getCrc(trailer, 0));
    }

    @Test
    void zeroLengthRdmaWriteMatchesTheFpduSiwSendsAsItsReadyToReceive() {
        // siw's RTR: ULPDU_Length 14, T|L|DV=1, RV=1 opcode 0 (RDMA Write), STag 1, TO 0; CRC wire bytes eb d3 4c 5f
        final ByteBuffer fpdu = ByteBuffer.allocate(Fpdu.totalLength(14));
        final FpduHeader header = new FpduHeader().wrap(fpdu, 0).ulpduLength(14).control(RdmapOpcode.RDMA_WRITE, true, 0).tagged(1, 0);
        final CRC32C crc = new CRC32C();
        crc.update(fpdu.duplicate().limit(16));
        Fpdu.putCrc(fpdu, 16, (int) crc.getValue());
        assertArrayEquals(hex("000e c140 00000001 0000000000000000 ebd34c5f"), bytes(fpdu, 20));
        assertTrue(header.isTagged());
        assertTrue(header.isLast());
        assertEquals(1, header.ddpVersion());
        assertEquals(1, header.rdmapVersion());
        assertEquals(FpduHeader.TAGGED_LENGTH, header.headerLength());
    }

    @Test
    void untaggedSendHeaderLayout() {
        final ByteBuffer fpdu = ByteBuffer.allocate(32);
        final FpduHeader header = new FpduHeader().wrap(fpdu, 0).ulpduLength(18 + 5)
            .control(RdmapOpcode.SEND_WITH_SE, false, 0).untagged(0xAABBCCDD, 0, 7, 1024);
        // len | DDP ctl (L=0, DV=1) | RDMAP (RV=1, opcode 5) | RsvdULP | QN | MSN | MO
        assertArrayEquals(hex("0017 01 45 aabbccdd 00000000 00000007 00000400"), bytes(fpdu, 20));
        assertFalse(header.isTagged());
        assertFalse(header.isLast());
        assertEquals(RdmapOpcode.SEND_WITH_SE, header.opcode());
        assertEquals(7, header.msn());
        assertEquals(1024, header.messageOffset());
        assertEquals(0xAABBCCDD, header.reservedUlp());
    }

    @Test
    void readRequestLayoutMatchesRfc5040Section44() {
        final ByteBuffer fpdu = ByteBuffer.allocate(ReadRequest.FPDU_HEADER_LENGTH);
        new FpduHeader().wrap(fpdu, 0).ulpduLength(46).control(RdmapOpcode.READ_REQUEST, true, 0).untagged(0, 1, 1, 0);
        final ReadRequest read = new ReadRequest().wrap(fpdu, 0).set(0x1100, 0x2233L, 4096, 0x4400, 0x5566L);
        assertArrayEquals(hex("002e 41 41 00000000 00000001 00000001 00000000"
            + " 00001100 0000000000002233 00001000 00004400 0000000000005566"), bytes(fpdu, 48));
        assertEquals(4096, read.size());
        assertEquals(0x4400, read.sourceStag());
        assertEquals(0x2233L, read.sinkOffset());
    }

    @Test
    void atomicRequestAndResponseFollowRfc7306() {
        final ByteBuffer fpdu = ByteBuffer.allocate(20 + AtomicMessage.REQUEST_LENGTH);
        final AtomicMessage atomic = new AtomicMessage().wrap(fpdu, 0).request(AtomicMessage.COMPARE_SWAP, 9, 0x300, 0x40L, 5L, 6L);
        final byte[] image = bytes(fpdu, 72);
        assertArrayEquals(hex("00000002 00000009 00000300 0000000000000040 0000000000000005 ffffffffffffffff"
            + " 0000000000000006 ffffffffffffffff"), java.util.Arrays.copyOfRange(image, 20, 72));
        assertEquals(AtomicMessage.COMPARE_SWAP, atomic.atomicOpcode());
        assertEquals(5L, atomic.addOrSwapData());
        assertEquals(6L, atomic.compareData());
        atomic.response(9, 0x1122334455667788L);
        assertArrayEquals(hex("00000009 1122334455667788"), java.util.Arrays.copyOfRange(bytes(fpdu, 32), 20, 32));
    }

    @Test
    void terminateIsWrittenInRfcLayoutAndSiwsBitFieldLayoutIsRead() {
        final ByteBuffer fpdu = ByteBuffer.allocate(64);
        final TerminateMessage terminate = new TerminateMessage().wrap(fpdu, 0)
            .control(TerminateMessage.LAYER_DDP, TerminateMessage.DDP_UNTAGGED_BUFFER, TerminateMessage.DDP_NO_BUFFER,
                TerminateMessage.HDRCT_M | TerminateMessage.HDRCT_D);
        assertArrayEquals(hex("12 02 c0 00"), java.util.Arrays.copyOfRange(bytes(fpdu, 24), 20, 24));
        assertFalse(terminate.isSiwLayout());
        assertEquals(TerminateMessage.LAYER_DDP, terminate.layer());
        assertEquals(TerminateMessage.DDP_UNTAGGED_BUFFER, terminate.errorType());
        assertTrue(terminate.hasDdpHeader());
        // the same report as siw writes it on a little-endian host: nibbles swapped, M/D at 0x01/0x02
        fpdu.put(20, (byte) 0x21).put(22, (byte) 0x03);
        assertTrue(terminate.isSiwLayout());
        assertEquals(TerminateMessage.LAYER_DDP, terminate.layer());
        assertEquals(TerminateMessage.DDP_UNTAGGED_BUFFER, terminate.errorType());
        assertEquals(TerminateMessage.DDP_NO_BUFFER, terminate.errorCode());
        assertTrue(terminate.hasDdpHeader());
    }

    @Test
    void mpaRequestFrameWithRfc6581Block() {
        final byte[] ulp = {1, 2, 3};
        final ByteBuffer frame = ByteBuffer.allocate(MpaFrame.HEADER_LENGTH + 4 + ulp.length);
        final MpaFrame mpa = new MpaFrame().wrap(frame, 0).key(MpaFrame.REQUEST_KEY)
            .flags(MpaFrame.FLAG_CRC | MpaFrame.FLAG_ENHANCED).revision(2).privateDataLength(4 + ulp.length)
            .irdWord(MpaFrame.IRD_PEER_TO_PEER | 16).ordWord(MpaFrame.ORD_RTR_ZERO_LENGTH_WRITE | 8);
        frame.put(mpa.ulpDataOffset(), ulp);
        assertArrayEquals(hex("4d504120494420526571204672616d65 50 02 0007 8010 8008 010203"), bytes(frame, frame.capacity()));
        assertTrue(mpa.hasKey(MpaFrame.REQUEST_KEY));
        assertFalse(mpa.hasKey(MpaFrame.REPLY_KEY));
        assertTrue(mpa.isEnhanced());
        assertEquals(24, mpa.ulpDataOffset());
        assertEquals(3, mpa.ulpDataLength());
        assertEquals(16, mpa.irdWord() & MpaFrame.IRD_ORD_MASK);
    }

    @Test
    void padMakesEveryFpduAMultipleOfFourBytes() {
        for (int ulpdu = 14; ulpdu < 100; ulpdu++) {
            assertEquals(0, (Fpdu.LENGTH_SIZE + ulpdu + Fpdu.padLength(ulpdu)) % 4);
            assertTrue(Fpdu.padLength(ulpdu) < 4);
        }
    }
}

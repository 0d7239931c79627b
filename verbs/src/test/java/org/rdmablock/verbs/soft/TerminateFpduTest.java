package org.rdmablock.verbs.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

import org.junit.jupiter.api.Test;
import org.rdmablock.verbs.WcStatus;
import org.rdmablock.verbs.soft.wire.Fpdu;
import org.rdmablock.verbs.soft.wire.FpduHeader;
import org.rdmablock.verbs.soft.wire.RdmapOpcode;
import org.rdmablock.verbs.soft.wire.TerminateMessage;

/** The Terminate FPDU a QP sends (RFC 5040 §4.8) parses back, names the failing message and carries a valid CRC. */
class TerminateFpduTest {
    @Test
    void terminateNamingAFailedWriteParsesBackWithValidCrc() {
        final ByteBuffer failed = ByteBuffer.allocate(64).order(ByteOrder.BIG_ENDIAN);
        final FpduHeader write = new FpduHeader().wrap(failed, 0).ulpduLength(1000)
            .control(RdmapOpcode.RDMA_WRITE, true, 0).tagged(0x1234_5678, 0x10_0000_2000L);
        final ByteBuffer fpdu = new TerminateFpdu().build(TerminateMessage.LAYER_DDP, TerminateMessage.DDP_TAGGED_BUFFER,
            TerminateMessage.DDP_BASE_BOUNDS, write, write.headerLength() - Fpdu.LENGTH_SIZE, true);

        final FpduHeader header = new FpduHeader().wrap(fpdu, 0);
        assertEquals(RdmapOpcode.TERMINATE, header.opcode());
        assertEquals(RdmapOpcode.QN_TERMINATE, header.queueNumber());
        assertEquals(1, header.msn());
        assertTrue(header.isLast());
        final int ulpdu = header.ulpduLength();
        assertEquals(Fpdu.totalLength(ulpdu), fpdu.remaining(), "the buffer is positioned over exactly one FPDU");

        final TerminateMessage message = new TerminateMessage().wrap(fpdu, 0);
        assertEquals(TerminateMessage.LAYER_DDP, message.layer());
        assertEquals(TerminateMessage.DDP_TAGGED_BUFFER, message.errorType());
        assertEquals(TerminateMessage.DDP_BASE_BOUNDS, message.errorCode());
        assertTrue(message.hasDdpHeader());
        final FpduHeader named = new FpduHeader().wrap(fpdu, message.terminatedFpduOffset());
        assertTrue(named.isTagged());
        assertEquals(0x1234_5678, named.stag());
        assertEquals(0x10_0000_2000L, named.taggedOffset());

        final int crcAt = fpdu.limit() - Fpdu.CRC_SIZE;
        final CRC32C crc = new CRC32C();
        crc.update(fpdu.duplicate().limit(crcAt).position(0));
        assertEquals((int) crc.getValue(), Fpdu.getCrc(fpdu, crcAt));
    }

    @Test
    void withoutCrcTheTrailerIsZeroAndNoHeaderIsAttached() {
        final ByteBuffer fpdu = new TerminateFpdu().build(TerminateMessage.LAYER_LLP, 0, TerminateMessage.LLP_CRC_ERROR,
            null, 0, false);
        final TerminateMessage message = new TerminateMessage().wrap(fpdu, 0);
        assertEquals(TerminateMessage.LAYER_LLP, message.layer());
        assertEquals(TerminateMessage.LLP_CRC_ERROR, message.errorCode());
        assertEquals(false, message.hasDdpHeader());
        assertEquals(0, Fpdu.getCrc(fpdu, fpdu.limit() - Fpdu.CRC_SIZE));
    }

    @Test
    void completionStatusGivesTheInfinibandMeaning() {
        assertEquals(WcStatus.REM_ACCESS_ERR.code(), TerminateFpdu.completionStatus(TerminateMessage.LAYER_DDP,
            TerminateMessage.DDP_TAGGED_BUFFER, TerminateMessage.DDP_INVALID_STAG));
        assertEquals(WcStatus.REM_ACCESS_ERR.code(), TerminateFpdu.completionStatus(TerminateMessage.LAYER_RDMAP,
            TerminateMessage.RDMAP_REMOTE_PROTECTION, TerminateMessage.RDMAP_ACCESS_RIGHTS));
        assertEquals(WcStatus.RNR_RETRY_EXC_ERR.code(), TerminateFpdu.completionStatus(TerminateMessage.LAYER_DDP,
            TerminateMessage.DDP_UNTAGGED_BUFFER, TerminateMessage.DDP_NO_BUFFER));
        assertEquals(WcStatus.REM_INV_REQ_ERR.code(), TerminateFpdu.completionStatus(TerminateMessage.LAYER_DDP,
            TerminateMessage.DDP_UNTAGGED_BUFFER, TerminateMessage.DDP_MESSAGE_TOO_LONG));
        assertEquals(WcStatus.REM_INV_REQ_ERR.code(), TerminateFpdu.completionStatus(TerminateMessage.LAYER_RDMAP,
            TerminateMessage.RDMAP_REMOTE_OPERATION, TerminateMessage.RDMAP_CATASTROPHIC_STREAM));
        assertEquals(WcStatus.REM_OP_ERR.code(), TerminateFpdu.completionStatus(TerminateMessage.LAYER_RDMAP,
            TerminateMessage.RDMAP_LOCAL_CATASTROPHIC, 0));
        assertEquals(WcStatus.WR_FLUSH_ERR.code(), TerminateFpdu.completionStatus(TerminateMessage.LAYER_LLP,
            0, TerminateMessage.LLP_CONNECTION_LOST));
    }
}

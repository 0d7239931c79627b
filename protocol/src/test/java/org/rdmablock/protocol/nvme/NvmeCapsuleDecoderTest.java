package org.rdmablock.protocol.nvme;

import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Each refusal of the capsule decoder, with the status nvmet-rdma answers the same capsule with. */
class NvmeCapsuleDecoderTest {
    private static final int DNR = NvmeStatus.DO_NOT_RETRY;
    private final MemorySegment capsule = MemorySegment.ofArray(new byte[64 + 4096]);
    private final NvmeSubmission entry = new NvmeSubmission().wrap(capsule, 0).reset().setOpcode(NvmeOpcode.WRITE)
            .setFlags(NvmeSubmission.FLAGS_SGL_METABUF).setNsid(1);
    private final NvmeSglDescriptor sgl = entry.sgl(new NvmeSglDescriptor());
    private final NvmeCapsuleDecoder decoder = new NvmeCapsuleDecoder();

    private int decode(final long length) {
        return decoder.decode(capsule, 0, length, 4096, 1 << 20);
    }

    @Test
    void aKeyedTransferIsAcceptedUpToTheLargest() {
        sgl.setKeyed(0x1000, 1 << 20, 9, false);
        assertEquals(NvmeStatus.SUCCESS, decode(64));
        assertEquals(1 << 20, decoder.dataLength());
        assertFalse(decoder.dataInCapsule());
        sgl.setKeyed(0x1000, (1 << 20) + 512, 9, true);
        assertEquals(NvmeStatus.SGL_INVALID_DATA | DNR, decode(64));
    }

    @Test
    void inCapsuleDataMustLieInTheBytesReceivedAndBeAWrite() {
        sgl.setInCapsule(512, 1024);
        assertEquals(NvmeStatus.SUCCESS, decode(64 + 2048));
        assertTrue(decoder.dataInCapsule());
        assertEquals(512, decoder.inCapsuleDataOffset());
        assertEquals(NvmeStatus.SGL_INVALID_OFFSET | DNR, decode(64 + 1535), "one byte short of the data");
        assertEquals(NvmeStatus.SGL_INVALID_OFFSET | DNR, decoder.decode(capsule, 0, 64 + 4096, 1024, 1 << 20),
                "beyond the queue's in-capsule room");
        entry.setOpcode(NvmeOpcode.READ);
        assertEquals(NvmeStatus.INVALID_FIELD | DNR, decode(64 + 2048), "a read has no data to send in the capsule");
    }

    @Test
    void prpsFusedCommandsAndOtherSglTypesAreRefused() {
        sgl.setKeyed(0, 0, 0, false);
        entry.setFlags(0);
        assertEquals(NvmeStatus.INVALID_FIELD | DNR, decode(64), "PRPs: no SGL");
        entry.setFlags(NvmeSubmission.FLAGS_SGL_METABUF | 1);
        assertEquals(NvmeStatus.INVALID_FIELD | DNR, decode(64), "fused");
        entry.setFlags(NvmeSubmission.FLAGS_SGL_METABUF);
        capsule.set(java.lang.foreign.ValueLayout.JAVA_BYTE, NvmeSubmission.DPTR_OFFSET + NvmeSglDescriptor.IDENTIFIER_OFFSET,
                (byte) NvmeSglDescriptor.typeOf(NvmeSglDescriptor.TYPE_LAST_SEGMENT, 0));
        assertEquals(NvmeStatus.SGL_INVALID_TYPE | DNR, decode(64));
        assertEquals(NvmeCapsuleDecoder.TOO_SHORT, decode(63));
    }
}

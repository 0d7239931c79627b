package org.rdmablock.verbs.soft;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

import org.rdmablock.verbs.WcStatus;
import org.rdmablock.verbs.soft.wire.Fpdu;
import org.rdmablock.verbs.soft.wire.FpduHeader;
import org.rdmablock.verbs.soft.wire.RdmapOpcode;
import org.rdmablock.verbs.soft.wire.TerminateMessage;

/**
 * The one Terminate FPDU a connection may send (RFC 5040 §4.8), built into a preallocated buffer, and the mapping
 * of a received Terminate to the InfiniBand completion status a verbs user expects.
 *
 * <p>A Terminate is the last message on a stream: the QP enters ERR after it, so one buffer per QP suffices.
 */
final class TerminateFpdu {
    /** Room for the largest Terminate: headers, the attached DDP and RDMAP headers of the failing message, CRC. */
    private static final int CAPACITY = 128;

    private final ByteBuffer fpdu = ByteBuffer.allocateDirect(CAPACITY).order(ByteOrder.BIG_ENDIAN);
    private final FpduHeader header = new FpduHeader();
    private final TerminateMessage message = new TerminateMessage();
    private final CRC32C crc = new CRC32C();

    /**
     * Builds a Terminate naming {@code layer/errorType/errorCode}; when {@code failing} is not null its DDP header
     * and {@code attached} bytes after the MPA length (the RDMAP header of a READ request too) are copied in.
     *
     * @param crcEnabled whether the connection negotiated MPA CRC (RFC 5044 §7.1); else the CRC field is zero
     * @return the FPDU, positioned for writing
     */
    ByteBuffer build(final int layer, final int errorType, final int errorCode, final FpduHeader failing,
                     final int attached, final boolean crcEnabled) {
        final ByteBuffer t = fpdu.clear();
        final int extra = failing == null ? 0 : 2 + attached;
        final int ulpdu = FpduHeader.DDP_UNTAGGED_HEADER + TerminateMessage.BASE_LENGTH + extra;
        for (int i = 0; i < Fpdu.totalLength(ulpdu); i++) {
            t.put(i, (byte) 0);
        }
        header.wrap(t, 0).ulpduLength(ulpdu).control(RdmapOpcode.TERMINATE, true, 0)
            .untagged(0, RdmapOpcode.QN_TERMINATE, 1, 0);
        int hdrct = 0;
        message.wrap(t, 0);
        if (failing != null) {
            hdrct = TerminateMessage.HDRCT_M | TerminateMessage.HDRCT_D
                | (attached > failing.headerLength() - Fpdu.LENGTH_SIZE ? TerminateMessage.HDRCT_R : 0);
            message.attach(failing.ulpduLength(), failing.buffer(), failing.offset() + Fpdu.LENGTH_SIZE, attached);
        }
        message.control(layer, errorType, errorCode, hdrct);
        final int crcAt = Fpdu.LENGTH_SIZE + ulpdu + Fpdu.padLength(ulpdu);
        int value = 0;
        if (crcEnabled) {
            crc.reset();
            Fpdu.updateCrc(crc, t, 0, crcAt);
            value = (int) crc.getValue();
        }
        Fpdu.putCrc(t, crcAt, value);
        t.limit(crcAt + Fpdu.CRC_SIZE).position(0);
        return t;
    }

    /** The FPDU last built, with what the socket has not yet taken remaining. */
    ByteBuffer buffer() {
        return fpdu;
    }

    /** Maps a Terminate's layer/type/code to the requester's completion status (InfiniBand meaning). */
    static int completionStatus(final int layer, final int errorType, final int errorCode) {
        if (layer == TerminateMessage.LAYER_RDMAP) {
            if (errorType == TerminateMessage.RDMAP_REMOTE_PROTECTION) {
                return WcStatus.REM_ACCESS_ERR.code();
            }
            return errorType == TerminateMessage.RDMAP_REMOTE_OPERATION ? WcStatus.REM_INV_REQ_ERR.code() : WcStatus.REM_OP_ERR.code();
        }
        if (layer == TerminateMessage.LAYER_DDP) {
            if (errorType == TerminateMessage.DDP_TAGGED_BUFFER) {
                return WcStatus.REM_ACCESS_ERR.code();
            }
            if (errorType == TerminateMessage.DDP_UNTAGGED_BUFFER) {
                return errorCode == TerminateMessage.DDP_NO_BUFFER ? WcStatus.RNR_RETRY_EXC_ERR.code() : WcStatus.REM_INV_REQ_ERR.code();
            }
            return WcStatus.REM_OP_ERR.code();
        }
        return WcStatus.WR_FLUSH_ERR.code();
    }
}

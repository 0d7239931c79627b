package org.rdmablock.verbs.soft;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The header of a soft UD datagram, one UDP datagram per message. iWARP defines no unreliable datagram service,
 * so this format is the soft provider's own (listed as a deviation in the module README). Big-endian.
 *
 * <pre>
 *  0 version (1) | 1 opcode (1): 0 SEND, 1 SEND_WITH_IMM | 2 flags (1): bit 0 solicited | 3 reserved (1)
 *  4 destination QPN (4) | 8 source QPN (4) | 12 Q_Key (4) | 16 immediate data (4) | 20 payload
 * </pre>
 */
final class DatagramHeader {
    static final int VERSION = 1;
    static final int VERSION_OFFSET = 0;
    static final int OPCODE_OFFSET = 1;
    static final int FLAGS_OFFSET = 2;
    static final int DEST_QPN_OFFSET = 4;
    static final int SRC_QPN_OFFSET = 8;
    static final int QKEY_OFFSET = 12;
    static final int IMM_OFFSET = 16;
    static final int LENGTH = 20;

    static final int OPCODE_SEND = 0;
    static final int OPCODE_SEND_WITH_IMM = 1;
    static final int FLAG_SOLICITED = 1;

    /** Size of the Global Route Header that starts every UD receive buffer (IBTA 8.3). */
    static final int GRH_LENGTH = 40;
    static final int GRH_PAYLOAD_LENGTH_OFFSET = 4;
    static final int GRH_NEXT_HEADER_OFFSET = 6;
    static final int GRH_HOP_LIMIT_OFFSET = 7;
    static final int GRH_SGID_OFFSET = 8;
    static final int GRH_DGID_OFFSET = 24;
    /** GRH next header value for IBA transport. */
    static final int GRH_NEXT_HEADER_IBA = 0x1B;

    private DatagramHeader() {
    }

    static void write(final ByteBuffer buffer, final int opcode, final boolean solicited, final int destQpn,
                      final int srcQpn, final int qkey, final int imm) {
        buffer.order(ByteOrder.BIG_ENDIAN);
        buffer.put(VERSION_OFFSET, (byte) VERSION);
        buffer.put(OPCODE_OFFSET, (byte) opcode);
        buffer.put(FLAGS_OFFSET, (byte) (solicited ? FLAG_SOLICITED : 0));
        buffer.put(OPCODE_OFFSET + 2, (byte) 0);
        buffer.putInt(DEST_QPN_OFFSET, destQpn);
        buffer.putInt(SRC_QPN_OFFSET, srcQpn);
        buffer.putInt(QKEY_OFFSET, qkey);
        buffer.putInt(IMM_OFFSET, imm);
    }
}

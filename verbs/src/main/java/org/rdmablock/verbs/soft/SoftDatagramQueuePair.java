package org.rdmablock.verbs.soft;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import org.rdmablock.verbs.Gid;
import org.rdmablock.verbs.QueuePairAttributes;
import org.rdmablock.verbs.QueuePairInitAttributes;
import org.rdmablock.verbs.QueuePairState;
import org.rdmablock.verbs.SendFlags;
import org.rdmablock.verbs.SendOpcode;
import org.rdmablock.verbs.VerbsException;
import org.rdmablock.verbs.WcOpcode;
import org.rdmablock.verbs.WcStatus;
import org.rdmablock.verbs.WorkCompletions;

/**
 * A UD QP of the soft provider: each SEND is one UDP datagram ({@link DatagramHeader}) from the device's
 * {@link DatagramEndpoint}; each receive starts with a 40-byte GRH. Unreliable as UD is: a datagram with no
 * receive posted, a wrong Q_Key or a full socket is dropped. Sends are transmitted by the posting thread.
 */
final class SoftDatagramQueuePair extends SoftQueuePair {
    private final DatagramEndpoint endpoint;
    private final ByteBuffer txBuffer = ByteBuffer.allocateDirect(DatagramHeader.LENGTH + SoftDevice.MTU).order(ByteOrder.BIG_ENDIAN);
    private final MemorySegment txSegment = MemorySegment.ofBuffer(txBuffer);
    private final ReceiveQueue.ReceiveWqe receiving;
    private final byte[] localGid;
    private final byte[] grhScratch = new byte[DatagramHeader.GRH_LENGTH];
    private final ByteBuffer grhBuffer = ByteBuffer.wrap(grhScratch).order(ByteOrder.BIG_ENDIAN);
    private final MemorySegment grhSegment = MemorySegment.ofArray(grhScratch);
    private InetSocketAddress lastSource;

    SoftDatagramQueuePair(final SoftProtectionDomain pd, final QueuePairInitAttributes attributes) {
        super(pd, attributes);
        endpoint = device.datagramEndpoint();
        receiving = new ReceiveQueue.ReceiveWqe(maxRecvSge());
        localGid = device.gid().toBytes();
    }

    @Override
    void checkTransition(final QueuePairState current, final QueuePairState next, final QueuePairAttributes attributes) {
        if (current == QueuePairState.RESET && next == QueuePairState.INIT && !attributes.has(QueuePairAttributes.QKEY)) {
            throw new VerbsException(VerbsException.EINVAL, "RESET -> INIT of a UD QP needs a Q_Key");
        }
    }

    @Override
    void sendPosted() {
        if (state != QueuePairState.RTS && state != QueuePairState.SQD) {
            return;
        }
        boolean localError = false;
        synchronized (txBuffer) {
            for (long seq = sq.head(); seq < sq.tail(); seq++) {
                final SendWqe wqe = sq.at(seq);
                if (wqe.state == SendWqe.POSTED) {
                    final int status = transmit(wqe);
                    localError |= status != WcStatus.SUCCESS.code();
                    finish(wqe, status);
                }
            }
        }
        retire();
        if (localError) {
            enterError(); // after retire(): the failing request completes with its error, the rest flush
        }
    }

    /** Sends one datagram; returns the completion status. */
    private int transmit(final SendWqe wqe) {
        if (wqe.totalLength > SoftDevice.MTU) {
            return WcStatus.LOC_LEN_ERR.code();
        }
        long offset = DatagramHeader.LENGTH;
        for (int i = 0; i < wqe.sgeCount; i++) {
            final int length = wqe.lengths[i];
            if (wqe.isInline) {
                MemorySegment.copy(wqe.inline, 0, txSegment, offset, length);
            } else {
                final SoftMemoryRegion mr = localAccess.region(wqe.lkeys[i], wqe.addresses[i], length, false);
                if (mr == null) {
                    return WcStatus.LOC_PROT_ERR.code();
                }
                MemorySegment.copy(mr.segment(), wqe.addresses[i] - mr.address(), txSegment, offset, length);
            }
            offset += length;
        }
        final boolean withImm = wqe.opcode == SendOpcode.SEND_WITH_IMM;
        DatagramHeader.write(txBuffer, withImm ? DatagramHeader.OPCODE_SEND_WITH_IMM : DatagramHeader.OPCODE_SEND,
            (wqe.flags & SendFlags.SOLICITED) != 0, wqe.remoteQpn, qpn, wqe.remoteQkey, wqe.immediateData);
        txBuffer.clear().limit((int) offset);
        endpoint.send(txBuffer, wqe.addressHandle.endpoint()); // a full socket drops the datagram, as UD may
        return WcStatus.SUCCESS.code();
    }

    /** Delivers one datagram (I/O agent thread). */
    void receive(final InetSocketAddress source, final ByteBuffer datagram, final MemorySegment datagramSegment, final int length) {
        if (datagram.getInt(DatagramHeader.QKEY_OFFSET) != qkey || !takeReceive(receiving)) {
            return; // dropped, as UD drops
        }
        final int payload = length - DatagramHeader.LENGTH;
        final int total = DatagramHeader.GRH_LENGTH + payload;
        final boolean withImm = datagram.get(DatagramHeader.OPCODE_OFFSET) == DatagramHeader.OPCODE_SEND_WITH_IMM;
        final int flags = WorkCompletions.FLAG_GRH | (withImm ? WorkCompletions.FLAG_WITH_IMM : 0);
        final boolean solicited = (datagram.get(DatagramHeader.FLAGS_OFFSET) & DatagramHeader.FLAG_SOLICITED) != 0;
        final int srcQpn = datagram.getInt(DatagramHeader.SRC_QPN_OFFSET);
        if (total > receiving.totalLength()) {
            completeReceive(receiving.wrId, WcStatus.LOC_LEN_ERR.code(), WcOpcode.RECV, 0, 0, srcQpn, 0, true);
            enterError();
            return;
        }
        writeGrh(source, payload);
        if (!scatter(grhSegment, 0, 0, DatagramHeader.GRH_LENGTH) || !scatter(datagramSegment, DatagramHeader.LENGTH, DatagramHeader.GRH_LENGTH, payload)) {
            completeReceive(receiving.wrId, WcStatus.LOC_PROT_ERR.code(), WcOpcode.RECV, 0, 0, srcQpn, 0, true);
            enterError();
            return;
        }
        completeReceive(receiving.wrId, 0, WcOpcode.RECV, total, withImm ? datagram.getInt(DatagramHeader.IMM_OFFSET) : 0,
            srcQpn, flags, solicited);
    }

    private void writeGrh(final InetSocketAddress source, final int payload) {
        grhBuffer.putInt(0, 6 << 28);
        grhBuffer.putShort(DatagramHeader.GRH_PAYLOAD_LENGTH_OFFSET, (short) payload);
        grhBuffer.put(DatagramHeader.GRH_NEXT_HEADER_OFFSET, (byte) DatagramHeader.GRH_NEXT_HEADER_IBA);
        grhBuffer.put(DatagramHeader.GRH_HOP_LIMIT_OFFSET, (byte) 64);
        if (!source.equals(lastSource)) {
            final Gid sgid = SoftGid.of(source);
            for (int i = 0; i < Gid.LENGTH; i++) {
                grhScratch[DatagramHeader.GRH_SGID_OFFSET + i] = (byte) sgid.byteAt(i);
            }
            lastSource = source;
        }
        System.arraycopy(localGid, 0, grhScratch, DatagramHeader.GRH_DGID_OFFSET, Gid.LENGTH);
    }

    /** Copies {@code length} bytes of {@code source} to message offset {@code messageOffset} of the receive's SGEs. */
    private boolean scatter(final MemorySegment source, final long sourceOffset, final long messageOffset, final long length) {
        long skip = messageOffset;
        long copied = 0;
        for (int i = 0; i < receiving.sgeCount && copied < length; i++) {
            final long sgeLength = receiving.lengths[i] & 0xFFFF_FFFFL;
            if (skip >= sgeLength) {
                skip -= sgeLength;
                continue;
            }
            final long n = Math.min(sgeLength - skip, length - copied);
            final SoftMemoryRegion mr = localAccess.region(receiving.lkeys[i], receiving.addresses[i] + skip, n, true);
            if (mr == null) {
                return false;
            }
            MemorySegment.copy(source, sourceOffset + copied, mr.segment(), receiving.addresses[i] + skip - mr.address(), n);
            copied += n;
            skip = 0;
        }
        return copied == length;
    }

    @Override
    void errorEntered() {
    }

    @Override
    void resetTransport() {
    }

    @Override
    void closeTransport() {
    }
}

package org.rdmablock.verbs.soft;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;
import java.time.Duration;

import org.rdmablock.verbs.VerbsException;
import org.rdmablock.verbs.soft.wire.MpaFrame;

/**
 * The MPA connection setup exchange (RFC 5044 §7.1) with the RFC 6581 enhanced block, on a blocking channel
 * before it is handed to the QP. The soft provider always offers revision 2 with peer-to-peer mode and a
 * zero-length RDMA WRITE as the ready-to-receive message (so either side may send first); it answers revision 1
 * requests in kind. CRC is used when either side asks for it (RFC 5044 §7.1.2), and this provider asks by
 * default.
 */
final class MpaNegotiation {
    /** Whether this side asks for MPA CRC ({@link Configuration#CRC_PROP_NAME}). */
    static final boolean CRC_REQUESTED = Configuration.crcRequested();
    /** Largest ULP private data: 256 bytes less the RFC 6581 block (see {@link MpaFrame#MAX_PRIVATE_DATA}). */
    static final int MAX_ULP_PRIVATE_DATA = MpaFrame.MAX_PRIVATE_DATA - MpaFrame.ENHANCED_LENGTH;

    /** A parsed request or reply. */
    record Frame(int flags, int revision, boolean enhanced, int ird, int ord, boolean peerToPeer, int rtrOffers,
                 byte[] privateData) {
        boolean crc() {
            return (flags & MpaFrame.FLAG_CRC) != 0;
        }

        boolean rejected() {
            return (flags & MpaFrame.FLAG_REJECT) != 0;
        }
    }

    private MpaNegotiation() {
    }

    /** The most ULP private data a frame can carry: 256 bytes less the RFC 6581 block when there is one. */
    static int maxPrivateData(final boolean enhanced) {
        return MpaFrame.MAX_PRIVATE_DATA - (enhanced ? MpaFrame.ENHANCED_LENGTH : 0);
    }

    /** EINVAL, before anything is sent, for private data over {@code limit} in the frame named {@code frame}. */
    static void checkPrivateData(final byte[] data, final int limit, final String frame) {
        if (data.length > limit) {
            throw new VerbsException(VerbsException.EINVAL, "private data of " + data.length + " bytes exceeds the " + limit
                + " bytes an MPA " + frame + " carries (256 less the RFC 6581 block)");
        }
    }

    /** Writes a request: revision 2, enhanced, peer-to-peer with a zero-length WRITE RTR. */
    static void sendRequest(final SocketChannel channel, final int ird, final int ord, final byte[] privateData) throws IOException {
        write(channel, MpaFrame.REQUEST_KEY, MpaFrame.FLAG_ENHANCED | (CRC_REQUESTED ? MpaFrame.FLAG_CRC : 0), 2,
            true, MpaFrame.IRD_PEER_TO_PEER | ird, MpaFrame.ORD_RTR_ZERO_LENGTH_WRITE | ord, privateData);
    }

    /** Writes a reply to {@code request}: same revision; when enhanced, echoes peer-to-peer and picks the WRITE RTR. */
    static void sendReply(final SocketChannel channel, final Frame request, final boolean reject, final boolean crc,
                          final int ird, final int ord, final byte[] privateData) throws IOException {
        final int flags = (request.enhanced() ? MpaFrame.FLAG_ENHANCED : 0) | (crc && !reject ? MpaFrame.FLAG_CRC : 0)
            | (reject ? MpaFrame.FLAG_REJECT : 0);
        final int irdWord = (request.peerToPeer() ? MpaFrame.IRD_PEER_TO_PEER : 0) | ird;
        final int ordWord = (request.peerToPeer() ? MpaFrame.ORD_RTR_ZERO_LENGTH_WRITE : 0) | ord;
        write(channel, MpaFrame.REPLY_KEY, flags, Math.min(2, Math.max(1, request.revision())), request.enhanced(),
            irdWord, ordWord, privateData);
    }

    private static void write(final SocketChannel channel, final byte[] key, final int flags, final int revision,
                              final boolean enhanced, final int irdWord, final int ordWord, final byte[] privateData) throws IOException {
        final int pdLength = privateData.length + (enhanced ? MpaFrame.ENHANCED_LENGTH : 0);
        final ByteBuffer frame = ByteBuffer.allocate(MpaFrame.HEADER_LENGTH + pdLength).order(ByteOrder.BIG_ENDIAN);
        final MpaFrame mpa = new MpaFrame().wrap(frame, 0).key(key).flags(flags).revision(revision).privateDataLength(pdLength);
        if (enhanced) {
            mpa.irdWord(irdWord).ordWord(ordWord);
        }
        frame.put(mpa.ulpDataOffset(), privateData);
        while (frame.hasRemaining()) {
            channel.write(frame);
        }
    }

    /**
     * Reads a frame with {@code key}, waiting at most {@code timeout}.
     *
     * @throws VerbsException ETIMEDOUT, or EINVAL for a frame that breaks RFC 5044
     */
    static Frame read(final SocketChannel channel, final byte[] key, final Duration timeout) throws IOException {
        channel.socket().setSoTimeout((int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis())));
        final InputStream in = channel.socket().getInputStream();
        final byte[] header = readFully(in, MpaFrame.HEADER_LENGTH);
        final ByteBuffer headerBuffer = ByteBuffer.wrap(header);
        final MpaFrame mpa = new MpaFrame().wrap(headerBuffer, 0);
        if (!mpa.hasKey(key)) {
            throw new VerbsException(VerbsException.EINVAL, "not an MPA " + (key == MpaFrame.REQUEST_KEY ? "request" : "reply") + " frame");
        }
        if ((mpa.flags() & MpaFrame.FLAG_MARKERS) != 0) {
            throw new VerbsException(VerbsException.EINVAL, "peer asks for MPA markers, which this provider does not support");
        }
        final int revision = mpa.revision();
        if (revision < 1 || revision > 2) {
            throw new VerbsException(VerbsException.EINVAL, "unsupported MPA revision " + revision);
        }
        final int pdLength = mpa.privateDataLength();
        if (pdLength > MpaFrame.MAX_PRIVATE_DATA) {
            throw new VerbsException(VerbsException.EINVAL, "MPA private data of " + pdLength + " bytes exceeds " + MpaFrame.MAX_PRIVATE_DATA);
        }
        final byte[] whole = new byte[MpaFrame.HEADER_LENGTH + pdLength];
        System.arraycopy(header, 0, whole, 0, MpaFrame.HEADER_LENGTH);
        System.arraycopy(readFully(in, pdLength), 0, whole, MpaFrame.HEADER_LENGTH, pdLength);
        mpa.wrap(ByteBuffer.wrap(whole), 0);
        final boolean enhanced = mpa.isEnhanced();
        if (enhanced && pdLength < MpaFrame.ENHANCED_LENGTH) {
            throw new VerbsException(VerbsException.EINVAL, "MPA revision 2 frame without its IRD/ORD block");
        }
        final int ird = enhanced ? mpa.irdWord() & MpaFrame.IRD_ORD_MASK : SoftDevice.MAX_IRD;
        final int ord = enhanced ? mpa.ordWord() & MpaFrame.IRD_ORD_MASK : SoftDevice.MAX_ORD;
        final boolean peerToPeer = enhanced && (mpa.irdWord() & MpaFrame.IRD_PEER_TO_PEER) != 0;
        final int rtr = enhanced ? mpa.ordWord() & (MpaFrame.ORD_RTR_ZERO_LENGTH_WRITE | MpaFrame.ORD_RTR_ZERO_LENGTH_READ)
            | (mpa.irdWord() & MpaFrame.IRD_RTR_ZERO_LENGTH_SEND) : 0;
        final byte[] ulp = new byte[mpa.ulpDataLength()];
        System.arraycopy(whole, mpa.ulpDataOffset(), ulp, 0, ulp.length);
        return new Frame(mpa.flags(), revision, enhanced, ird, ord, peerToPeer, rtr, ulp);
    }

    private static byte[] readFully(final InputStream in, final int length) throws IOException {
        final byte[] bytes = new byte[length];
        int done = 0;
        try {
            while (done < length) {
                final int n = in.read(bytes, done, length - done);
                if (n < 0) {
                    throw new EOFException("connection closed during MPA negotiation");
                }
                done += n;
            }
        } catch (final SocketTimeoutException e) {
            throw new VerbsException(VerbsException.ETIMEDOUT, "timed out waiting for the MPA frame");
        }
        return bytes;
    }
}

package org.rdmablock.target.srp;

import org.rdmablock.verbs.soft.wire.Fpdu;
import org.rdmablock.verbs.soft.wire.FpduHeader;
import org.rdmablock.verbs.soft.wire.MpaFrame;
import org.rdmablock.verbs.soft.wire.RdmapOpcode;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * A hostile initiator on the soft provider's wire: a plain TCP socket that speaks MPA (RFC 5044), DDP (RFC 5041) and
 * RDMAP (RFC 5040) only as far as a test scripts it, so that the test can break the stream at any byte. The frames
 * are built with the provider's own flyweights; what the target answers is read back as bytes.
 */
final class RawIwarpInitiator implements AutoCloseable {
    /** The STag the soft provider takes the RFC 6581 ready-to-receive zero-length RDMA WRITE at. */
    static final int RTR_STAG = 1;
    /** IRD and ORD the request offers (the soft device's limits are higher). */
    private static final int IRD_ORD = 4;

    private final SocketChannel channel;
    private final CRC32C crc = new CRC32C();
    private int sendMsn = 1;

    /** Connects to the target's listening {@code address}; nothing is sent yet. */
    RawIwarpInitiator(final InetSocketAddress address) throws IOException {
        channel = SocketChannel.open(address);
        channel.socket().setTcpNoDelay(true);
    }

    /**
     * An MPA request frame as the soft provider's active side sends it (revision 2, enhanced, CRC, peer-to-peer with a
     * zero-length WRITE as RTR) carrying {@code login} as its ULP private data.
     */
    static ByteBuffer mpaRequest(final byte[] login) {
        final int pdLength = MpaFrame.ENHANCED_LENGTH + login.length;
        final ByteBuffer frame = ByteBuffer.allocate(MpaFrame.HEADER_LENGTH + pdLength).order(ByteOrder.BIG_ENDIAN);
        final MpaFrame mpa = new MpaFrame().wrap(frame, 0).key(MpaFrame.REQUEST_KEY)
                .flags(MpaFrame.FLAG_ENHANCED | MpaFrame.FLAG_CRC).revision(2).privateDataLength(pdLength)
                .irdWord(MpaFrame.IRD_PEER_TO_PEER | IRD_ORD).ordWord(MpaFrame.ORD_RTR_ZERO_LENGTH_WRITE | IRD_ORD);
        frame.put(mpa.ulpDataOffset(), login);
        return frame;
    }

    /** Writes all of {@code bytes}. */
    void write(final ByteBuffer bytes) throws IOException {
        while (bytes.hasRemaining()) {
            channel.write(bytes);
        }
    }

    /** The target's MPA reply: whether it rejected the request, and its ULP private data (an SRP login IU). */
    record Reply(boolean rejected, byte[] privateData) {
    }

    /** Sends the MPA request with {@code login} and reads the reply; the RTR is not sent. */
    Reply request(final byte[] login, final Duration timeout) throws IOException {
        write(mpaRequest(login));
        final byte[] header = read(MpaFrame.HEADER_LENGTH, timeout);
        final MpaFrame mpa = new MpaFrame().wrap(ByteBuffer.wrap(header), 0);
        if (!mpa.hasKey(MpaFrame.REPLY_KEY)) {
            throw new IOException("the target answered with something other than an MPA reply");
        }
        final byte[] privateData = read(mpa.privateDataLength(), timeout);
        final int ulpFrom = mpa.isEnhanced() ? MpaFrame.ENHANCED_LENGTH : 0;
        return new Reply((mpa.flags() & MpaFrame.FLAG_REJECT) != 0, Arrays.copyOfRange(privateData, ulpFrom, privateData.length));
    }

    /**
     * Sends the MPA request with {@code login}, reads the reply and sends the RTR: the connection is then up as far as
     * the target knows.
     *
     * @return the reply's ULP private data (the SRP_LOGIN_RSP)
     * @throws IOException when the target refused the request or closed the connection
     */
    byte[] connect(final byte[] login, final Duration timeout) throws IOException {
        final Reply reply = request(login, timeout);
        if (reply.rejected()) {
            throw new IOException("the target rejected the MPA request");
        }
        write(rtr());
        return reply.privateData();
    }

    /** The RFC 6581 RTR: a zero-length RDMA WRITE to {@link #RTR_STAG}. */
    ByteBuffer rtr() {
        final ByteBuffer fpdu = frame(FpduHeader.TAGGED_LENGTH, new byte[0]);
        new FpduHeader().wrap(fpdu, 0).control(RdmapOpcode.RDMA_WRITE, true, 0).tagged(RTR_STAG, 0);
        return seal(fpdu, FpduHeader.TAGGED_LENGTH, new byte[0]);
    }

    /** A SEND of {@code payload} (one FPDU, the next MSN of the send queue) with a valid CRC; not sent. */
    ByteBuffer send(final byte[] payload) {
        final ByteBuffer fpdu = frame(FpduHeader.UNTAGGED_LENGTH, payload);
        new FpduHeader().wrap(fpdu, 0).control(RdmapOpcode.SEND, true, 0)
                .untagged(0, RdmapOpcode.QN_SEND, sendMsn++, 0);
        return seal(fpdu, FpduHeader.UNTAGGED_LENGTH, payload);
    }

    /**
     * The payload of the next SEND the target sends; other FPDUs (its RTR, heartbeats) are skipped.
     *
     * @return null when none came within {@code timeout}
     * @throws IOException when the target closed the connection first
     */
    byte[] nextSend(final Duration timeout) throws IOException {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            final Duration left = Duration.ofNanos(Math.max(1_000_000, deadline - System.nanoTime()));
            final byte[] length;
            try {
                length = read(Fpdu.LENGTH_SIZE, left);
            } catch (final SocketTimeoutException e) {
                return null;
            }
            final int ulpdu = Fpdu.ulpduLength(ByteBuffer.wrap(length), Fpdu.LENGTH_OFFSET);
            final ByteBuffer fpdu = ByteBuffer.allocate(Fpdu.totalLength(ulpdu)).order(ByteOrder.BIG_ENDIAN).put(length)
                    .put(read(Fpdu.totalLength(ulpdu) - Fpdu.LENGTH_SIZE, timeout));
            final FpduHeader header = new FpduHeader().wrap(fpdu, 0);
            if (header.opcode() == RdmapOpcode.SEND) {
                return Arrays.copyOfRange(fpdu.array(), header.headerLength(), Fpdu.LENGTH_SIZE + ulpdu);
            }
        }
        return null;
    }

    /**
     * Reads and drops what the target sends until it closes the connection.
     *
     * @return true when it closed (or reset) the connection within {@code timeout}, false when it was still open
     */
    boolean closedByTarget(final Duration timeout) throws IOException {
        final long deadline = System.nanoTime() + timeout.toNanos();
        final InputStream in = channel.socket().getInputStream();
        final byte[] sink = new byte[4096];
        while (true) {
            final long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            channel.socket().setSoTimeout((int) Math.max(1, left / 1_000_000));
            try {
                if (in.read(sink) < 0) {
                    return true;
                }
            } catch (final SocketTimeoutException e) {
                return false;
            } catch (final IOException reset) {
                return true;
            }
        }
    }

    private byte[] read(final int length, final Duration timeout) throws IOException {
        channel.socket().setSoTimeout((int) timeout.toMillis());
        final byte[] bytes = channel.socket().getInputStream().readNBytes(length);
        if (bytes.length < length) {
            throw new IOException("the target closed the connection after " + bytes.length + " of " + length + " bytes");
        }
        return bytes;
    }

    private static ByteBuffer frame(final int headerLength, final byte[] payload) {
        final int ulpdu = headerLength - Fpdu.LENGTH_SIZE + payload.length;
        final ByteBuffer fpdu = ByteBuffer.allocate(Fpdu.totalLength(ulpdu)).order(ByteOrder.BIG_ENDIAN);
        Fpdu.ulpduLength(fpdu, Fpdu.LENGTH_OFFSET, ulpdu);
        return fpdu;
    }

    private ByteBuffer seal(final ByteBuffer fpdu, final int headerLength, final byte[] payload) {
        fpdu.put(headerLength, payload);
        Fpdu.seal(crc, fpdu);
        return fpdu;
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}

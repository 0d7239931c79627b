package org.rdmablock.verbs.soft;

import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.zip.CRC32C;

import org.rdmablock.verbs.Await;
import org.rdmablock.verbs.soft.wire.Fpdu;
import org.rdmablock.verbs.soft.wire.FpduHeader;
import org.rdmablock.verbs.soft.wire.MpaFrame;
import org.rdmablock.verbs.soft.wire.RdmapOpcode;
import org.rdmablock.verbs.soft.wire.ReadRequest;

/**
 * A scripted iWARP peer for tests: a plain blocking TCP socket that accepts one soft-provider connection, answers
 * its MPA request (revision 2, enhanced, peer-to-peer, CRC) and then lets the test read and write FPDUs one by
 * one. It plays other implementations' behaviour (Linux siw's, a peer that stops answering) byte for byte, where
 * a second soft provider would always behave like us.
 */
final class WirePeer implements AutoCloseable {
    private final ServerSocketChannel server;
    private SocketChannel channel;
    private final CRC32C crc = new CRC32C();
    private final int[] msn = {1, 1, 1, 1};

    /** One FPDU as received: its ULPDU (DDP/RDMAP header at 0, after the 2-byte length) and its payload length. */
    record Received(FpduHeader header, ByteBuffer ulpdu, int payloadLength) {
        int opcode() {
            return header.opcode();
        }

        /** The Read Request fields of a READ_REQUEST FPDU. */
        ReadRequest readRequest() {
            return new ReadRequest().wrap(ulpdu, 0);
        }
    }

    WirePeer() throws IOException {
        server = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    }

    InetSocketAddress address() throws IOException {
        return (InetSocketAddress) server.getLocalAddress();
    }

    /** Accepts the connection and answers its MPA request with the given IRD and ORD. */
    void accept(final int ird, final int ord) throws IOException {
        channel = server.accept();
        channel.socket().setTcpNoDelay(true);
        final MpaNegotiation.Frame request = MpaNegotiation.read(channel, MpaFrame.REQUEST_KEY, Duration.ofSeconds(10));
        MpaNegotiation.sendReply(channel, request, false, true, ird, ord, new byte[0]);
        channel.socket().setSoTimeout(0);
    }

    /** The next FPDU, read whole (CRC not checked: the soft provider's own reader tests do that). */
    Received next(final Duration timeout) throws IOException {
        channel.socket().setSoTimeout((int) timeout.toMillis());
        try {
            // the socket's own stream: a stream over the channel would ignore the read timeout
            final var in = channel.socket().getInputStream();
            final byte[] length = in.readNBytes(Fpdu.LENGTH_SIZE);
            if (length.length < Fpdu.LENGTH_SIZE) {
                throw new EOFException("the soft side closed the connection");
            }
            final int ulpduLength = (length[0] & 0xFF) << 8 | length[1] & 0xFF;
            final byte[] rest = in.readNBytes(ulpduLength + Fpdu.padLength(ulpduLength) + Fpdu.CRC_SIZE);
            final ByteBuffer fpdu = ByteBuffer.allocate(Fpdu.LENGTH_SIZE + rest.length).order(ByteOrder.BIG_ENDIAN).put(length).put(rest);
            final FpduHeader header = new FpduHeader().wrap(fpdu, 0);
            return new Received(header, fpdu, ulpduLength + Fpdu.LENGTH_SIZE - header.headerLength());
        } catch (final SocketTimeoutException e) {
            return null;
        }
    }

    /** Reads FPDUs until one with {@code opcode} arrives (others are skipped); fails after {@code timeout}. */
    Received await(final int opcode, final Duration timeout) throws IOException {
        // each read may take what is left of the timeout: a read cut short inside an FPDU would lose the stream
        final long deadline = System.nanoTime() + timeout.toNanos();
        return Await.atMost("an FPDU with RDMAP opcode " + opcode, timeout)
            .until(() -> next(Duration.ofNanos(Math.max(1_000_000, deadline - System.nanoTime()))),
                fpdu -> fpdu != null && fpdu.opcode() == opcode);
    }

    /** Sends a READ RESPONSE (one FPDU, Last set) to {@code sinkStag}/{@code sinkOffset} carrying {@code payload}. */
    void sendReadResponse(final int sinkStag, final long sinkOffset, final byte[] payload) throws IOException {
        final ByteBuffer fpdu = begin(FpduHeader.TAGGED_LENGTH, payload);
        new FpduHeader().wrap(fpdu, 0).control(RdmapOpcode.READ_RESPONSE, true, 0).tagged(sinkStag, sinkOffset);
        finish(fpdu, FpduHeader.TAGGED_LENGTH, payload);
    }

    /** Sends a SEND (one FPDU) with the next MSN of the send queue. */
    void sendSend(final byte[] payload) throws IOException {
        write(send(payload));
    }

    /** A SEND (one FPDU) with the next MSN of the send queue, encoded and not sent: the test sends it in pieces. */
    ByteBuffer send(final byte[] payload) {
        final ByteBuffer fpdu = begin(FpduHeader.UNTAGGED_LENGTH, payload);
        new FpduHeader().wrap(fpdu, 0).control(RdmapOpcode.SEND, true, 0)
            .untagged(0, RdmapOpcode.QN_SEND, msn[RdmapOpcode.QN_SEND]++, 0);
        seal(fpdu, FpduHeader.UNTAGGED_LENGTH, payload);
        return fpdu;
    }

    /** Writes {@code bytes} (all of what remains) to the connection. */
    void write(final ByteBuffer bytes) throws IOException {
        while (bytes.hasRemaining()) {
            channel.write(bytes);
        }
    }

    private static ByteBuffer begin(final int headerLength, final byte[] payload) {
        final int ulpdu = headerLength - Fpdu.LENGTH_SIZE + payload.length;
        final ByteBuffer fpdu = ByteBuffer.allocate(Fpdu.totalLength(ulpdu)).order(ByteOrder.BIG_ENDIAN);
        Fpdu.ulpduLength(fpdu, 0, ulpdu);
        return fpdu;
    }

    private void finish(final ByteBuffer fpdu, final int headerLength, final byte[] payload) throws IOException {
        seal(fpdu, headerLength, payload);
        write(fpdu);
    }

    private void seal(final ByteBuffer fpdu, final int headerLength, final byte[] payload) {
        fpdu.put(headerLength, payload);
        Fpdu.seal(crc, fpdu);
    }

    @Override
    public void close() throws IOException {
        if (channel != null) {
            channel.close();
        }
        server.close();
    }
}

package org.rdmablock.verbs.soft;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;

import org.rdmablock.verbs.QueuePairState;

/**
 * The soft device's UDP socket for UD QPs: sends datagrams for any UD QP of the device and, on its I/O agent,
 * receives them and hands each to the destination QP by QP number.
 */
final class DatagramEndpoint implements IoAgent.Endpoint {
    private static final System.Logger LOG = System.getLogger(DatagramEndpoint.class.getName());

    private final SoftDevice device;
    private final DatagramChannel channel;
    private final InetSocketAddress localAddress;
    private final ByteBuffer receiveBuffer = ByteBuffer.allocateDirect(DatagramHeader.LENGTH + SoftDevice.MTU + 1)
        .order(ByteOrder.BIG_ENDIAN);
    private final MemorySegment receiveSegment = MemorySegment.ofBuffer(receiveBuffer);

    DatagramEndpoint(final SoftDevice device, final InetSocketAddress bind, final IoAgent agent) throws IOException {
        this.device = device;
        channel = DatagramChannel.open(StandardProtocolFamily.INET);
        channel.bind(bind);
        channel.configureBlocking(false);
        localAddress = (InetSocketAddress) channel.getLocalAddress();
        agent.register(channel, SelectionKey.OP_READ, this, key -> { });
    }

    InetSocketAddress localAddress() {
        return localAddress;
    }

    /** Sends one datagram; false if the socket buffer was full (UD may drop). Any thread. */
    boolean send(final ByteBuffer datagram, final InetSocketAddress target) {
        try {
            return channel.send(datagram, target) > 0;
        } catch (final IOException e) {
            LOG.log(System.Logger.Level.DEBUG, "UD send to {0} failed: {1}", target, e.getMessage());
            return false;
        }
    }

    @Override
    public int onReady(final SelectionKey key) {
        int work = 0;
        try {
            InetSocketAddress source;
            while ((source = (InetSocketAddress) channel.receive(receiveBuffer.clear())) != null) {
                work++;
                deliver(source, receiveBuffer.position());
            }
        } catch (final IOException e) {
            LOG.log(System.Logger.Level.WARNING, "UD receive failed: {0}", e.getMessage());
        }
        return work;
    }

    private void deliver(final InetSocketAddress source, final int length) {
        if (length < DatagramHeader.LENGTH || receiveBuffer.get(DatagramHeader.VERSION_OFFSET) != DatagramHeader.VERSION) {
            return; // not ours: unreliable datagrams drop what they cannot use
        }
        final int destQpn = receiveBuffer.getInt(DatagramHeader.DEST_QPN_OFFSET);
        if (device.queuePair(destQpn) instanceof SoftDatagramQueuePair qp
            && (qp.state == QueuePairState.RTR || qp.state == QueuePairState.RTS)) {
            qp.receive(source, receiveBuffer, receiveSegment, length);
        }
    }

    void close() {
        try {
            channel.close();
        } catch (final IOException ignored) {
            // closing anyway
        }
    }
}

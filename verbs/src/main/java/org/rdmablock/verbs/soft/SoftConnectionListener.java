package org.rdmablock.verbs.soft;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.rdmablock.verbs.ConnectionId;
import org.rdmablock.verbs.ConnectionListener;
import org.rdmablock.verbs.soft.wire.MpaFrame;

/**
 * A listening soft endpoint: accepts TCP connections on one thread and runs each MPA request exchange on a
 * virtual thread of its own, so a slow or silent peer holds up nobody else.
 */
final class SoftConnectionListener implements ConnectionListener {
    private static final System.Logger LOG = System.getLogger(SoftConnectionListener.class.getName());
    /** How long a new connection may take to send its MPA request (siw allows 5 s too). */
    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(5);

    private final SoftContext context;
    private final ServerSocketChannel server;
    private final InetSocketAddress localAddress;
    private final LinkedBlockingQueue<SoftConnectionId> requests = new LinkedBlockingQueue<>();
    private final Thread acceptor;
    private volatile boolean closed;

    SoftConnectionListener(final SoftContext context, final InetSocketAddress address, final int backlog) {
        this.context = context;
        ServerSocketChannel opened = null;
        try {
            opened = ServerSocketChannel.open();
            opened.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            opened.bind(address, backlog);
            localAddress = (InetSocketAddress) opened.getLocalAddress();
        } catch (final IOException e) {
            closeQuietly(opened);
            throw new UncheckedIOException("cannot listen on " + address.getHostString() + ":" + address.getPort() + ": "
                + e.getMessage() + (e instanceof java.net.BindException && String.valueOf(e.getMessage()).contains("in use")
                ? " (another program holds the port: ss -ltnp shows which)" : ""), e);
        }
        server = opened;
        acceptor = Thread.ofPlatform().daemon().name("soft-cm-listen-" + localAddress.getPort()).start(this::acceptLoop);
    }

    private static void closeQuietly(final ServerSocketChannel channel) {
        if (channel != null) {
            try {
                channel.close();
            } catch (final IOException ignored) {
                // failing anyway
            }
        }
    }

    private void acceptLoop() {
        while (!closed) {
            final SocketChannel accepted;
            try {
                accepted = server.accept();
            } catch (final IOException e) {
                if (!closed) {
                    LOG.log(System.Logger.Level.WARNING, "accept on {0} failed: {1}", localAddress, e.getMessage());
                }
                return;
            }
            Thread.ofVirtual().name("soft-cm-request").start(() -> negotiate(accepted));
        }
    }

    private void negotiate(final SocketChannel accepted) {
        try {
            accepted.setOption(StandardSocketOptions.TCP_NODELAY, true);
            final MpaNegotiation.Frame request = MpaNegotiation.read(accepted, MpaFrame.REQUEST_KEY, REQUEST_TIMEOUT);
            requests.add(new SoftConnectionId(context, accepted, request));
        } catch (final IOException | RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "connection request dropped: {0}", e.getMessage());
            try {
                accepted.close();
            } catch (final IOException ignored) {
                // dropping anyway
            }
        }
    }

    @Override
    public InetSocketAddress localAddress() {
        return localAddress;
    }

    @Override
    public ConnectionId nextRequest(final Duration timeout) throws InterruptedException {
        return requests.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (final IOException ignored) {
            // closing anyway
        }
        SoftConnectionId pending;
        while ((pending = requests.poll()) != null) {
            pending.reject(new byte[0]);
        }
    }
}

package org.rdmablock.tools.perf;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.CompletableFuture;

import org.HdrHistogram.Histogram;

/**
 * The physical limit the soft provider runs on: a raw TCP socket stream and a raw TCP ping-pong on the same
 * loopback, measured the way the RDMA tests are (blocking NIO channels, direct buffers, TCP_NODELAY).
 */
final class TcpBaseline {
    private TcpBaseline() {
    }

    /** Streams {@code iterations} writes of {@code size} bytes; the clock stops at the receiver's one-byte ack. */
    static BandwidthTest.Result stream(final InetAddress address, final int size, final long iterations) throws Exception {
        try (ServerSocketChannel server = ServerSocketChannel.open().bind(new InetSocketAddress(address, 0))) {
            final long total = (long) size * iterations;
            final CompletableFuture<Void> receiver = CompletableFuture.runAsync(() -> {
                try (SocketChannel in = server.accept()) {
                    final ByteBuffer buffer = ByteBuffer.allocateDirect(size);
                    long received = 0;
                    while (received < total) {
                        buffer.clear();
                        final int n = in.read(buffer);
                        if (n < 0) {
                            throw new IOException("stream ended early");
                        }
                        received += n;
                    }
                    in.write(ByteBuffer.allocate(1));
                } catch (final IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            try (SocketChannel out = SocketChannel.open(server.getLocalAddress())) {
                out.setOption(StandardSocketOptions.TCP_NODELAY, true);
                final ByteBuffer buffer = ByteBuffer.allocateDirect(size);
                final long start = System.nanoTime();
                for (long i = 0; i < iterations; i++) {
                    buffer.clear();
                    while (buffer.hasRemaining()) {
                        out.write(buffer);
                    }
                }
                out.read(ByteBuffer.allocate(1));
                final long nanos = System.nanoTime() - start;
                receiver.join();
                return new BandwidthTest.Result(total, iterations, nanos);
            }
        }
    }

    /**
     * Ping-pong of {@code size} bytes; one-way latencies (half round trips) in nanoseconds. Both ends wait for
     * bytes the way the RDMA test waits for completions ({@code poller}), on non-blocking channels, so the
     * comparison measures the protocol stacks and not two different ways of waiting.
     */
    static Histogram pingPong(final InetAddress address, final int size, final int iterations, final Poller poller) throws Exception {
        try (ServerSocketChannel server = ServerSocketChannel.open().bind(new InetSocketAddress(address, 0))) {
            final CompletableFuture<Void> echo = CompletableFuture.runAsync(() -> {
                try (SocketChannel peer = server.accept()) {
                    peer.setOption(StandardSocketOptions.TCP_NODELAY, true);
                    peer.configureBlocking(false);
                    final ByteBuffer buffer = ByteBuffer.allocateDirect(size);
                    for (int i = 0; i < iterations; i++) {
                        readFully(peer, buffer.clear(), poller);
                        buffer.flip();
                        while (buffer.hasRemaining()) {
                            peer.write(buffer);
                        }
                    }
                } catch (final IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            final Histogram histogram = new Histogram(3_600_000_000_000L, 3);
            try (SocketChannel client = SocketChannel.open(server.getLocalAddress())) {
                client.setOption(StandardSocketOptions.TCP_NODELAY, true);
                client.configureBlocking(false);
                final ByteBuffer buffer = ByteBuffer.allocateDirect(size);
                for (int i = 0; i < iterations; i++) {
                    final long start = System.nanoTime();
                    buffer.clear();
                    while (buffer.hasRemaining()) {
                        client.write(buffer);
                    }
                    readFully(client, buffer.clear(), poller);
                    histogram.recordValue((System.nanoTime() - start) / 2);
                }
            }
            echo.join();
            return histogram;
        }
    }

    private static void readFully(final SocketChannel channel, final ByteBuffer buffer, final Poller poller) throws IOException {
        while (buffer.hasRemaining()) {
            final int n = channel.read(buffer);
            if (n < 0) {
                throw new IOException("peer closed");
            }
            if (n == 0) {
                poller.pause();
            }
        }
    }
}

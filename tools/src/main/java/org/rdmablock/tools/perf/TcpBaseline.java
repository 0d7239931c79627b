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
 * loopback. The stream is the best this machine does for the same bytes, a true upper bound: TCP_NODELAY on both ends,
 * socket buffers left to the kernel's autotuning (as the provider leaves them), each message written whole (up to
 * {@link #WRITE_SIZE}) from a direct buffer and read in reads as large: on loopback large writes carry twice the bytes
 * of the provider's 128 KiB staging-sized ones (docs/benchmarks/soft-provider-vs-tcp.md). The ping-pong waits the way
 * the RDMA test does (blocking NIO channels for the stream, non-blocking ones polled for the ping-pong).
 */
final class TcpBaseline {
    /** Bytes per socket write at most: the largest message the comparison sends, written whole. */
    static final int WRITE_SIZE = 1 << 20;
    /** Bytes per socket read at most. */
    static final int READ_SIZE = 1 << 20;

    private TcpBaseline() {
    }

    /**
     * Streams {@code iterations} messages of {@code size} bytes, in writes of {@link #WRITE_SIZE} (or {@code size},
     * when smaller); the clock stops at the receiver's one-byte ack.
     */
    static BandwidthTest.Result stream(final InetAddress address, final int size, final long iterations) throws Exception {
        return stream(address, (long) size * iterations, iterations, Math.min(size, WRITE_SIZE), READ_SIZE);
    }

    /**
     * Streams {@code total} bytes in writes of {@code writeSize} from one direct buffer; the receiver reads into a
     * direct buffer of {@code readSize}. The clock stops at the receiver's one-byte ack.
     *
     * @param messages what the result reports as messages moved
     */
    static BandwidthTest.Result stream(final InetAddress address, final long total, final long messages, final int writeSize,
                                       final int readSize) throws Exception {
        try (ServerSocketChannel server = ServerSocketChannel.open().bind(new InetSocketAddress(address, 0))) {
            final CompletableFuture<Void> receiver = CompletableFuture.runAsync(() -> {
                try (SocketChannel in = server.accept()) {
                    in.setOption(StandardSocketOptions.TCP_NODELAY, true);
                    final ByteBuffer buffer = ByteBuffer.allocateDirect(readSize);
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
                final ByteBuffer buffer = ByteBuffer.allocateDirect(writeSize);
                final long start = System.nanoTime();
                long left = total;
                while (left > 0) {
                    buffer.clear().limit((int) Math.min(writeSize, left));
                    while (buffer.hasRemaining()) {
                        left -= out.write(buffer);
                    }
                }
                out.read(ByteBuffer.allocate(1));
                final long nanos = System.nanoTime() - start;
                receiver.join();
                return new BandwidthTest.Result(total, messages, nanos);
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

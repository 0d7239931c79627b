package org.rdmablock.tools.perf;

import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;

import org.rdmablock.verbs.AccessFlags;
import org.rdmablock.verbs.CompletionQueue;
import org.rdmablock.verbs.ConnectionId;
import org.rdmablock.verbs.ConnectionListener;
import org.rdmablock.verbs.ConnectionParameters;
import org.rdmablock.verbs.DeviceContext;
import org.rdmablock.verbs.MemoryRegion;
import org.rdmablock.verbs.ProtectionDomain;
import org.rdmablock.verbs.QueuePair;
import org.rdmablock.verbs.QueuePairCapabilities;
import org.rdmablock.verbs.QueuePairInitAttributes;
import org.rdmablock.verbs.QueuePairType;
import org.rdmablock.verbs.ReceiveWorkRequest;
import org.rdmablock.verbs.SendFlags;
import org.rdmablock.verbs.SendOpcode;
import org.rdmablock.verbs.SendWorkRequest;
import org.rdmablock.verbs.VerbsProvider;
import org.rdmablock.verbs.WcOpcode;
import org.rdmablock.verbs.WcStatus;
import org.rdmablock.verbs.WorkCompletions;

/**
 * An rping peer (librdmacm's examples/rping.c), so that a provider can be checked against the kernel's own RDMA
 * stack with the kernel's own tool on the other end. Per ping: the client SENDs the address, rkey and size of a
 * buffer holding the ping text ({@code struct rping_rdma_info}: big-endian u64 buf, u32 rkey, u32 size); the
 * server RDMA READs it and SENDs a go-ahead; the client SENDs the address of an empty buffer; the server RDMA
 * WRITEs the text into it and SENDs a go-ahead; the client checks the copy. SEND/RECV both ways, RDMA READ and
 * RDMA WRITE, each served by the peer's transport without its application.
 */
final class Rping {
    /** rping's default port. */
    static final int DEFAULT_PORT = 7174;
    private static final int INFO_SIZE = 16;
    private static final Duration TIMEOUT = Duration.ofSeconds(20);
    private static final ValueLayout.OfLong BE64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt BE32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final VerbsProvider provider;
    private final int size;
    private final PrintStream out;
    private final Arena arena = Arena.ofShared();
    private final WorkCompletions wc = new WorkCompletions(8);
    private CompletionQueue cq;
    private QueuePair qp;
    private MemoryRegion sendInfo;
    private MemoryRegion receiveInfo;
    private MemoryRegion start;
    private MemoryRegion rdma;
    private final ReceiveWorkRequest receive = new ReceiveWorkRequest();
    /**
     * RECV completions polled while waiting for another completion. The peer may answer (its WRITE and SEND) before
     * our SEND's own completion arrives: the responder is free to send its own messages ahead of the READ response
     * that confirms our SEND. rping.c keeps them in its state machine; this counter does the same.
     */
    private int receivedEarly;

    Rping(final VerbsProvider provider, final int size, final PrintStream out) {
        if (size < 24) {
            throw new IllegalArgumentException("rping buffers hold at least 24 bytes");
        }
        this.provider = provider;
        this.size = size;
        this.out = out;
    }

    private void setUp(final ConnectionId id) {
        final DeviceContext context = id.context();
        final ProtectionDomain pd = context.allocateProtectionDomain();
        cq = context.createCompletionQueue(64, null);
        final int access = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_WRITE;
        sendInfo = pd.registerMemory(arena.allocate(INFO_SIZE, 8), AccessFlags.LOCAL_WRITE);
        receiveInfo = pd.registerMemory(arena.allocate(INFO_SIZE, 8), AccessFlags.LOCAL_WRITE);
        start = pd.registerMemory(arena.allocate(size, 64), access);
        rdma = pd.registerMemory(arena.allocate(size, 64), access);
        qp = id.createQueuePair(pd, new QueuePairInitAttributes(QueuePairType.RC, cq, cq, null,
            new QueuePairCapabilities(16, 2, 1, 1, 0), false));
        receive.sgl().add(receiveInfo, 0, INFO_SIZE);
        qp.postReceive(receive);
    }

    private static ConnectionParameters parameters() {
        return new ConnectionParameters(new byte[0], 1, 1, 7, 7);
    }

    /** Client: {@code count} pings to {@code server}, each checked; returns the pings done. */
    int client(final InetSocketAddress server, final int count) {
        return client(server, count, 0);
    }

    /** As {@link #client(InetSocketAddress, int)}, numbering the pings' text from {@code firstPing} (tests). */
    int client(final InetSocketAddress server, final int count, final int firstPing) {
        final ConnectionId id = provider.connectionManager().resolve(server, TIMEOUT);
        setUp(id);
        id.connect(parameters(), TIMEOUT);
        int startChar = 65;
        for (int ping = 0; ping < count; ping++) {
            final byte[] text = pingText(firstPing + ping, startChar);
            startChar = startChar >= 122 ? 65 : startChar + 1;
            MemorySegment.copy(text, 0, start.segment(), ValueLayout.JAVA_BYTE, 0, size);
            rdma.segment().fill((byte) 0);
            if (!sendInfo(start) || !awaitReceive()) {
                throw new IllegalStateException("the server went away before reading ping " + ping);
            }
            if (!sendInfo(rdma) || !awaitReceive()) {
                throw new IllegalStateException("the server went away before echoing ping " + ping);
            }
            final byte[] echoed = rdma.segment().toArray(ValueLayout.JAVA_BYTE);
            if (!Arrays.equals(text, echoed)) {
                throw new IllegalStateException("ping " + ping + ": data mismatch\n sent " + printable(text) + "\n got  " + printable(echoed));
            }
            out.println("ping data: " + printable(Arrays.copyOf(text, size - 1)));
        }
        id.disconnect();
        return count;
    }

    /** rping.c's pattern: "rdma-ping-N: " then letters from {@code startChar} cycling A..z, NUL-terminated. */
    private byte[] pingText(final int ping, final int startChar) {
        final byte[] text = new byte[size];
        final byte[] head = ("rdma-ping-" + ping + ": ").getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(head, 0, text, 0, Math.min(head.length, size));
        int c = startChar;
        for (int i = head.length; i < size; i++) {
            text[i] = (byte) c;
            c = c >= 122 ? 65 : c + 1;
        }
        text[size - 1] = 0;
        return text;
    }

    /**
     * Server: accepts one client and answers its pings until it disconnects; returns the pings served. Each ping
     * the server RDMA-READs is compared with rping.c's pattern for that ping number (the text {@link #client} and
     * rping.c's client both write); a mismatch throws. The echo's correctness is the client's to check (rping -V).
     */
    int server(final InetSocketAddress address) throws InterruptedException {
        try (ConnectionListener listener = provider.connectionManager().listen(address, 4)) {
            out.println("rping server listening on " + listener.localAddress());
            final ConnectionId id = listener.nextRequest(Duration.ofSeconds(60));
            if (id == null) {
                throw new IllegalStateException("no rping client within 60 s");
            }
            setUp(id);
            id.accept(parameters());
            int served = 0;
            int startChar = 65;
            while (true) {
                if (!awaitReceiveOrDisconnect(id)) {
                    return served;
                }
                final long addr = receiveInfo.segment().get(BE64, 0);
                final int rkey = receiveInfo.segment().get(BE32, 8);
                final int length = receiveInfo.segment().get(BE32, 12);
                transfer(SendOpcode.RDMA_READ, addr, rkey, Math.min(length, size));
                final byte[] expected = pingText(served, startChar);
                startChar = startChar >= 122 ? 65 : startChar + 1;
                final byte[] read = rdma.segment().asSlice(0, Math.min(length, size)).toArray(ValueLayout.JAVA_BYTE);
                if (!Arrays.equals(Arrays.copyOf(expected, read.length), read)) {
                    id.disconnect(); // the client learns at once, not at its timeout
                    throw new IllegalStateException("ping " + served + ": the data read differs from rping's pattern\n expected "
                        + printable(expected) + "\n read     " + printable(read));
                }
                if (!sendInfo(start)) { // go ahead
                    return served;
                }
                if (!awaitReceiveOrDisconnect(id)) {
                    return served;
                }
                final long sink = receiveInfo.segment().get(BE64, 0);
                final int sinkKey = receiveInfo.segment().get(BE32, 8);
                final int text = (int) Math.min(size, strlen(rdma.segment()) + 1);
                transfer(SendOpcode.RDMA_WRITE, sink, sinkKey, text);
                served++; // the echo is in the client's memory
                if (!sendInfo(start)) { // go ahead
                    return served;
                }
            }
        }
    }

    private static long strlen(final MemorySegment segment) {
        for (long i = 0; i < segment.byteSize(); i++) {
            if (segment.get(ValueLayout.JAVA_BYTE, i) == 0) {
                return i;
            }
        }
        return segment.byteSize();
    }

    private void transfer(final SendOpcode opcode, final long remote, final int rkey, final int length) {
        final SendWorkRequest wr = new SendWorkRequest().opcode(opcode).flags(SendFlags.SIGNALED).remote(remote, rkey);
        wr.sgl().add(rdma, 0, length);
        qp.postSend(wr);
        awaitCompletion(opcode == SendOpcode.RDMA_READ ? WcOpcode.RDMA_READ : WcOpcode.RDMA_WRITE);
    }

    /**
     * Sends the buffer advertisement and awaits its completion; false when it was flushed because the peer
     * disconnected first (a client that has its last echo may leave before our provider learns the SEND arrived;
     * rping.c ignores such flushes too).
     */
    private boolean sendInfo(final MemoryRegion buffer) {
        sendInfo.segment().set(BE64, 0, buffer.address());
        sendInfo.segment().set(BE32, 8, buffer.rkey());
        sendInfo.segment().set(BE32, 12, size);
        final SendWorkRequest wr = new SendWorkRequest().opcode(SendOpcode.SEND).flags(SendFlags.SIGNALED);
        wr.sgl().add(sendInfo, 0, INFO_SIZE);
        qp.postSend(wr);
        return awaitCompletion(WcOpcode.SEND, true);
    }

    /** Awaits the server's next advertisement and reposts the receive; false when flushed. */
    private boolean awaitReceive() {
        if (receivedEarly > 0) {
            receivedEarly--;
        } else if (!awaitCompletion(WcOpcode.RECV, true)) {
            return false;
        }
        qp.postReceive(receive);
        return true;
    }

    private boolean awaitReceiveOrDisconnect(final ConnectionId id) {
        if (receivedEarly > 0) {
            receivedEarly--;
            qp.postReceive(receive);
            return true;
        }
        final long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (id.state() == ConnectionId.State.CONNECTED && System.nanoTime() < deadline) {
            final int n = cq.poll(wc, 1);
            if (n == 1) {
                if (!wc.isSuccess(0)) {
                    return false; // flushed: the client went away
                }
                if (wc.opcode(0) == WcOpcode.RECV) {
                    qp.postReceive(receive);
                    return true;
                }
            } else {
                Poller.YIELD.pause();
            }
        }
        return false;
    }

    /** Waits for the completion of {@code opcode}; a RECV that comes first is kept for the next receive wait, other successes skipped. */
    private void awaitCompletion(final WcOpcode opcode) {
        awaitCompletion(opcode, false);
    }

    /** As {@link #awaitCompletion(WcOpcode)}; a WR_FLUSH_ERR returns false when {@code flushEnds}, else throws. */
    private boolean awaitCompletion(final WcOpcode opcode, final boolean flushEnds) {
        final long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            if (cq.poll(wc, 1) == 1) {
                if (!wc.isSuccess(0)) {
                    if (flushEnds && wc.status(0) == WcStatus.WR_FLUSH_ERR) {
                        return false;
                    }
                    throw new IllegalStateException("work request failed: " + wc.toString(0));
                }
                if (wc.opcode(0) == opcode) {
                    return true;
                }
                if (wc.opcode(0) == WcOpcode.RECV) {
                    receivedEarly++; // its data stays in the receive buffer: one receive is posted at a time
                }
            } else {
                Poller.YIELD.pause();
            }
        }
        throw new IllegalStateException("no " + opcode + " completion within " + TIMEOUT);
    }

    private static String printable(final byte[] bytes) {
        final StringBuilder sb = new StringBuilder();
        for (final byte b : bytes) {
            sb.append(b >= 32 && b < 127 ? (char) b : '.');
        }
        return sb.toString();
    }
}

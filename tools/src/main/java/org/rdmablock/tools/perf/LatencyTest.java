package org.rdmablock.tools.perf;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

import org.HdrHistogram.Histogram;
import org.rdmablock.verbs.QueuePair;
import org.rdmablock.verbs.ReceiveWorkRequest;
import org.rdmablock.verbs.SendFlags;
import org.rdmablock.verbs.SendOpcode;
import org.rdmablock.verbs.SendWorkRequest;
import org.rdmablock.verbs.WcOpcode;
import org.rdmablock.verbs.WorkCompletions;

/**
 * Ping-pong latency, as {@code ib_send_lat} and {@code ib_write_lat} measure it: the client sends, the server
 * answers as soon as it sees the message, and half of each round trip is recorded (one-way latency).
 * SEND: each side waits for a receive completion. WRITE: each side polls the last byte of its buffer, which the
 * peer's RDMA WRITE fills with a sequence number.
 */
final class LatencyTest {
    private static final VarHandle BYTE = ValueLayout.JAVA_BYTE.varHandle();
    /** Every this-many sends is signaled, so that send queue slots are reclaimed without a completion per send. */
    private static final int SIGNAL_EVERY = 32;

    private final Link link;
    private final SendOpcode opcode;
    private final int size;
    private final Poller poller;

    LatencyTest(final Link link, final SendOpcode opcode, final int size, final Poller poller) {
        if (opcode != SendOpcode.SEND && opcode != SendOpcode.RDMA_WRITE) {
            throw new IllegalArgumentException("latency is measured for SEND and RDMA_WRITE, not " + opcode);
        }
        if (2L * Math.max(1, size) > link.client.buffer.segment().byteSize()) {
            throw new IllegalArgumentException(size + "-byte messages need a buffer of twice that");
        }
        this.link = link;
        this.opcode = opcode;
        this.size = Math.max(1, size);
        this.poller = poller;
    }

    /** Runs {@code iterations} round trips; the histogram holds one-way latencies in nanoseconds. */
    Histogram run(final int iterations) throws InterruptedException {
        final Histogram histogram = new Histogram(3_600_000_000_000L, 3);
        final Thread responder = Thread.ofPlatform().name("perf-responder").start(() -> respond(iterations));
        final Side side = new Side(link.client);
        try {
            for (int i = 0; i < iterations; i++) {
                final long start = System.nanoTime();
                side.send(i);
                side.awaitMessage(i);
                histogram.recordValue((System.nanoTime() - start) / 2);
            }
        } finally {
            responder.join();
        }
        return histogram;
    }

    private void respond(final int iterations) {
        final Side side = new Side(link.server);
        for (int i = 0; i < iterations; i++) {
            side.awaitMessage(i);
            side.send(i);
        }
    }

    /** One end's reusable requests and wait logic. */
    private final class Side {
        private final QueuePair qp;
        private final Link.End end;
        private final boolean twoSided;
        private final SendWorkRequest send;
        private final ReceiveWorkRequest receive = new ReceiveWorkRequest();
        private final WorkCompletions wc = new WorkCompletions(16);
        private final MemorySegment inbox;

        Side(final Link.End end) {
            this.qp = end.qp;
            this.end = end;
            this.twoSided = opcode == SendOpcode.SEND;
            this.inbox = end.buffer.segment();
            send = new SendWorkRequest().opcode(opcode).remote(end.peerAddress + size, end.peerRkey);
            send.sgl().add(end.buffer, 0, size);
            // Receives take the buffer's second half whatever the size: those an earlier size posted stay valid.
            final int half = (int) (inbox.byteSize() / 2);
            receive.sgl().add(end.buffer, half, half);
            if (twoSided && !end.receivesPosted) {
                for (int i = 0; i < 64; i++) {
                    qp.postReceive(receive);
                }
                end.receivesPosted = true;
            }
        }

        void send(final int sequence) {
            end.buffer.segment().set(ValueLayout.JAVA_BYTE, size - 1, (byte) (sequence + 1));
            final boolean signaled = (sequence + 1) % SIGNAL_EVERY == 0;
            send.flags(signaled ? SendFlags.SIGNALED | inlineFlag() : inlineFlag());
            qp.postSend(send);
            if (signaled || (sequence + 1) % SIGNAL_EVERY == SIGNAL_EVERY / 2) {
                // reap now and then (the signaled send's completion may come later): frees send queue slots
                Poller.check(wc, end.sendCq.poll(wc));
            }
        }

        private int inlineFlag() {
            return size <= 64 ? SendFlags.INLINE : 0;
        }

        void awaitMessage(final int sequence) {
            if (twoSided) {
                while (true) {
                    final int n = poller.await(end.receiveCq, wc);
                    if (n > 0 && wc.opcode(0) == WcOpcode.RECV) {
                        qp.postReceive(receive);
                        return;
                    }
                }
            }
            final byte expected = (byte) (sequence + 1);
            long deadline = 0;
            while ((byte) BYTE.getVolatile(inbox, (long) size + size - 1) != expected) {
                poller.pause();
                deadline = Poller.checkStall(deadline, "RDMA WRITE");
            }
        }
    }
}

package org.rdmablock.tools.perf;

import org.rdmablock.verbs.SendFlags;
import org.rdmablock.verbs.SendOpcode;
import org.rdmablock.verbs.SendWorkRequest;
import org.rdmablock.verbs.WorkCompletions;

/**
 * RDMA WRITE or READ bandwidth, as {@code ib_write_bw} / {@code ib_read_bw} measure it: one QP keeps
 * {@code depth} requests of {@code size} bytes in flight, posted in chains of up to {@link #CHAIN}, every
 * {@code signalEvery}-th signaled, and the clock stops when the last one has completed (for RC: been placed at
 * the peer).
 */
final class BandwidthTest {
    /** Measured bytes, messages and time. */
    record Result(long bytes, long messages, long nanos) {
        double megabytesPerSecond() {
            return bytes / (nanos / 1e9) / 1e6;
        }

        double messagesPerSecond() {
            return messages / (nanos / 1e9);
        }
    }

    private final Link link;
    private final SendOpcode opcode;
    private final int size;
    private final int depth;
    private final int signalEvery;
    private final Poller poller;

    BandwidthTest(final Link link, final SendOpcode opcode, final int size, final int depth, final Poller poller) {
        this.link = link;
        this.opcode = opcode;
        this.size = size;
        this.depth = depth;
        this.signalEvery = Math.max(1, Math.min(64, depth / 2));
        this.poller = poller;
    }

    /** Requests posted per call, linked into one chain, as a NIC driver rings one doorbell for several. */
    static final int CHAIN = 16;

    /** Transfers {@code iterations} messages; returns the time they took. */
    Result run(final long iterations) {
        final SendWorkRequest[] chain = new SendWorkRequest[CHAIN];
        for (int i = 0; i < CHAIN; i++) {
            chain[i] = new SendWorkRequest().opcode(opcode).remote(link.client.peerAddress, link.client.peerRkey);
            chain[i].sgl().add(link.client.buffer, 0, size);
        }
        final WorkCompletions wc = new WorkCompletions(64);
        long posted = 0;
        long completed = 0;
        final long start = System.nanoTime();
        while (completed < iterations) {
            final int count = (int) Math.min(CHAIN, Math.min(iterations - posted, depth - (posted - completed)));
            if (count > 0) {
                for (int i = 0; i < count; i++) {
                    final long id = posted + i;
                    final boolean signaled = (id + 1) % signalEvery == 0 || id == iterations - 1;
                    chain[i].wrId(id).flags(signaled ? SendFlags.SIGNALED : 0).next(i + 1 < count ? chain[i + 1] : null);
                }
                link.client.qp.postSend(chain[0]);
                posted += count;
            }
            if (posted - completed >= depth || posted == iterations) {
                final int n = poller.await(link.client.sendCq, wc);
                for (int i = 0; i < n; i++) {
                    completed = Math.max(completed, wc.wrId(i) + 1);
                }
            }
        }
        return new Result(iterations * size, iterations, System.nanoTime() - start);
    }
}

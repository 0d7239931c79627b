package org.rdmablock.verbs.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rdmablock.verbs.Await;
import org.rdmablock.verbs.ConnectionParameters;
import org.rdmablock.verbs.MemoryRegion;
import org.rdmablock.verbs.QueuePairState;
import org.rdmablock.verbs.ReceiveWorkRequest;
import org.rdmablock.verbs.WcStatus;
import org.rdmablock.verbs.WorkCompletions;
import org.rdmablock.verbs.soft.wire.Fpdu;

/**
 * A SEND that the QP had begun to place when the stream broke (a bad CRC, a peer silent in the middle of the frame):
 * the receive it was being placed into had left the receive queue, and it completes with WR_FLUSH_ERR before the
 * queued ones, so that every posted receive completes once, in order, whichever thread found the break (the I/O
 * agent, or a thread polling the CQ that read the stream itself). A consumer that counts its posted receives (the target
 * frees a channel when they are all back) would otherwise wait for it forever.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ReceiveInProgressFlushTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final int RECEIVES = 3;

    private static ScriptedConnection connect() throws Exception {
        return new ScriptedConnection(new ConnectionParameters(new byte[0], 4, 4, 3, 7), qp -> { }, 4);
    }

    /** Posts {@link #RECEIVES} receives of 64 bytes, wr_id 1, 2, 3. */
    private static void postReceives(final ScriptedConnection c) {
        final MemoryRegion sink = c.register(64 * RECEIVES);
        for (int i = 0; i < RECEIVES; i++) {
            final ReceiveWorkRequest receive = new ReceiveWorkRequest().wrId(i + 1);
            receive.sgl().add(sink, 64L * i, 64);
            c.qp.postReceive(receive);
        }
    }

    /** Every posted receive's completion, in the order the CQ gives them: "wr_id status". */
    private static List<String> allReceivesBack(final ScriptedConnection c) {
        final List<String> seen = new ArrayList<>();
        final WorkCompletions wc = new WorkCompletions(RECEIVES);
        Await.atMost("every posted receive completed", TIMEOUT).until(() -> {
            final int n = c.cq.poll(wc, RECEIVES);
            for (int i = 0; i < n; i++) {
                seen.add(wc.wrId(i) + " " + wc.status(i));
            }
            return seen.size();
        }, n -> n >= RECEIVES);
        return seen;
    }

    /**
     * The same, the CQ spun on while the frame arrives, so that the spinning thread reads the stream itself
     * ({@link SoftCompletionQueue#POLL_PROGRESS}) and finds the bad CRC: the flush runs on that thread, not the agent.
     */
    private static List<String> allReceivesBackSpinning(final ScriptedConnection c, final ByteBuffer frame) throws Exception {
        final List<String> seen = new ArrayList<>();
        final WorkCompletions wc = new WorkCompletions(RECEIVES);
        final long deadline = System.nanoTime() + TIMEOUT.toNanos();
        final Thread writer = Thread.ofPlatform().start(() -> {
            try {
                c.peer.write(frame);
            } catch (final java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        while (seen.size() < RECEIVES && System.nanoTime() < deadline) {
            final int n = c.cq.poll(wc, RECEIVES);
            for (int i = 0; i < n; i++) {
                seen.add(wc.wrId(i) + " " + wc.status(i));
            }
        }
        writer.join();
        return seen;
    }

    /** A SEND of 40 bytes from the peer whose CRC trailer is wrong. */
    private static ByteBuffer sendWithABadCrc(final ScriptedConnection c) {
        final ByteBuffer fpdu = c.peer.send(new byte[40]);
        final int crcAt = fpdu.capacity() - Fpdu.CRC_SIZE;
        fpdu.put(crcAt, (byte) ~fpdu.get(crcAt));
        return fpdu;
    }

    private static final List<String> ALL_FLUSHED_IN_ORDER =
        List.of("1 " + WcStatus.WR_FLUSH_ERR, "2 " + WcStatus.WR_FLUSH_ERR, "3 " + WcStatus.WR_FLUSH_ERR);

    @RepeatedTest(10) // which thread finds the bad CRC is a race: repeated, the wrong order shows
    void aSendWithABadCrcFlushesTheReceiveItWasPlacedIn() throws Exception {
        try (ScriptedConnection c = connect()) {
            postReceives(c);
            c.peer.write(sendWithABadCrc(c));
            assertEquals(ALL_FLUSHED_IN_ORDER, allReceivesBack(c));
            assertEquals(QueuePairState.ERR, c.qp.state());
        }
    }

    @RepeatedTest(10) // which thread finds the bad CRC is a race: repeated, the wrong order shows
    void aBadCrcFoundByAThreadSpinningOnTheCqFlushesInOrderToo() throws Exception {
        try (ScriptedConnection c = connect()) {
            postReceives(c);
            assertEquals(ALL_FLUSHED_IN_ORDER, allReceivesBackSpinning(c, sendWithABadCrc(c)));
        }
    }

    @Test
    void aSendCutShortByASilentPeerFlushesItsReceiveToo() throws Exception {
        System.setProperty(Configuration.FRAME_TIMEOUT_MILLIS_PROP_NAME, "600");
        try (ScriptedConnection c = connect()) {
            postReceives(c);
            c.peer.write(c.peer.send(new byte[40]).slice(0, 30));
            assertTrue(c.id.awaitDisconnect(TIMEOUT), "dropped after the frame timeout");
            assertEquals(ALL_FLUSHED_IN_ORDER, allReceivesBack(c));
        } finally {
            System.clearProperty(Configuration.FRAME_TIMEOUT_MILLIS_PROP_NAME);
        }
    }
}

package org.rdmablock.verbs.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rdmablock.verbs.ConnectionParameters;
import org.rdmablock.verbs.MemoryRegion;
import org.rdmablock.verbs.ReceiveWorkRequest;
import org.rdmablock.verbs.WcStatus;
import org.rdmablock.verbs.WorkCompletions;

/**
 * While a thread spins on a QP's CQ, the I/O agent leaves the socket to it (it reads as it polls); when that thread
 * arms the CQ and sleeps on the completion channel, the agent must read again at once. It used to wait for the
 * hand-off timer (1 ms), which every initiator and target waiting on events paid per I/O. Here the timer is set to
 * a minute, so a message that only the timer would deliver misses the 10 s wait.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PollerSleepHandOffTest {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final int RECEIVES = 32;
    private static final int SIZE = 64;

    @Test
    void aPollerThatGoesToSleepGetsTheNextMessageWithoutTheHandOffTimer() throws Exception {
        final long saved = InboundStream.pollHandOffNanos;
        InboundStream.pollHandOffNanos = TimeUnit.MINUTES.toNanos(1);
        try (ScriptedConnection c = new ScriptedConnection(ConnectionParameters.of(new byte[0]), qp -> { }, 1, true)) {
            final MemoryRegion buffers = c.register(RECEIVES * SIZE);
            for (int i = 0; i < RECEIVES; i++) {
                final ReceiveWorkRequest wr = new ReceiveWorkRequest().wrId(i);
                wr.sgl().add(buffers, (long) i * SIZE, SIZE);
                c.qp.postReceive(wr);
            }
            final InboundStream inbound = ((SoftConnectedQueuePair) c.qp).inbound;
            final WorkCompletions wc = new WorkCompletions(RECEIVES);

            // Spin on the CQ while the peer sends, until the agent has seen input and left the reading to us.
            int sent = 0;
            int received = 0;
            final long deadline = System.nanoTime() + WAIT.toNanos();
            while (inbound.handOffDeadline == Long.MAX_VALUE && sent < RECEIVES - 1 && System.nanoTime() < deadline) {
                c.peer.sendSend(new byte[] {(byte) sent});
                sent++;
                received += spinUntil(c, wc, sent - received);
            }
            assertNotEquals(Long.MAX_VALUE, inbound.handOffDeadline,
                "the agent never handed the reading to the spinning poller (" + sent + " messages)");
            assertEquals(sent, received, "messages received while spinning");

            // Now sleep as an event-driven poller does: arm, poll once more, wait on the channel.
            c.cq.requestNotify(false);
            assertEquals(0, c.cq.poll(wc, RECEIVES));
            c.peer.sendSend(new byte[] {(byte) 0x5a});
            assertSame(c.cq, c.channel.awaitEvent(WAIT),
                "the message waited for the hand-off timer: nobody read the socket while the poller slept");
            assertEquals(1, c.cq.poll(wc, RECEIVES));
            assertEquals(WcStatus.SUCCESS, wc.status(0), wc.toString(0));
            assertEquals(sent, wc.wrId(0));
            assertEquals(1, wc.byteLength(0));
            assertEquals((byte) 0x5a, buffers.segment().get(java.lang.foreign.ValueLayout.JAVA_BYTE, (long) sent * SIZE));
        } finally {
            InboundStream.pollHandOffNanos = saved;
        }
    }

    /** Polls without pause until {@code expected} completions came (or the wait ran out); returns how many came. */
    private static int spinUntil(final ScriptedConnection c, final WorkCompletions wc, final int expected) {
        int got = 0;
        final long deadline = System.nanoTime() + WAIT.toNanos();
        while (got < expected && System.nanoTime() < deadline) {
            final int n = c.cq.poll(wc, RECEIVES);
            for (int i = 0; i < n; i++) {
                assertEquals(WcStatus.SUCCESS, wc.status(i), wc.toString(i));
            }
            got += n;
        }
        // a few more empty polls, so that the poll clock reads "spinning" when the next message comes
        for (int i = 0; i < 64; i++) {
            got += c.cq.poll(wc, RECEIVES);
        }
        return got;
    }
}

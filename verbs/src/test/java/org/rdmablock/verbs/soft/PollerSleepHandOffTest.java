package org.rdmablock.verbs.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

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
 *
 * <p>The peer sends from its own thread while this one spins without a gap: the agent hands off only when the CQ
 * was polled within the last 50 µs, which a sender on the polling thread itself (a socket write between polls) did
 * not reliably give on a loaded machine.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PollerSleepHandOffTest {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final int RECEIVES = 32;
    private static final int SIZE = 64;
    private static final byte LAST = (byte) 0x5a;

    @Test
    void aPollerThatGoesToSleepGetsTheNextMessageWithoutTheHandOffTimer() throws Exception {
        final SoftProvider provider = new SoftProvider(Configuration.address(), TimeUnit.MINUTES.toNanos(1));
        try (ScriptedConnection c = new ScriptedConnection(provider, ConnectionParameters.of(new byte[0]), qp -> { }, 1, true)) {
            final MemoryRegion buffers = c.register(RECEIVES * SIZE);
            for (int i = 0; i < RECEIVES; i++) {
                postReceive(c, buffers, i);
            }
            final InboundStream inbound = ((SoftConnectedQueuePair) c.qp).inbound;
            final WorkCompletions wc = new WorkCompletions(RECEIVES);

            // Spin on the CQ while the peer sends (never more than the receives posted), until the agent has seen
            // input and left the reading to us. The loops below bound their time by hand, not through Await: the
            // point is a spin without a gap (Awaitility sleeps between polls, which would let the agent keep reading).
            final AtomicBoolean handedOff = new AtomicBoolean();
            final AtomicInteger sent = new AtomicInteger();
            final AtomicInteger received = new AtomicInteger();
            final AtomicReference<Throwable> senderFailure = new AtomicReference<>();
            final long deadline = System.nanoTime() + WAIT.toNanos();
            final Thread sender = Thread.ofPlatform().name("peer-sender").start(() -> {
                try {
                    while (!handedOff.get() && System.nanoTime() < deadline) {
                        if (sent.get() - received.get() < RECEIVES / 2) {
                            c.peer.sendSend(new byte[] {(byte) sent.get()});
                            sent.incrementAndGet();
                        }
                        LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(200));
                    }
                } catch (final Throwable t) {
                    senderFailure.set(t);
                }
            });
            while (inbound.handOffDeadline == Long.MAX_VALUE && sender.isAlive() && System.nanoTime() < deadline) {
                received.addAndGet(pollAndRepost(c, buffers, wc));
            }
            final boolean gotHandOff = inbound.handOffDeadline != Long.MAX_VALUE;
            handedOff.set(true);
            sender.join(WAIT.toMillis());
            assertEquals(null, senderFailure.get(), "the peer's sends");
            assertTrue(gotHandOff, "the agent never handed the reading to the spinning poller (" + sent.get() + " messages)");
            // what was sent before the sender stopped, read while this thread keeps spinning
            while (received.get() < sent.get() && System.nanoTime() < deadline) {
                received.addAndGet(pollAndRepost(c, buffers, wc));
            }
            assertEquals(sent.get(), received.get(), "messages received while spinning");

            // Now sleep as an event-driven poller does: arm, poll once more, wait on the channel.
            c.cq.requestNotify(false);
            assertEquals(0, c.cq.poll(wc, RECEIVES));
            c.peer.sendSend(new byte[] {LAST});
            assertSame(c.cq, c.channel.awaitEvent(WAIT),
                "the message waited for the hand-off timer: nobody read the socket while the poller slept");
            assertEquals(1, c.cq.poll(wc, RECEIVES));
            assertEquals(WcStatus.SUCCESS, wc.status(0), wc.toString(0));
            assertEquals(1, wc.byteLength(0));
            assertEquals(LAST, buffers.segment().get(ValueLayout.JAVA_BYTE, wc.wrId(0) * SIZE));
        }
    }

    /** One poll; every receive completed goes back on the queue with the same buffer slot. Returns how many came. */
    private static int pollAndRepost(final ScriptedConnection c, final MemoryRegion buffers, final WorkCompletions wc) {
        final int n = c.cq.poll(wc, RECEIVES);
        for (int i = 0; i < n; i++) {
            assertEquals(WcStatus.SUCCESS, wc.status(i), wc.toString(i));
            assertTrue(wc.wrId(i) >= 0 && wc.wrId(i) < RECEIVES, wc.toString(i));
            postReceive(c, buffers, (int) wc.wrId(i));
        }
        return n;
    }

    private static void postReceive(final ScriptedConnection c, final MemoryRegion buffers, final int slot) {
        final ReceiveWorkRequest wr = new ReceiveWorkRequest().wrId(slot);
        wr.sgl().add(buffers, (long) slot * SIZE, SIZE);
        c.qp.postReceive(wr);
    }
}

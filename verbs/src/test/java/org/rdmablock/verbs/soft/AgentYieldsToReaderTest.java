package org.rdmablock.verbs.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rdmablock.verbs.Await;
import org.rdmablock.verbs.ConnectionParameters;
import org.rdmablock.verbs.MemoryRegion;
import org.rdmablock.verbs.ReceiveWorkRequest;
import org.rdmablock.verbs.WcStatus;
import org.rdmablock.verbs.WorkCompletions;

/**
 * A thread polling the QP's CQ reads the stream itself (receive ownership, {@link InboundStream#progress}) even when
 * its polls are too far apart for the agent to hand the socket over to it, as when each poll brings a 1 MiB transfer.
 * The agent, finding the socket readable and the stream held, used to come straight back to the level-triggered
 * selector, again and again while the holder read: some 100 000 futile selects a second on each side of a 1 MiB
 * transfer, a third of a core on a machine of two (and half the bench's 1 MiB write throughput). Now it stops
 * watching for input until the hand-off time is up (a minute here) or the holder goes to sleep.
 *
 * <p>This test holds the stream as a reading poller does ({@code rxOwner}), lets the peer send, and measures the
 * agent's CPU time meanwhile; then checks that nothing waits for the long hand-off time: a poller that goes on
 * polling reads the message, and a poller that arms its CQ while it still holds the stream, lets go in its last poll
 * and sleeps gets the next message from the agent at once.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AgentYieldsToReaderTest {
    private static final Duration WAIT = Duration.ofSeconds(10);
    /** Measured window, and the agent CPU time allowed in it: a spinning agent takes most of the window. */
    private static final long WINDOW_MILLIS = 500;
    private static final long MAX_AGENT_CPU_MILLIS = 50;
    /** Polls of the agent's state during the measured window: rare, so that this thread costs little. */
    private static final Duration WINDOW_POLL = Duration.ofMillis(50);
    private static final int RECEIVES = 4;
    private static final int SIZE = 64;

    @Test
    void theAgentDoesNotSpinWhileAPollerHoldsTheStream() throws Exception {
        final SoftProvider provider = new SoftProvider(Configuration.address(), TimeUnit.MINUTES.toNanos(1));
        try (ScriptedConnection c = new ScriptedConnection(provider, ConnectionParameters.of(new byte[0]), qp -> { }, 1, true)) {
            final MemoryRegion buffers = c.register(RECEIVES * SIZE);
            for (int i = 0; i < RECEIVES; i++) {
                final ReceiveWorkRequest wr = new ReceiveWorkRequest().wrId(i);
                wr.sgl().add(buffers, (long) i * SIZE, SIZE);
                c.qp.postReceive(wr);
            }
            final SoftConnectedQueuePair qp = (SoftConnectedQueuePair) c.qp;
            final InboundStream inbound = qp.inbound;
            final WorkCompletions wc = new WorkCompletions(RECEIVES);
            final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
            assertTrue(threads.isThreadCpuTimeSupported() && threads.isThreadCpuTimeEnabled(), "thread CPU time is measurable");

            // 1. A poller holds the stream; the peer's message makes the socket readable, the agent finds it so and,
            //    the stream being held, steps back (stops watching the socket until its hand-off deadline).
            assertTrue(inbound.rxOwner.compareAndSet(false, true), "the stream was free");
            c.peer.sendSend(new byte[] {1});
            Await.atMost("the agent steps back from the held stream", WAIT)
                .until(() -> inbound.handOffDeadline != Long.MAX_VALUE);
            final long cpuBefore = threads.getThreadCpuTime(qp.agent.threadId());
            Await.atMost("the agent's back-off lasts through the window", WAIT.plusMillis(WINDOW_MILLIS))
                .pollInterval(WINDOW_POLL)
                .during(Duration.ofMillis(WINDOW_MILLIS))
                .until(() -> inbound.handOffDeadline != Long.MAX_VALUE);
            final long agentCpuMillis = TimeUnit.NANOSECONDS.toMillis(threads.getThreadCpuTime(qp.agent.threadId()) - cpuBefore);
            assertTrue(agentCpuMillis < MAX_AGENT_CPU_MILLIS, "the agent spun while the stream was held: "
                + agentCpuMillis + " ms of CPU in " + WINDOW_MILLIS + " ms");

            // 2. The holder lets go and polls on: it reads the message itself.
            inbound.rxOwner.set(false);
            final int n = Await.atMost("the message after the holder let go", WAIT).until(() -> c.cq.poll(wc, RECEIVES), count -> count > 0);
            assertEquals(1, n, "the message after the holder let go");
            assertEquals(WcStatus.SUCCESS, wc.status(0), wc.toString(0));
            assertEquals(1, buffers.segment().get(ValueLayout.JAVA_BYTE, wc.wrId(0) * SIZE));

            // 3. The poller arms the CQ to sleep while it still holds the stream (requestNotify tells the agent, which
            //    comes back, finds the stream held and steps back again), then lets go in its last poll before it
            //    sleeps: that poll must give the socket back, or the next message waits for the minute.
            assertTrue(inbound.rxOwner.compareAndSet(false, true), "the stream was free");
            final long backOff = inbound.handOffDeadline;
            c.cq.requestNotify(false);
            // requestNotify ends the back-off (the deadline becomes now); the agent, woken, finds the stream held
            // again and steps back with a new deadline a minute ahead
            Await.atMost("the agent, woken by requestNotify, steps back again", WAIT).until(() -> {
                final long deadline = inbound.handOffDeadline;
                return deadline != backOff && deadline - System.nanoTime() > TimeUnit.SECONDS.toNanos(30);
            });
            assertNotEquals(Long.MAX_VALUE, inbound.handOffDeadline, "the agent's back-off");
            inbound.rxOwner.set(false);
            assertEquals(0, c.cq.poll(wc, RECEIVES));
            c.peer.sendSend(new byte[] {2});
            assertSame(c.cq, c.channel.awaitEvent(WAIT), "the message waited for the agent's hand-off time");
            assertEquals(1, c.cq.poll(wc, RECEIVES));
            assertEquals(WcStatus.SUCCESS, wc.status(0), wc.toString(0));
            assertEquals(2, buffers.segment().get(ValueLayout.JAVA_BYTE, wc.wrId(0) * SIZE));
        }
    }
}

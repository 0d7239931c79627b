package org.rdmablock.initiator;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.Test;

/**
 * {@link InitiatorTest} again with the channels' threads sleeping on their completion event channels
 * ({@link InitiatorConfig.Waiting#EVENTS}) instead of polling: every test must pass the same way, the target that
 * goes away included (the disconnect wakes the sleeping thread).
 */
class EventWaitingTest extends InitiatorTest {
    @Override
    InitiatorConfig config(final long initiatorId) {
        return super.config(initiatorId).withWaiting(InitiatorConfig.Waiting.EVENTS);
    }

    /**
     * An idle channel thread sleeps in the event channel only, never in a park of its own: a submission wakes the
     * event channel, so a parked thread slept on for its whole park (1 ms per I/O at queue depth 1, which made
     * EVENTS twenty times slower than polling). Sampled for 200 ms after each of a few I/Os.
     */
    @Test
    void anIdleChannelThreadSleepsOnlyInTheEventChannel() throws Exception {
        initiator = SrpInitiator.connect(config(0x1E1));
        final Lun lun = initiator.lun(1);
        final Thread agent = initiator.channelThread(0);
        try (Arena arena = Arena.ofShared()) {
            final MemorySegment block = arena.allocate(lun.blockSize());
            int samples = 0;
            for (int io = 0; io < 3; io++) {
                lun.write(io, 1, block, 0, false).get(10, TimeUnit.SECONDS);
                final long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200);
                while (System.nanoTime() < end) {
                    final Object blocker = LockSupport.getBlocker(agent);
                    assertTrue(!(blocker instanceof ChannelAgent),
                        "the channel thread is parked in its own park (state " + agent.getState() + "), where a submission's"
                            + " event-channel wakeup cannot reach it");
                    samples++;
                    Thread.onSpinWait();
                }
            }
            assertTrue(samples > 100, "samples taken: " + samples);
        }
    }
}

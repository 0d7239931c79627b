package org.rdmablock.verbs.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rdmablock.verbs.CompletionChannel;
import org.rdmablock.verbs.DeviceContext;
import org.rdmablock.verbs.WorkCompletions;

/**
 * A completion added while the poller arms its CQ must either be seen by the poller's last poll or wake it: the
 * producer publishes the entry and then reads whether the CQ is armed, the poller arms and then polls, and
 * without a full fence between the producer's two steps (a release store, then a load) the CPU may let both miss
 * the other, and the poller sleeps with a completion waiting (until its timeout: 10 ms per miss in the target).
 * One completion at a time, each racing the poller's arming, for three seconds; any wait that times out with an
 * entry in the CQ is a lost wake-up. The window is a few nanoseconds wide: without the fence this caught a lost
 * wake-up in one run of six (among about 500 000 sleeps each), so it guards the fence weakly, as a stress test.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CompletionWakeupRaceTest {
    private static final Duration WAIT = Duration.ofSeconds(2);

    @Test
    void aCompletionAddedWhileThePollerArmsIsNeverMissed() throws Exception {
        try (SoftProvider provider = new SoftProvider()) {
            final DeviceContext context = provider.devices().getFirst().open();
            final CompletionChannel channel = context.createCompletionChannel();
            final SoftCompletionQueue cq = (SoftCompletionQueue) context.createCompletionQueue(16, channel);
            final AtomicLong consumed = new AtomicLong(-1);
            final long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
            final AtomicLong added = new AtomicLong();
            final Thread producer = Thread.ofPlatform().start(() -> {
                for (long i = 0; System.nanoTime() < end; i++) {
                    while (consumed.get() != i - 1) {
                        Thread.onSpinWait();
                    }
                    cq.add(i, 0, 0, 0, 0, 1, 0, 0, false);
                    added.set(i + 1);
                }
            });
            final WorkCompletions wc = new WorkCompletions(4);
            long next = 0;
            int lost = 0;
            int slept = 0;
            while (producer.isAlive() || next < added.get()) {
                int n = cq.poll(wc, 4);
                if (n == 0) {
                    cq.requestNotify(false);
                    n = cq.poll(wc, 4);
                    if (n == 0) {
                        slept++;
                        if (channel.awaitEvent(WAIT) == null && next < added.get()) {
                            lost++; // woken by the timeout, not by the completion that came
                        }
                        continue;
                    }
                }
                for (int i = 0; i < n; i++) {
                    assertEquals(next, wc.wrId(i));
                    consumed.set(next++);
                }
            }
            producer.join();
            assertEquals(0, lost, "lost wake-ups in " + next + " completions (" + slept + " sleeps)");
            assertTrue(next > 100, "completions: " + next);
        }
    }
}

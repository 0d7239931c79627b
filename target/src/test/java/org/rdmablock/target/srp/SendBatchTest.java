package org.rdmablock.target.srp;

import org.rdmablock.target.fakes.FakeVerbs;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The poller thread's posts with {@code backend_threads = 0} ({@link org.rdmablock.target.core.SendBatch}): what one duty cycle's work posts goes
 * as one chain per queue pair, and a chain the QP refuses part way frees every slot whose requests did not go.
 * Driven through {@link PipelineHarness} (fake verbs), whose thread is the poller.
 */
class SendBatchTest {
    private static final int QUEUE_DEPTH = 16;

    /**
     * Sixteen IUs per channel per cycle: each cycle's responses (and, for writes, data-out READs) of a channel go in
     * one post. Posted one by one, reads would take one post per command and writes two.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource({"READ", "WRITE", "WRITE_IMMEDIATE"})
    void aCyclesPostsGoAsOneChainPerChannel(final PipelineHarness.Mix mix) {
        try (PipelineHarness harness = new PipelineHarness(2, QUEUE_DEPTH, 0, new DiscardingBackend(PipelineHarness.DEVICE_BYTES))) {
            harness.mix(mix);
            harness.burst(QUEUE_DEPTH);
            harness.run(20_000);
            harness.drain();
            final long calls = harness.postCalls(0) + harness.postCalls(1);
            assertEquals(0, harness.failed, "every command answered GOOD");
            assertTrue(harness.completed >= 20_000, "commands answered: " + harness.completed);
            assertTrue(calls * 4 <= harness.completed, calls + " posts for " + harness.completed + " commands");
        }
    }

    /** With backend threads each response is posted at once, by its backend thread: one post per command. */
    @Test
    void backendThreadsPostEachResponseAtOnce() {
        try (PipelineHarness harness = new PipelineHarness(1, QUEUE_DEPTH, 1, new DiscardingBackend(PipelineHarness.DEVICE_BYTES))) {
            harness.burst(QUEUE_DEPTH);
            harness.run(2_000);
            harness.drain();
            assertEquals(harness.completed, harness.postCalls(0), "one post per read command");
        }
    }

    /**
     * The QP takes the first 0 or 5 requests of a cycle's chain of reads (2 each: the data-in WRITE, then the response)
     * and refuses the rest (the soft provider refuses a chain whole; a device may take a prefix): with 5, two commands
     * went, and every other slot of the chain comes back through the side queue (the third's WRITE went, its response
     * did not, so it is no exception). No slot is lost and none freed twice.
     */
    @ParameterizedTest(name = "{0} requests accepted")
    @CsvSource({"0", "5"})
    void aChainRefusedPartWayGivesBackEverySlotWhoseResponseDidNotGo(final int accepted) {
        try (PipelineHarness harness = new PipelineHarness(1, QUEUE_DEPTH, 0, new DiscardingBackend(PipelineHarness.DEVICE_BYTES))) {
            final int freeAtStart = harness.pipeline.freeSlots();
            harness.burst(QUEUE_DEPTH);
            harness.run(1_000);
            final FakeVerbs.Posts posts = harness.queuePair(0).posts();
            posts.refuseAfter = accepted;
            for (int i = 0; i < 100 && posts.refuseAfter >= 0; i++) {
                harness.run(1);
            }
            assertEquals(-1, posts.refuseAfter, "a chain longer than its accepted head was refused");
            harness.settle();
            final int refusedCommands = posts.refusedChainLength / 2 - accepted / 2;
            assertEquals(refusedCommands, harness.unanswered(), "the commands whose responses did not go");
            assertEquals(freeAtStart, harness.pipeline.freeSlots(), "every slot back");
        }
    }
}

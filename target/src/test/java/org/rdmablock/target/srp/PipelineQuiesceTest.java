package org.rdmablock.target.srp;

import org.junit.jupiter.api.Test;
import org.rdmablock.protocol.scsi.BackendCallback;
import org.rdmablock.protocol.scsi.BackendStatus;
import org.rdmablock.protocol.scsi.ForwardingBackend;
import org.rdmablock.target.core.CommandPipeline;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.rdmablock.target.Waiting.waitUpTo;

/**
 * {@link CommandPipeline#awaitHandled}, what a reload waits on before it closes a backend: it returns only once the
 * command that was executing when it was called has finished, and publishes nothing itself (the harness's thread is
 * the ring's one producer).
 */
class PipelineQuiesceTest {
    /** Reads block until released. */
    private static final class BlockingBackend extends ForwardingBackend {
        final CountDownLatch readStarted = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicBoolean readEnded = new AtomicBoolean();

        BlockingBackend() {
            super(new DiscardingBackend(PipelineHarness.DEVICE_BYTES));
        }

        @Override
        public void read(final long deviceOffset, final MemorySegment buffer, final long bufferOffset, final int length,
                         final BackendCallback callback) {
            readStarted.countDown();
            try {
                release.await(20, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            callback.completed(BackendStatus.OK);
            readEnded.set(true);
        }
    }

    @Test
    void awaitHandledReturnsOnlyAfterTheCommandExecutingWhenItWasCalledHasFinished() throws Exception {
        final BlockingBackend backend = new BlockingBackend();
        try (PipelineHarness harness = new PipelineHarness(1, 1, 1, backend)) {
            assertTrue(harness.pipeline.awaitHandled(Duration.ofSeconds(5)), "an idle pipeline has nothing in flight");
            final Thread poller = Thread.ofPlatform().name("test-poller").start(() -> harness.run(1));
            try {
                // the READ executes, and goes on executing until the test releases it: the bounded wait must time out
                assertTrue(backend.readStarted.await(10, TimeUnit.SECONDS), "the READ reached the backend");
                assertFalse(harness.pipeline.awaitHandled(Duration.ofMillis(100)), "a command is executing: times out");
                final CompletableFuture<Boolean> waited = new CompletableFuture<>();
                final Thread waiter = Thread.ofPlatform().name("test-waiter").start(() ->
                        waited.complete(harness.pipeline.awaitHandled(Duration.ofSeconds(10)) && backend.readEnded.get()));
                // the release comes only once the waiter is inside awaitHandled, between its looks at the stages
                waitUpTo(Duration.ofSeconds(10), "the waiter sleeps in awaitHandled").until(() -> sleepsIn(waiter, "awaitHandled"));
                assertFalse(waited.isDone(), "still waiting while the command executes");
                backend.release.countDown();
                assertTrue(waited.get(10, TimeUnit.SECONDS), "returns once the command finished, not before");
            } finally {
                backend.release.countDown();
                poller.join(10_000);
            }
            assertFalse(poller.isAlive());
            assertEquals(1, harness.completed);
            assertEquals(0, harness.failed);
            assertTrue(harness.pipeline.awaitHandled(Duration.ofSeconds(5)));
        }
    }

    /** Whether {@code thread} is sleeping (timed waiting) with {@code method} of {@link CommandPipeline} on its stack. */
    private static boolean sleepsIn(final Thread thread, final String method) {
        return thread.getState() == Thread.State.TIMED_WAITING && Arrays.stream(thread.getStackTrace()).anyMatch(
                f -> f.getClassName().equals(CommandPipeline.class.getName()) && f.getMethodName().equals(method));
    }
}

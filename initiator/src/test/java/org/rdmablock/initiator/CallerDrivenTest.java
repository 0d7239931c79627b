package org.rdmablock.initiator;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link InitiatorTest} again with no channel threads ({@link InitiatorConfig.Waiting#CALLER}): a background thread
 * stands in for the application, calling {@link SrpInitiator#poll()} without pause, while the tests' own blocking
 * calls and futures drive the channels too (two threads racing for each channel's duty cycle). Every test must pass
 * the same way, the target that goes away included. Plus: with nobody polling nothing moves, and the poll runs the
 * callback on the polling thread.
 */
class CallerDrivenTest extends InitiatorTest {
    private volatile boolean driving = true;
    private volatile boolean stopDriver;
    private Thread driver;

    @Override
    InitiatorConfig config(final long initiatorId) {
        return super.config(initiatorId).withWaiting(InitiatorConfig.Waiting.CALLER);
    }

    @BeforeEach
    void startDriver() {
        driver = Thread.ofPlatform().daemon().name("application-poller").start(() -> {
            while (!stopDriver) {
                final SrpInitiator current = driving ? initiator : null;
                if (current == null || current.poll() == 0) {
                    LockSupport.parkNanos(10_000);
                }
            }
        });
    }

    @AfterEach
    void stopDriver() throws InterruptedException {
        stopDriver = true;
        driver.join(5_000);
    }

    @Test
    void theCallingThreadDrivesTheChannelAndRunsTheCallbacks() throws Exception {
        driving = false;
        initiator = SrpInitiator.connect(config(0x1C1)); // discovery: connect's own waits drive the channel
        assertNull(initiator.channelThread(0), "no channel thread");
        final Lun lun = initiator.lun(1);
        try (Arena arena = Arena.ofShared()) {
            final MemorySegment block = arena.allocate(lun.blockSize());
            block.fill((byte) 0x6c);
            assertEquals(lun.blockSize(), lun.writeBlocking(3, 1, block, 0, false), "a blocking write drives itself");
            block.fill((byte) 0);
            final AtomicReference<Thread> calledOn = new AtomicReference<>();
            final AtomicLong bytes = new AtomicLong(-1);
            lun.read(3, 1, block, 0, null, (attachment, n, failure) -> {
                bytes.set(failure == null ? n : -2);
                calledOn.set(Thread.currentThread());
            });
            // with nobody polling, the read stays unanswered (an answer would mean some other thread drives the channel)
            await("the read unanswered with nobody polling").during(Duration.ofMillis(100)).atMost(Duration.ofSeconds(1))
                    .until(() -> calledOn.get() == null);
            // then this thread's polls answer it: the condition is evaluated here, so each poll runs on this thread
            await("the read answered by this thread's polls").pollInSameThread().pollInterval(Duration.ofMillis(1))
                    .atMost(Duration.ofSeconds(10)).until(() -> {
                        initiator.poll();
                        return calledOn.get() != null;
                    });
            assertSame(Thread.currentThread(), calledOn.get(), "the callback runs in the poll that took the answer");
            assertEquals(lun.blockSize(), bytes.get());
            assertEquals((byte) 0x6c, block.get(ValueLayout.JAVA_BYTE, lun.blockSize() - 1), "read back what was written");
        }
    }

    /** {@code awaitDone} drives the channel while it waits: with nobody else polling, the future completes in it. */
    @Test
    void awaitDoneDrivesTheChannelUntilTheFutureIsDone() throws Exception {
        driving = false;
        initiator = SrpInitiator.connect(config(0x1C2));
        final Lun lun = initiator.lun(1);
        final MemorySegment block = initiator.allocateBuffer(lun.blockSize());
        final java.util.concurrent.CompletableFuture<Long> read = lun.read(5, 1, block, 0);
        await("the read unanswered with nobody polling").during(Duration.ofMillis(50)).atMost(Duration.ofSeconds(1))
                .until(() -> !read.isDone());
        assertEquals(true, initiator.awaitDone(read, 10, TimeUnit.SECONDS), "done within the wait");
        assertEquals(lun.blockSize(), read.getNow(-1L));
        final java.util.concurrent.CompletableFuture<Long> never = new java.util.concurrent.CompletableFuture<>();
        assertEquals(false, initiator.awaitDone(never, 20, TimeUnit.MILLISECONDS), "a future nobody completes times out");
    }
}

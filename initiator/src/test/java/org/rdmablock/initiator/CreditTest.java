package org.rdmablock.initiator;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rdmablock.protocol.scsi.BackendCallback;
import org.rdmablock.protocol.scsi.ForwardingBackend;
import org.rdmablock.protocol.scsi.InMemoryBackend;
import org.rdmablock.protocol.scsi.LogicalUnit;
import org.rdmablock.protocol.scsi.LogicalUnitConfig;
import org.rdmablock.protocol.scsi.LogicalUnitTable;
import org.rdmablock.target.metrics.IoSnapshot;
import org.rdmablock.target.metrics.SessionStats;
import org.rdmablock.target.srp.SrpTarget;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The initiator's credit accounting against a target that grants fewer credits than the initiator's queue depth (4
 * against 64): the target never gets more commands than it granted (its own count of commands that came beyond the
 * credits, answered BUSY, stays 0; nor does a command take the credit the initiator holds back for task management),
 * while the initiator queues the rest and loses none: 128 writes, then 128 reads, each submitted at once, all complete,
 * and every block holds and reads back what was written. The LUN holds each command 2 ms and answers it from another
 * thread, so that commands pile up at the target and requests wait for credits.
 */
class CreditTest {
    static final int CREDITS = 4;
    static final int QUEUE_DEPTH = 64;
    static final int REQUESTS = 128;
    static final int BLOCK = 4096;
    static final long HOLD_MICROS = 2_000;

    @Test
    @Timeout(120)
    void aTargetGrantingFewerCreditsThanTheQueueDepthGetsNoMoreCommandsThanItGranted() throws Exception {
        final InMemoryBackend memory = new InMemoryBackend(16L << 20);
        final LogicalUnitTable units = new LogicalUnitTable();
        try (HeldBackend held = new HeldBackend(memory)) {
            units.add(new LogicalUnit(0, LogicalUnitConfig.builder().serialNumber("credits").blockSize(BLOCK).build(), held));
            try (SrpTarget target = SrpTarget.start(InitiatorTest.targetConfig(0, CREDITS), initiator -> units);
                 SrpInitiator initiator = SrpInitiator.connect(InitiatorConfig.of(InitiatorTest.PROVIDER,
                         InitiatorTest.ADDRESS, target.localAddress().getPort())
                         .withTargetPortId(InitiatorTest.ID_EXT, InitiatorTest.IOC_GUID).withInitiatorPortId(0x501, 1)
                         .withQueueDepth(QUEUE_DEPTH).withScheduling(false, false))) { // a command per request
                final Lun lun = initiator.lun(0);
                final MemorySegment out = initiator.allocateBuffer((long) REQUESTS * BLOCK);
                final MemorySegment in = initiator.allocateBuffer((long) REQUESTS * BLOCK);
                for (int i = 0; i < REQUESTS; i++) {
                    out.asSlice((long) i * BLOCK, BLOCK).fill((byte) (i + 1));
                }
                assertEquals(1, target.statistics().sessions().size(), "one session, one channel");
                final SessionStats channel = target.statistics().sessions().get(0); // what the target counts of it
                final IoSnapshot before = channel.io.snapshot();
                final long commandsBefore = initiator.commandsIssued();

                final List<CompletableFuture<Long>> writes = new ArrayList<>();
                for (int i = 0; i < REQUESTS; i++) {
                    writes.add(lun.write(2L * i, 1, out, (long) i * BLOCK, false)); // apart: nothing to merge either
                }
                for (final CompletableFuture<Long> write : writes) {
                    assertEquals(BLOCK, write.get(60, TimeUnit.SECONDS), "every write answered, none failed");
                }
                final List<CompletableFuture<Long>> reads = new ArrayList<>();
                for (int i = 0; i < REQUESTS; i++) {
                    reads.add(lun.read(2L * i, 1, in, (long) i * BLOCK));
                }
                for (final CompletableFuture<Long> read : reads) {
                    assertEquals(BLOCK, read.get(60, TimeUnit.SECONDS), "every read answered, none failed");
                }

                for (int i = 0; i < REQUESTS; i++) {
                    final byte[] stored = new byte[BLOCK];
                    memory.read(2L * i * BLOCK, MemorySegment.ofArray(stored), 0, BLOCK, status -> { });
                    assertEquals((byte) (i + 1), stored[0], "block " + 2 * i + " holds its write");
                    assertEquals((byte) (i + 1), stored[BLOCK - 1], "block " + 2 * i + " holds its write");
                    assertEquals((byte) (i + 1), in.get(ValueLayout.JAVA_BYTE, (long) i * BLOCK + BLOCK - 1),
                            "read " + i + " brought its block back");
                }
                // the target counts a command once its answer is posted: the last may reach us before its count does
                await().atMost(10, TimeUnit.SECONDS).untilAsserted(() -> {
                    final IoSnapshot after = channel.io.snapshot();
                    assertEquals(REQUESTS, after.writeCommands() - before.writeCommands(), "the target got each write once");
                    assertEquals(REQUESTS, after.readCommands() - before.readCommands(), "the target got each read once");
                });
                assertEquals(2L * REQUESTS, initiator.commandsIssued() - commandsBefore, "a command per request");

                assertEquals(0, channel.busyCount(),
                        "commands that came beyond the channel's credits (the target answered them BUSY)");
                assertEquals(0, channel.creditsExhaustedCount(),
                        "commands that took the credit the initiator holds back for task management");
                final int most = held.mostInFlight();
                System.out.printf("CreditTest: at most %d commands at the LUN at once, %d credits granted%n", most, CREDITS);
                assertTrue(most <= CREDITS - Credits.TASK_MANAGEMENT_RESERVE, "commands at the LUN at once: " + most);
                assertTrue(most >= 2, "the initiator kept several commands at the target at once: " + most);
            }
        }
    }

    /** Holds each read and write {@link #HOLD_MICROS}, then does it on a thread of its own; counts how many it holds. */
    static final class HeldBackend extends ForwardingBackend implements AutoCloseable {
        private final ScheduledExecutorService later = Executors.newSingleThreadScheduledExecutor();
        private final AtomicInteger inFlight = new AtomicInteger();
        private final AtomicInteger mostInFlight = new AtomicInteger();

        HeldBackend(final InMemoryBackend memory) {
            super(memory);
        }

        int mostInFlight() {
            return mostInFlight.get();
        }

        private void arrived() {
            mostInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
        }

        @Override
        public void read(final long offset, final MemorySegment buffer, final long at, final int length, final BackendCallback cb) {
            arrived();
            later.schedule(() -> {
                inFlight.decrementAndGet(); // before the answer: the initiator may send the next command once it has it
                super.read(offset, buffer, at, length, cb);
            }, HOLD_MICROS, TimeUnit.MICROSECONDS);
        }

        @Override
        public void write(final long offset, final MemorySegment buffer, final long at, final int length, final boolean fua,
                          final BackendCallback cb) {
            arrived();
            later.schedule(() -> {
                inFlight.decrementAndGet();
                super.write(offset, buffer, at, length, fua, cb);
            }, HOLD_MICROS, TimeUnit.MICROSECONDS);
        }

        @Override
        public void close() {
            later.shutdownNow();
        }
    }
}

package org.rdmablock.initiator;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.rdmablock.protocol.scsi.BackendCallback;
import org.rdmablock.protocol.scsi.BlockBackend;
import org.rdmablock.protocol.scsi.ForwardingBackend;
import org.rdmablock.protocol.scsi.InMemoryBackend;
import org.rdmablock.protocol.scsi.LogicalUnit;
import org.rdmablock.protocol.scsi.LogicalUnitConfig;
import org.rdmablock.protocol.scsi.LogicalUnitTable;
import org.rdmablock.target.srp.SrpTarget;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The scheduling layer: merging of adjacent requests into one command, and read priority, each switched on and off.
 * Queue depth 2 makes requests wait for a command slot, which is when both act; the LUN holds every command until the
 * test has submitted all of them ({@link #hold}), so that they wait whatever the machine's speed.
 */
class SchedulingTest {
    static final int DEPTH = 2;
    SrpTarget target;
    InMemoryBackend backend;
    SrpInitiator initiator;
    /** While set, every backend call waits for it: the commands in flight stay in flight. */
    volatile CountDownLatch hold;

    @BeforeEach
    void start() {
        backend = new InMemoryBackend(16L << 20);
        final LogicalUnitTable units = new LogicalUnitTable();
        units.add(new LogicalUnit(0, LogicalUnitConfig.builder().serialNumber("sched").blockSize(512).build(), held(backend)));
        // the poller thread runs each command as it arrives: answers come back in the order the initiator issued the
        // commands, so the answer order the tests check is the initiator's scheduling, not the backend threads' race
        target = SrpTarget.start(InitiatorTest.targetConfig(0), initiator -> units);
    }

    /** {@code memory}, each call waiting while {@link #hold} is set. */
    private BlockBackend held(final InMemoryBackend memory) {
        return new ForwardingBackend(memory) {
            private void await() {
                final CountDownLatch latch = hold;
                if (latch != null) {
                    try {
                        latch.await(20, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            }

            @Override
            public void read(final long offset, final MemorySegment buffer, final long at, final int length, final BackendCallback cb) {
                await();
                super.read(offset, buffer, at, length, cb);
            }

            @Override
            public void write(final long offset, final MemorySegment buffer, final long at, final int length, final boolean fua,
                              final BackendCallback cb) {
                await();
                super.write(offset, buffer, at, length, fua, cb);
            }
        };
    }

    /** Holds the LUN's calls from now until {@link #release}. */
    private void holdTheLun() {
        hold = new CountDownLatch(1);
    }

    private void release() {
        final CountDownLatch latch = hold;
        hold = null;
        latch.countDown();
    }

    @AfterEach
    void stop() {
        if (hold != null) {
            release();
        }
        if (initiator != null) {
            initiator.close();
        }
        target.close();
    }

    private void connect(final boolean merge, final boolean readPriority) throws SrpIoException {
        initiator = SrpInitiator.connect(InitiatorConfig.of(InitiatorTest.PROVIDER, InitiatorTest.ADDRESS,
                target.localAddress().getPort()).withTargetPortId(InitiatorTest.ID_EXT, InitiatorTest.IOC_GUID)
                .withInitiatorPortId(0x301, 1).withQueueDepth(DEPTH).withScheduling(merge, readPriority));
    }

    /**
     * 64 adjacent 4 KiB writes submitted at once, then 64 adjacent reads, each request with its own buffer: merged,
     * they take far fewer commands than requests, and every buffer still gets its own blocks.
     */
    @ParameterizedTest(name = "merge {0}, {1} buffers")
    @CsvSource({"true, registered", "true, unregistered", "false, registered"})
    void adjacentRequestsGoAsOneCommand(final boolean merge, final String buffers) throws Exception {
        connect(merge, false);
        final Lun lun = initiator.lun(0);
        final int requests = 64;
        final MemorySegment out = buffers.equals("registered") ? initiator.allocateBuffer(requests * 4096L)
                : Arena.ofAuto().allocate(requests * 4096L, 4096);
        final MemorySegment in = buffers.equals("registered") ? initiator.allocateBuffer(requests * 4096L)
                : Arena.ofAuto().allocate(requests * 4096L, 4096);
        for (int i = 0; i < requests; i++) {
            out.asSlice(i * 4096L, 4096).fill((byte) (i + 1));
        }
        final long commandsBefore = initiator.commandsIssued();
        final List<CompletableFuture<Long>> writes = new ArrayList<>();
        holdTheLun();
        for (int i = 0; i < requests; i++) {
            // each request's buffer lies apart from the next one's: merging must not assume they touch
            writes.add(lun.write(800 + i * 8L, 8, out, (long) ((i * 37) % requests) * 4096, false));
        }
        release();
        for (final CompletableFuture<Long> w : writes) {
            assertEquals(4096, w.get(20, TimeUnit.SECONDS));
        }
        final List<CompletableFuture<Long>> reads = new ArrayList<>();
        holdTheLun();
        for (int i = 0; i < requests; i++) {
            reads.add(lun.read(800 + i * 8L, 8, in, (long) ((i * 53) % requests) * 4096));
        }
        release();
        for (final CompletableFuture<Long> r : reads) {
            assertEquals(4096, r.get(20, TimeUnit.SECONDS));
        }
        final long commands = initiator.commandsIssued() - commandsBefore;
        for (int i = 0; i < requests; i++) {
            final byte written = (byte) (((i * 37) % requests) + 1);
            final byte[] stored = new byte[4096];
            backend.read((800 + i * 8L) * 512, MemorySegment.ofArray(stored), 0, 4096, s -> { });
            assertEquals(written, stored[0], "block " + i + " holds the buffer its request named");
            assertEquals(written, stored[4095]);
            assertEquals(written, in.get(ValueLayout.JAVA_BYTE, (long) ((i * 53) % requests) * 4096 + 4095),
                    "read " + i + " went to its own buffer");
        }
        if (merge) {
            assertTrue(commands <= requests, "merged: " + commands + " commands for " + 2 * requests + " requests");
            assertTrue(initiator.requestsMerged() >= requests, "requests merged: " + initiator.requestsMerged());
        } else {
            assertEquals(2L * requests, commands, "one command per request without merging");
            assertEquals(0, initiator.requestsMerged());
        }
    }

    /**
     * 20 writes, then 5 reads, submitted at once with two command slots: with read priority the reads are answered
     * before most of the writes; without it, after at least 18 of them (they start only when every write has).
     */
    @ParameterizedTest(name = "read priority {0}")
    @ValueSource(booleans = {true, false})
    void readsPassWaitingWritesOnlyWithReadPriority(final boolean readPriority) throws Exception {
        connect(false, readPriority);
        final Lun lun = initiator.lun(0);
        final MemorySegment buffer = initiator.allocateBuffer(64 * 4096L);
        final int writes = 20;
        final int reads = 5;
        final int[] order = new int[writes + reads];
        final AtomicInteger answered = new AtomicInteger();
        final List<CompletableFuture<Long>> all = new ArrayList<>();
        holdTheLun();
        for (int i = 0; i < writes + reads; i++) {
            final int id = i;
            final CompletableFuture<Long> f = new CompletableFuture<>();
            final IoCallback record = (attachment, bytes, failure) -> {
                order[answered.getAndIncrement()] = id;
                if (failure != null) {
                    f.completeExceptionally(failure);
                } else {
                    f.complete(bytes);
                }
            };
            all.add(f);
            if (i < writes) {
                lun.write(i * 64L, 8, buffer, i * 4096L, false, null, record); // 64 blocks apart: nothing to merge
            } else {
                lun.read(10_000 + i * 64L, 8, buffer, i * 4096L, null, record);
            }
        }
        release();
        for (final CompletableFuture<Long> f : all) {
            f.get(20, TimeUnit.SECONDS);
        }
        int writesBeforeLastRead = 0;
        int writesBeforeFirstRead = -1;
        int writesSeen = 0;
        for (final int id : order) {
            if (id < writes) {
                writesSeen++;
            } else {
                if (writesBeforeFirstRead < 0) {
                    writesBeforeFirstRead = writesSeen;
                }
                writesBeforeLastRead = writesSeen;
            }
        }
        if (readPriority) {
            assertTrue(writesBeforeLastRead <= 10, "every read answered before the 11th write: " + java.util.Arrays.toString(order));
        } else {
            assertTrue(writesBeforeFirstRead >= writes - DEPTH, "reads wait their turn: " + java.util.Arrays.toString(order));
        }
    }

    /**
     * A read of blocks that a waiting write will change does not pass that write; another read behind it does (with
     * read priority). Ten writes, two slots: the overlapping read can start only once the last write has, so at least
     * eight writes are answered before it.
     */
    @ParameterizedTest(name = "read priority {0}")
    @ValueSource(booleans = {true, false})
    void aReadDoesNotPassAWriteItOverlaps(final boolean readPriority) throws Exception {
        connect(false, readPriority);
        final Lun lun = initiator.lun(0);
        final MemorySegment buffer = initiator.allocateBuffer(64 * 4096L);
        final int writes = 10;
        final List<String> order = java.util.Collections.synchronizedList(new ArrayList<>());
        final List<CompletableFuture<Long>> pending = new ArrayList<>();
        holdTheLun();
        for (int i = 0; i <= writes + 1; i++) {
            final String name = i < writes ? "W" + i : i == writes ? "overlapping" : "apart";
            final CompletableFuture<Long> f = new CompletableFuture<>();
            final IoCallback record = (attachment, bytes, failure) -> {
                order.add(name);
                f.complete(bytes);
            };
            pending.add(f);
            if (i < writes) {
                lun.write(i * 64L, 8, buffer, i * 4096L, false, null, record);
            } else {
                lun.read(i == writes ? (writes - 1) * 64L + 4 : 20_000, 8, buffer, 30 * 4096L + i * 4096L, null, record);
            }
        }
        release();
        for (final CompletableFuture<Long> f : pending) {
            f.get(20, TimeUnit.SECONDS);
        }
        final int overlapping = order.indexOf("overlapping");
        final int apart = order.indexOf("apart");
        assertTrue(overlapping >= writes - DEPTH, "the overlapping read waited for the write it overlaps to start: " + order);
        if (readPriority) {
            assertTrue(apart < overlapping && apart <= 4, "the read apart passed the waiting writes: " + order);
        } else {
            assertTrue(apart >= writes - DEPTH, "without read priority the read apart waits its turn too: " + order);
        }
    }
}

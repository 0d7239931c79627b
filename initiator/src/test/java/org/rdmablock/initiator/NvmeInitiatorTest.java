package org.rdmablock.initiator;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.rdmablock.protocol.scsi.InMemoryBackend;
import org.rdmablock.protocol.scsi.LogicalUnit;
import org.rdmablock.protocol.scsi.LogicalUnitConfig;
import org.rdmablock.protocol.scsi.LogicalUnitTable;
import org.rdmablock.target.metrics.TargetStatistics;
import org.rdmablock.target.config.NvmeConfig;
import org.rdmablock.target.nvme.NvmeTarget;
import org.rdmablock.verbs.MemoryRegion;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The initiator library speaking NVMe over Fabrics to our target's NVMe front end on loopback (soft provider): the
 * association (admin queue, controller, I/O queues), namespaces as {@link Lun}s, reads and writes through registered
 * and unregistered buffers, FUA, flush, deallocate, errors as NVMe statuses in words, several queues and threads, a
 * host the subsystem does not allow, and a target restarted under the session.
 */
class NvmeInitiatorTest {
    static final String NQN = "nqn.2026-12.org.rdmablock:initiator-test";
    static final String LOCKED_NQN = "nqn.2026-12.org.rdmablock:locked";
    static final String HOST = "nqn.2026-12.org.rdmablock:host-a";
    static final long SMALL_LUN = 16L << 20;
    static final long BIG_LUN = 32L << 20;
    LogicalUnitTable units;
    InMemoryBackend lun1;
    NvmeTarget target;
    SrpInitiator initiator;

    @BeforeEach
    void start() {
        units = new LogicalUnitTable();
        units.add(new LogicalUnit(0, LogicalUnitConfig.builder().serialNumber("nvme-lun0").blockSize(512)
                .maxTransferBytes(256 * 1024).build(), new InMemoryBackend(SMALL_LUN)));
        lun1 = new InMemoryBackend(BIG_LUN);
        units.add(new LogicalUnit(1, LogicalUnitConfig.builder().serialNumber("nvme-lun1").blockSize(4096)
                .thinProvisioning(true).build(), lun1));
        target = startTarget(0);
    }

    private NvmeTarget startTarget(final int port) {
        return NvmeTarget.start(InitiatorTest.targetConfig(2, 32), new NvmeConfig(port, List.of(
                new NvmeConfig.Subsystem(NQN, "SN-INIT", "rdmablock initiator test", List.of(), Set.of()),
                new NvmeConfig.Subsystem(LOCKED_NQN, "SN-LOCK", "rdmablock initiator test", List.of(),
                        Set.of("nqn.2026-12.example:someone-else")))), units, new TargetStatistics());
    }

    InitiatorConfig config(final String subsystem) {
        return InitiatorConfig.of(InitiatorTest.PROVIDER, InitiatorTest.ADDRESS, target.localAddress().getPort())
                .withQueueDepth(32).withNvme(subsystem, HOST);
    }

    @AfterEach
    void stop() {
        if (initiator != null) {
            initiator.close();
        }
        if (target != null) {
            target.close();
        }
    }

    @Test
    void findsTheNamespacesWithTheirGeometryAndTheControllersIdentity() throws Exception {
        initiator = SrpInitiator.connect(config(NQN));
        assertEquals(2, initiator.luns().size(), initiator.luns().toString());
        final Lun first = initiator.lun(1);
        assertEquals(512, first.blockSize());
        assertEquals(SMALL_LUN / 512, first.blockCount());
        final Lun second = initiator.lun(2);
        assertEquals(4096, second.blockSize());
        assertEquals(BIG_LUN / 4096, second.blockCount());
        assertEquals("NVMe", second.vendor());
        assertEquals("SN-INIT", second.serial());
        assertEquals("rdmablock initiator test", second.product());
        assertEquals(256 * 1024, second.maxTransferBytes(), "MDTS: one limit per controller, the smallest LUN's");
    }

    /** Through a registered buffer (no copy), a heap buffer and an unregistered native one (bounce buffers). */
    @ParameterizedTest
    @ValueSource(strings = {"registered", "heap", "native"})
    void writesAndReadsBackRandomRanges(final String kind) throws Exception {
        initiator = SrpInitiator.connect(config(NQN));
        for (final Lun lun : initiator.luns()) {
            final int bytes = 3 << 20; // larger than a command and than a bounce buffer (128 KiB)
            final MemorySegment out = buffer(kind, bytes);
            final MemorySegment in = buffer(kind, bytes);
            final Random random = new Random(kind.hashCode() + lun.number());
            for (int round = 0; round < 12; round++) {
                final int blocks = 1 + random.nextInt(bytes / lun.blockSize());
                final long lba = random.nextLong(lun.blockCount() - blocks);
                final byte[] data = new byte[blocks * lun.blockSize()];
                random.nextBytes(data);
                MemorySegment.copy(data, 0, out, ValueLayout.JAVA_BYTE, 0, data.length);
                assertEquals(data.length, lun.writeBlocking(lba, blocks, out, 0, round % 2 == 0));
                in.fill((byte) 0);
                assertEquals(data.length, lun.readBlocking(lba, blocks, in, 0));
                final byte[] got = new byte[data.length];
                MemorySegment.copy(in, ValueLayout.JAVA_BYTE, 0, got, 0, got.length);
                assertArrayEquals(data, got, kind + " round " + round + " on " + lun);
            }
        }
    }

    @Test
    void aRegisteredRegionMovesStraightAndUnmapReadsBackZeroes() throws Exception {
        initiator = SrpInitiator.connect(config(NQN));
        final Lun lun = initiator.lun(2);
        try (Arena arena = Arena.ofShared(); MemoryRegion region = initiator.registerMemory(arena.allocate(64 * 4096, 4096))) {
            region.segment().fill((byte) 0x5A);
            final CompletableFuture<Long> written = new CompletableFuture<>();
            lun.write(100, 64, region, 0, false, written, Lun.FUTURE_CALLBACK);
            assertEquals(64 * 4096L, written.get());
            lun.flushBlocking();
            assertEquals((byte) 0x5A, lun1.storage().get(ValueLayout.JAVA_BYTE, 100 * 4096L + 4095),
                    "the write reached the backend");
            lun.unmapBlocking(100, 32);
            region.segment().fill((byte) 1);
            final CompletableFuture<Long> read = new CompletableFuture<>();
            lun.read(100, 64, region, 0, read, Lun.FUTURE_CALLBACK);
            assertEquals(64 * 4096L, read.get());
            assertEquals(0, region.segment().get(ValueLayout.JAVA_BYTE, 31 * 4096 + 17), "deallocated blocks read zeroes");
            assertEquals((byte) 0x5A, region.segment().get(ValueLayout.JAVA_BYTE, 32 * 4096), "the rest stays");
        }
    }

    @Test
    void aStatusOtherThanSuccessFailsTheRequestInWords() throws Exception {
        initiator = SrpInitiator.connect(config(NQN));
        final Lun lun = initiator.lun(1);
        final MemorySegment buffer = Arena.ofAuto().allocate(512);
        // a namespace id the controller does not have: send as LUN 1's twin with another id
        final Lun ghost = new Lun(initiator, 9, 9, 512, lun.blockCount(), lun.maxTransferBytes(), "NVMe", "", "", "");
        final SrpIoException failure = assertThrows(SrpIoException.class, () -> ghost.readBlocking(0, 1, buffer, 0));
        assertTrue(failure instanceof NvmeStatusException, failure.toString());
        assertTrue(failure.getMessage().contains("invalid namespace"), failure.getMessage());
        assertEquals(512, lun.readBlocking(0, 1, buffer, 0), "the queue goes on after the refusal");
    }

    @Test
    void severalQueuesCarryThreadsAtOnce() throws Exception {
        initiator = SrpInitiator.connect(config(NQN).withChannels(3, InitiatorConfig.ChannelPolicy.PER_THREAD));
        assertEquals(3, initiator.channelCount());
        final Lun lun = initiator.lun(2);
        final List<Thread> threads = new ArrayList<>();
        final List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        for (int t = 0; t < 3; t++) {
            final int thread = t;
            threads.add(Thread.ofPlatform().start(() -> {
                try {
                    final MemorySegment out = Arena.ofAuto().allocate(16 * 4096);
                    final MemorySegment in = Arena.ofAuto().allocate(16 * 4096);
                    for (int round = 0; round < 50; round++) {
                        out.fill((byte) (thread * 64 + round));
                        final long lba = thread * 1000L + round * 16L;
                        lun.writeBlocking(lba, 16, out, 0, false);
                        lun.readBlocking(lba, 16, in, 0);
                        if (in.mismatch(out) >= 0) {
                            throw new AssertionError("thread " + thread + " round " + round + " read other data");
                        }
                    }
                } catch (Throwable e) {
                    failures.add(e);
                }
            }));
        }
        for (final Thread thread : threads) {
            thread.join();
        }
        assertEquals(List.of(), failures);
    }

    /**
     * The smallest depth (2: what the bench asks for at iodepth 1) still issues, since an I/O queue holds no credit back
     * for task management; a depth beyond the controller's queue entries (CAP.MQES; the target's 32 credits) connects
     * with as many as it takes.
     */
    @ParameterizedTest
    @ValueSource(ints = {2, 64})
    void anyQueueDepthGetsAQueueTheControllerTakes(final int depth) throws Exception {
        initiator = SrpInitiator.connect(InitiatorConfig.of(InitiatorTest.PROVIDER, InitiatorTest.ADDRESS,
                target.localAddress().getPort()).withQueueDepth(depth).withNvme(NQN, HOST));
        final Lun lun = initiator.lun(2);
        final MemorySegment buffer = initiator.allocateBuffer(64 * 4096);
        final List<CompletableFuture<Long>> writes = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
            buffer.set(ValueLayout.JAVA_BYTE, i * 4096L, (byte) (i + 1));
            writes.add(lun.write(i * 2L, 1, buffer, i * 4096L, false));
        }
        for (final CompletableFuture<Long> write : writes) {
            assertEquals(4096L, write.get(10, java.util.concurrent.TimeUnit.SECONDS), "depth " + depth);
        }
        final MemorySegment back = Arena.ofAuto().allocate(4096);
        lun.readBlocking(2 * 63, 1, back, 0);
        assertEquals((byte) 64, back.get(ValueLayout.JAVA_BYTE, 0));
    }

    @Test
    void aHostTheSubsystemDoesNotAllowIsRefusedInWords() {
        final SrpIoException refused = assertThrows(SrpIoException.class, () -> SrpInitiator.connect(config(LOCKED_NQN)));
        assertTrue(refused.getMessage().contains("connect invalid host") && refused.getMessage().contains(HOST),
                refused.getMessage());
    }

    @Test
    void anUnknownSubsystemIsRefusedInWords() {
        final SrpIoException refused = assertThrows(SrpIoException.class,
                () -> SrpInitiator.connect(config("nqn.2026-12.org.rdmablock:nobody")));
        assertTrue(refused.getMessage().contains("connect invalid parameters"), refused.getMessage());
    }

    @Test
    void aTargetRestartedUnderTheSessionIsConnectedToAgainWithTheDataIntact() throws Exception {
        initiator = SrpInitiator.connect(config(NQN).withChannels(2, InitiatorConfig.ChannelPolicy.ROUND_ROBIN));
        final Lun lun = initiator.lun(2);
        final MemorySegment out = Arena.ofAuto().allocate(8 * 4096);
        final MemorySegment in = Arena.ofAuto().allocate(8 * 4096);
        out.fill((byte) 0x33);
        lun.writeBlocking(8, 8, out, 0, true);
        final int port = target.localAddress().getPort();
        target.close();
        target = startTarget(port);
        for (int round = 0; round < 4; round++) { // each channel (round robin) finds its queue gone and connects again
            assertEquals(8 * 4096L, lun.readBlocking(8, 8, in, 0));
            assertEquals(-1, in.mismatch(out), "round " + round);
        }
        assertTrue(initiator.reconnects() >= 1, "reconnects: " + initiator.reconnects());
    }

    private MemorySegment buffer(final String kind, final int bytes) {
        return switch (kind) {
            case "registered" -> initiator.allocateBuffer(bytes);
            case "heap" -> MemorySegment.ofArray(new byte[bytes]);
            default -> Arena.ofAuto().allocate(bytes, 4096);
        };
    }
}

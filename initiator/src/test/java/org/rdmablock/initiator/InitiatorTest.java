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
import org.rdmablock.target.config.ChannelConfig;
import org.rdmablock.target.config.IdentityConfig;
import org.rdmablock.target.config.ListenConfig;
import org.rdmablock.target.config.PipelineConfig;
import org.rdmablock.target.config.TargetConfig;
import org.rdmablock.target.config.TimeoutConfig;
import org.rdmablock.target.srp.SrpTarget;
import org.rdmablock.verbs.MemoryRegion;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The initiator library against our own target on loopback (soft provider): login, discovery, reads and writes
 * through registered and unregistered buffers, immediate data, I/O split over several commands, flush, unmap, SCSI
 * errors in words, several channels and threads, and a target that goes away under load.
 */
class InitiatorTest {
    static final String PROVIDER = TestConfiguration.provider();
    static final String ADDRESS = TestConfiguration.address();
    static final long ID_EXT = 0x0272_0000_0000_00A1L;
    static final long IOC_GUID = 0x0272_0000_0000_00A2L;
    static final long SMALL_LUN = 16L << 20;
    static final long BIG_LUN = 32L << 20;
    SrpTarget target;
    InMemoryBackend lun0;
    InMemoryBackend lun1;
    SrpInitiator initiator;

    @BeforeEach
    void start() {
        lun0 = new InMemoryBackend(SMALL_LUN);
        lun1 = new InMemoryBackend(BIG_LUN);
        final LogicalUnitTable units = new LogicalUnitTable();
        units.add(new LogicalUnit(0, LogicalUnitConfig.builder().serialNumber("init-lun0").blockSize(512)
                .maxTransferBytes(256 * 1024).build(), lun0));
        units.add(new LogicalUnit(1, LogicalUnitConfig.builder().serialNumber("init-lun1").blockSize(4096)
                .thinProvisioning(true).build(), lun1));
        units.add(new LogicalUnit(2, LogicalUnitConfig.builder().serialNumber("init-ro").blockSize(512).readOnly(true).build(),
                new InMemoryBackend(1L << 20)));
        target = SrpTarget.start(targetConfig(), initiator -> units);
    }

    static TargetConfig targetConfig() {
        return targetConfig(2);
    }

    /** {@link #targetConfig()} with {@code backendThreads} (0: the poller thread runs each command, in arrival order). */
    static TargetConfig targetConfig(final int backendThreads) {
        return targetConfig(backendThreads, 32);
    }

    /** {@link #targetConfig(int)} granting each channel {@code credits}. */
    static TargetConfig targetConfig(final int backendThreads, final int credits) {
        return new TargetConfig("<test>", new ListenConfig(PROVIDER, ADDRESS, 0), new IdentityConfig(ID_EXT, IOC_GUID),
                new ChannelConfig(credits, 8276, 1 << 20, true, 8192, 16),
                new PipelineConfig(4096, 512, backendThreads, PipelineConfig.ReceiveQueueMode.PER_CHANNEL,
                        PipelineConfig.CompletionMode.POLL),
                new TimeoutConfig(Duration.ZERO, Duration.ofSeconds(30)), List.of());
    }

    InitiatorConfig config(final long initiatorId) {
        return InitiatorConfig.of(PROVIDER, ADDRESS, target.localAddress().getPort()).withTargetPortId(ID_EXT, IOC_GUID)
                .withInitiatorPortId(initiatorId, 1).withQueueDepth(32);
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
    void discoversTheLunsWithTheirGeometryAndIdentity() throws Exception {
        initiator = SrpInitiator.connect(config(0x101));
        assertEquals(3, initiator.luns().size());
        final Lun small = initiator.lun(0);
        assertEquals(512, small.blockSize());
        assertEquals(SMALL_LUN / 512, small.blockCount());
        assertEquals("init-lun0", small.serial());
        assertEquals(256 * 1024, small.maxTransferBytes(), "the block limits page's maximum transfer length");
        final Lun big = initiator.lun(1);
        assertEquals(4096, big.blockSize());
        assertEquals(BIG_LUN / 4096, big.blockCount());
        assertEquals(SrpInitiator.DEFAULT_MAX_TRANSFER, big.maxTransferBytes());
        assertTrue(!small.vendor().isEmpty() && !small.product().isEmpty(), small.toString());
    }

    /** Through a registered buffer (no copy), a heap buffer and an unregistered native one (bounce buffers). */
    @ParameterizedTest
    @ValueSource(strings = {"registered", "heap", "native"})
    void writesAndReadsBackRandomRanges(final String kind) throws Exception {
        initiator = SrpInitiator.connect(config(0x102));
        final Lun lun = initiator.lun(1);
        final int bytes = 3 << 20; // larger than a command (1 MiB) and than a bounce buffer (128 KiB)
        final MemorySegment out = buffer(kind, bytes);
        final MemorySegment in = buffer(kind, bytes);
        final Random random = new Random(kind.hashCode());
        for (int round = 0; round < 20; round++) {
            final int blocks = 1 + random.nextInt(bytes / 4096);
            final long lba = random.nextLong(lun.blockCount() - blocks);
            final byte[] data = new byte[blocks * 4096];
            random.nextBytes(data);
            MemorySegment.copy(data, 0, out, ValueLayout.JAVA_BYTE, 0, data.length);
            assertEquals(data.length, lun.writeBlocking(lba, blocks, out, 0, round % 2 == 0));
            in.fill((byte) 0);
            assertEquals(data.length, lun.readBlocking(lba, blocks, in, 0));
            final byte[] got = new byte[data.length];
            MemorySegment.copy(in, ValueLayout.JAVA_BYTE, 0, got, 0, got.length);
            assertArrayEquals(data, got, "round " + round + ": " + blocks + " blocks at " + lba);
            final byte[] stored = new byte[data.length];
            lun1.read(lba * 4096, MemorySegment.ofArray(stored), 0, stored.length, s -> { });
            assertArrayEquals(data, stored, "the target's LUN holds what was written");
        }
    }

    private MemorySegment buffer(final String kind, final int bytes) {
        return switch (kind) {
            case "registered" -> initiator.allocateBuffer(bytes);
            case "heap" -> MemorySegment.ofArray(new byte[bytes]);
            default -> Arena.ofAuto().allocate(bytes, 4096);
        };
    }

    @Test
    void largeRequestsBecomeSeveralCommandsAndSmallWritesGoAsImmediateData() throws Exception {
        initiator = SrpInitiator.connect(config(0x103));
        final Lun lun = initiator.lun(0); // 256 KiB per command
        final MemorySegment buffer = initiator.allocateBuffer(1 << 20);
        buffer.fill((byte) 0x3C);
        final long before = initiator.commandsIssued();
        assertEquals(1 << 20, lun.writeBlocking(100, 2048, buffer, 0, false));
        assertEquals(4, initiator.commandsIssued() - before, "1 MiB at 256 KiB per command");
        final long beforeRead = initiator.commandsIssued();
        lun.readBlocking(100, 2048, MemorySegment.ofArray(new byte[1 << 20]), 0);
        assertEquals(8, initiator.commandsIssued() - beforeRead, "through bounce buffers: 128 KiB per command");

        final byte[] small = new byte[4096];
        new Random(5).nextBytes(small);
        final long writesBefore = initiator.commandsIssued();
        assertEquals(4096, lun.writeBlocking(7, 8, MemorySegment.ofArray(small), 0, false));
        assertEquals(1, initiator.commandsIssued() - writesBefore);
        final byte[] stored = new byte[4096];
        lun0.read(7 * 512, MemorySegment.ofArray(stored), 0, 4096, s -> { });
        assertArrayEquals(small, stored, "a 4 KiB write (immediate data) reached the LUN");
    }

    /**
     * Caller memory registered for a few operations ({@link SrpInitiator#registerMemory}) moves straight: 256 KiB in one
     * command (through the 128 KiB bounce buffers it would take two), the bytes where they belong on both sides; a
     * region another initiator registered is refused.
     */
    @Test
    void memoryRegisteredByTheCallerMovesWithoutBounceBuffers() throws Exception {
        initiator = SrpInitiator.connect(config(0x109));
        final Lun lun = initiator.lun(0); // 512-byte blocks, 256 KiB per command
        final int bytes = 256 * 1024;
        final byte[] data = new byte[bytes];
        new Random(9).nextBytes(data);
        final MemorySegment out = Arena.ofAuto().allocate(bytes + 4096, 4096);
        final MemorySegment in = Arena.ofAuto().allocate(bytes, 4096);
        MemorySegment.copy(data, 0, out, ValueLayout.JAVA_BYTE, 4096, bytes);
        try (MemoryRegion outRegion = initiator.registerMemory(out); MemoryRegion inRegion = initiator.registerMemory(in)) {
            final long before = initiator.commandsIssued();
            final CompletableFuture<Long> written = new CompletableFuture<>();
            lun.write(300, bytes / 512, outRegion, 4096, false, written, Lun.FUTURE_CALLBACK);
            assertEquals(bytes, written.get(30, TimeUnit.SECONDS));
            assertEquals(1, initiator.commandsIssued() - before, "one command, the region named to the target");
            final byte[] stored = new byte[bytes];
            lun0.read(300 * 512L, MemorySegment.ofArray(stored), 0, bytes, s -> { });
            assertArrayEquals(data, stored, "the target's LUN holds what was written from the region at its offset");

            final CompletableFuture<Long> read = new CompletableFuture<>();
            lun.read(300, bytes / 512, inRegion, 0, read, Lun.FUTURE_CALLBACK);
            assertEquals(bytes, read.get(30, TimeUnit.SECONDS));
            assertEquals(2, initiator.commandsIssued() - before);
            assertArrayEquals(data, in.toArray(ValueLayout.JAVA_BYTE), "the target wrote the read's data into the region");

            try (SrpInitiator other = SrpInitiator.connect(config(0x10A));
                 MemoryRegion foreign = other.registerMemory(Arena.ofAuto().allocate(bytes, 4096))) {
                assertThrows(IllegalArgumentException.class,
                        () -> lun.read(0, 1, foreign, 0, null, Lun.FUTURE_CALLBACK));
            }
        }
        assertThrows(IllegalArgumentException.class, () -> initiator.registerMemory(MemorySegment.ofArray(new byte[64])));
    }

    @Test
    void flushAndUnmap() throws Exception {
        initiator = SrpInitiator.connect(config(0x104));
        final Lun lun = initiator.lun(1);
        final MemorySegment buffer = initiator.allocateBuffer(64 * 4096);
        buffer.fill((byte) 0x77);
        lun.writeBlocking(1000, 64, buffer, 0, false);
        lun.flushBlocking();
        lun.unmapBlocking(1010, 16);
        buffer.fill((byte) 0x11);
        lun.readBlocking(1000, 64, buffer, 0);
        for (int block = 0; block < 64; block++) {
            final byte expected = block >= 10 && block < 26 ? 0 : (byte) 0x77;
            assertEquals(expected, buffer.get(ValueLayout.JAVA_BYTE, block * 4096L + 100), "block " + block);
        }
    }

    @Test
    void scsiErrorsReachTheCallerInWords() throws Exception {
        initiator = SrpInitiator.connect(config(0x105));
        final Lun readOnly = initiator.lun(2);
        final ScsiStatusException e = assertThrows(ScsiStatusException.class,
                () -> readOnly.writeBlocking(0, 1, MemorySegment.ofArray(new byte[512]), 0, false));
        assertEquals(0x02, e.status());
        assertEquals(0x07, e.senseKey());
        assertEquals(0x27, e.asc());
        assertTrue(e.getMessage().contains("CHECK CONDITION, DATA PROTECT, WRITE PROTECTED"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> readOnly.read(readOnly.blockCount(), 1,
                MemorySegment.ofArray(new byte[512]), 0));
        assertEquals(512, readOnly.readBlocking(0, 1, MemorySegment.ofArray(new byte[512]), 0), "the LUN goes on serving");
    }

    @Test
    void aLoginTheTargetRejectsSaysWhy() {
        final SrpIoException e = assertThrows(SrpIoException.class,
                () -> SrpInitiator.connect(config(0x106).withTargetPortId(1, 2)));
        assertTrue(e.getMessage().contains("unable to associate the channel"), e.getMessage());
    }

    /** Four threads, four channels, many commands in flight each: every callback comes once, every block verifies. */
    @Test
    void manyThreadsOnSeveralChannels() throws Exception {
        initiator = SrpInitiator.connect(config(0x107).withChannels(4, InitiatorConfig.ChannelPolicy.PER_THREAD));
        assertEquals(4, initiator.channelCount());
        final Lun lun = initiator.lun(1);
        final int threads = 4;
        final int perThread = 400;
        final List<Thread> workers = new ArrayList<>();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        for (int t = 0; t < threads; t++) {
            final int id = t;
            workers.add(Thread.ofPlatform().start(() -> {
                try {
                    final MemorySegment buffer = initiator.allocateBuffer(perThread * 4096L);
                    final long base = id * (long) perThread;
                    final CountDownLatch written = new CountDownLatch(perThread);
                    final AtomicLong calls = new AtomicLong();
                    final IoCallback count = (attachment, bytes, error) -> {
                        if (error != null) {
                            failure.compareAndSet(null, error);
                        }
                        calls.incrementAndGet();
                        ((CountDownLatch) attachment).countDown();
                    };
                    for (int i = 0; i < perThread; i++) {
                        buffer.asSlice(i * 4096L, 4096).fill((byte) (id * 31 + i));
                        lun.write(base + i, 1, buffer, i * 4096L, false, written, count);
                    }
                    assertTrue(written.await(60, TimeUnit.SECONDS));
                    buffer.fill((byte) 0);
                    final CountDownLatch read = new CountDownLatch(perThread);
                    for (int i = 0; i < perThread; i++) {
                        lun.read(base + i, 1, buffer, i * 4096L, read, count);
                    }
                    assertTrue(read.await(60, TimeUnit.SECONDS));
                    assertEquals(2L * perThread, calls.get(), "one callback per operation");
                    for (int i = 0; i < perThread; i++) {
                        assertEquals((byte) (id * 31 + i), buffer.get(ValueLayout.JAVA_BYTE, i * 4096L + 4095), "block " + i);
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }));
        }
        for (final Thread worker : workers) {
            worker.join(120_000);
        }
        if (failure.get() != null) {
            throw new AssertionError("a worker failed", failure.get());
        }
    }

    /**
     * The target stops for good while commands are in flight: the channel tries to log in again for the reconnect
     * timeout (2 s here), then every caller hears back (an error or its data), none waits on.
     */
    @Test
    void aTargetThatGoesAwayFailsWhatIsInFlightAndNothingHangs() throws Exception {
        initiator = SrpInitiator.connect(config(0x108).withFaultHandling(Duration.ofSeconds(30), Duration.ofSeconds(2), 3));
        final Lun lun = initiator.lun(1);
        final List<CompletableFuture<Long>> pending = new ArrayList<>();
        final MemorySegment buffer = initiator.allocateBuffer(256 * 4096L);
        for (int i = 0; i < 256; i++) {
            pending.add(lun.read(i, 1, buffer, i * 4096L));
        }
        target.close();
        target = null;
        for (int i = 0; i < 64; i++) {
            pending.add(lun.read(i, 1, MemorySegment.ofArray(new byte[4096]), 0));
        }
        int failed = 0;
        for (final CompletableFuture<Long> future : pending) {
            try {
                future.get(20, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException e) {
                assertTrue(e.getCause() instanceof SrpIoException, String.valueOf(e.getCause()));
                failed++;
            }
        }
        assertTrue(failed >= 64, "the reads after the target went failed: " + failed);
        final SrpIoException after = assertThrows(SrpIoException.class,
                () -> lun.readBlocking(0, 1, MemorySegment.ofArray(new byte[4096]), 0));
        assertNotNull(after.getMessage());
    }
}

package org.rdmablock.initiator;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.rdmablock.protocol.scsi.BackendCallback;
import org.rdmablock.protocol.scsi.BlockBackend;
import org.rdmablock.protocol.scsi.ForwardingBackend;
import org.rdmablock.protocol.scsi.InMemoryBackend;
import org.rdmablock.protocol.scsi.LogicalUnit;
import org.rdmablock.protocol.scsi.LogicalUnitConfig;
import org.rdmablock.protocol.scsi.LogicalUnitTable;
import org.rdmablock.target.TargetMain;
import org.rdmablock.target.srp.SrpTarget;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Faults the initiator rides out: a command the target does not answer in time (ABORT TASK, sent again), the target
 * daemon killed with SIGKILL under a write load and started again (the channel logs in again by itself, sends again
 * what was never answered, no caller waits forever, no acknowledged write is lost), and a target away for longer than
 * the reconnect timeout (the channel is down, its requests fail at once, and it comes back when the target does).
 */
class FaultTest {
    static final int BLOCK = 4096;
    /** Blocks each writer owns; writers stream over their own range, generation after generation. */
    static final int BLOCKS_PER_WRITER = 256;
    static final int WRITERS = 2;
    static final int DEPTH = 8;

    /** Reads of block 77 hang the first time, until released: the initiator's timeout must abort and resend them. */
    @Test
    @Timeout(60)
    void aCommandThatGetsNoAnswerIsAbortedAndSentAgain() throws Exception {
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicInteger stuckReads = new AtomicInteger();
        final InMemoryBackend memory = new InMemoryBackend(16L << 20);
        final BlockBackend hangsOnce = new ForwardingBackend(memory) {
            @Override
            public void read(final long offset, final MemorySegment buffer, final long at, final int length, final BackendCallback cb) {
                if (offset == 77L * BLOCK && stuckReads.getAndIncrement() == 0) {
                    try {
                        release.await(30, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                super.read(offset, buffer, at, length, cb);
            }
        };
        final LogicalUnitTable units = new LogicalUnitTable();
        units.add(new LogicalUnit(0, LogicalUnitConfig.builder().serialNumber("hang").blockSize(BLOCK).build(), hangsOnce));
        try (SrpTarget target = SrpTarget.start(InitiatorTest.targetConfig(), initiator -> units);
             SrpInitiator initiator = SrpInitiator.connect(InitiatorConfig.of(InitiatorTest.PROVIDER, InitiatorTest.ADDRESS,
                     target.localAddress().getPort()).withTargetPortId(InitiatorTest.ID_EXT, InitiatorTest.IOC_GUID)
                     .withInitiatorPortId(0x401, 1).withFaultHandling(Duration.ofMillis(300), Duration.ofSeconds(5), 3))) {
            final Lun lun = initiator.lun(0);
            final MemorySegment buffer = initiator.allocateBuffer(BLOCK);
            buffer.fill((byte) 0x5C);
            lun.writeBlocking(77, 1, buffer, 0, false);
            buffer.fill((byte) 0);
            final long started = System.nanoTime();
            assertEquals(BLOCK, lun.readBlocking(77, 1, buffer, 0), "the read came back after an abort and a resend");
            assertTrue(System.nanoTime() - started >= TimeUnit.MILLISECONDS.toNanos(300), "not before the timeout");
            assertEquals((byte) 0x5C, buffer.get(ValueLayout.JAVA_BYTE, 100));
            assertTrue(initiator.aborts() >= 1, "ABORT TASKs: " + initiator.aborts());
            assertTrue(initiator.retries() >= 1, "resends: " + initiator.retries());
            assertEquals(2, stuckReads.get(), "the target saw the read twice");
            release.countDown();
            // the first read's late answer frees its slot; the channel goes on
            for (int i = 0; i < 20; i++) {
                assertEquals(BLOCK, lun.readBlocking(i, 1, buffer, 0));
            }
        } finally {
            release.countDown();
        }
    }

    /**
     * The target away for longer than the reconnect timeout: the channel goes down (its requests fail, and at once while
     * it is down), keeps trying to log in, and comes back by itself once a target listens on the port again, with the
     * data written before it went.
     */
    @Test
    @Timeout(90)
    void aChannelDownPastTheReconnectTimeoutComesBackWhenTheTargetDoes() throws Exception {
        final InMemoryBackend memory = new InMemoryBackend(16L << 20);
        final LogicalUnitTable units = new LogicalUnitTable();
        units.add(new LogicalUnit(0, LogicalUnitConfig.builder().serialNumber("down").blockSize(BLOCK).build(), memory));
        final org.rdmablock.target.config.TargetConfig first = InitiatorTest.targetConfig();
        SrpTarget target = SrpTarget.start(first, initiator -> units);
        final int port = target.localAddress().getPort();
        final Duration reconnectTimeout = Duration.ofMillis(500);
        try (SrpInitiator initiator = SrpInitiator.connect(InitiatorConfig.of(InitiatorTest.PROVIDER, InitiatorTest.ADDRESS, port)
                .withTargetPortId(InitiatorTest.ID_EXT, InitiatorTest.IOC_GUID).withInitiatorPortId(0x403, 1)
                .withFaultHandling(Duration.ofSeconds(5), reconnectTimeout, 3))) {
            final Lun lun = initiator.lun(0);
            final MemorySegment buffer = initiator.allocateBuffer(BLOCK);
            buffer.fill((byte) 0x3A);
            lun.writeBlocking(9, 1, buffer, 0, false);
            target.close();

            // lost, no login within the reconnect timeout: down, and the waiting request fails
            final SrpIoException down = awaitARequestFailing(lun, buffer);
            assertTrue(down.getMessage().contains("lost"), down.getMessage());
            final long asked = System.nanoTime();
            assertThrows(SrpIoException.class, () -> lun.readBlocking(9, 1, buffer, 0), "down: requests fail");
            final Duration took = Duration.ofNanos(System.nanoTime() - asked);
            // a channel still logging in again would hold the request for up to the reconnect timeout
            assertTrue(took.compareTo(reconnectTimeout.dividedBy(2)) < 0,
                    "and at once, not after a reconnect timeout (" + reconnectTimeout + "): " + took);

            final long reconnects = initiator.reconnects();
            target = SrpTarget.start(new org.rdmablock.target.config.TargetConfig(first.source(),
                    new org.rdmablock.target.config.ListenConfig(InitiatorTest.PROVIDER, InitiatorTest.ADDRESS, port),
                    first.identity(), first.channel(), first.pipeline(), first.timeouts(), first.luns(), first.metrics()),
                    portId -> units);
            // back by itself at its next login attempt (every 5 s while down)
            buffer.fill((byte) 0);
            await("the channel logged in again by itself once the target was back")
                    .atMost(Duration.ofNanos(4 * Reconnection.DOWN_LOGIN_INTERVAL_NANOS)).pollInterval(Duration.ofMillis(100))
                    .ignoreExceptionsInstanceOf(SrpIoException.class)
                    .until(() -> lun.readBlocking(9, 1, buffer, 0) == BLOCK);
            assertEquals((byte) 0x3A, buffer.get(ValueLayout.JAVA_BYTE, 100), "the block written before reads back");
            assertTrue(initiator.reconnects() > reconnects, "counted as a reconnect: " + initiator.reconnects());
        } finally {
            target.close();
        }
    }

    /**
     * An initiator closed while its target is away, whether its channel is still logging in again or already down,
     * closes quietly: every resource released, no exception (a mount stopped by SIGTERM while its target is down
     * unmounts without a word of its own).
     */
    @Test
    @Timeout(60)
    void closingWhileTheTargetIsAwayIsQuiet() throws Exception {
        final LogicalUnitTable units = new LogicalUnitTable();
        units.add(new LogicalUnit(0, LogicalUnitConfig.builder().serialNumber("away").blockSize(BLOCK).build(),
                new InMemoryBackend(1L << 20)));
        for (final boolean waitUntilDown : new boolean[]{false, true}) {
            final SrpTarget target = SrpTarget.start(InitiatorTest.targetConfig(), initiator -> units);
            final SrpInitiator initiator = SrpInitiator.connect(InitiatorConfig.of(InitiatorTest.PROVIDER,
                            InitiatorTest.ADDRESS, target.localAddress().getPort())
                    .withTargetPortId(InitiatorTest.ID_EXT, InitiatorTest.IOC_GUID).withInitiatorPortId(0x404, 1)
                    .withFaultHandling(Duration.ofSeconds(5), Duration.ofMillis(500), 3));
            final Lun lun = initiator.lun(0);
            final MemorySegment buffer = initiator.allocateBuffer(BLOCK);
            target.close();
            if (waitUntilDown) {
                awaitARequestFailing(lun, buffer);
            }
            assertDoesNotThrow(initiator::close, waitUntilDown ? "closed while down" : "closed while logging in again");
        }
    }

    /**
     * The daemon serving a file LUN is killed (SIGKILL) while two writers stream verified 4 KiB writes at depth 8, and
     * started again on the same port: the channel logs in again by itself; every write is answered (most succeed,
     * some may fail only if they ran out of retries); every acknowledged block reads back as written or newer.
     */
    @Test
    @Timeout(180)
    void aTargetKilledUnderLoadAndRestartedLosesNoAcknowledgedWrite(@TempDir final Path dir) throws Exception {
        final int port = freePort();
        final Path config = fileLunConfig(dir, port, 4, "", (long) WRITERS * BLOCKS_PER_WRITER * BLOCK);
        Process daemon = startDaemon(config, dir.resolve("daemon-1.log"));
        try (SrpInitiator initiator = SrpInitiator.connect(InitiatorConfig.of(InitiatorTest.PROVIDER, "127.0.0.1", port)
                .withTargetPortId(InitiatorTest.ID_EXT, InitiatorTest.IOC_GUID).withInitiatorPortId(0x402, 1)
                .withChannels(WRITERS, InitiatorConfig.ChannelPolicy.PER_THREAD)
                .withFaultHandling(Duration.ofSeconds(10), Duration.ofSeconds(60), 5))) {
            final Lun lun = initiator.lun(0);
            final AtomicBoolean stop = new AtomicBoolean();
            final AtomicLong acknowledged = new AtomicLong();
            final AtomicLong failed = new AtomicLong();
            final AtomicReference<Throwable> problem = new AtomicReference<>();
            final ConcurrentHashMap<Long, Long> lastAcknowledged = new ConcurrentHashMap<>();
            final List<Thread> writers = new ArrayList<>();
            for (int w = 0; w < WRITERS; w++) {
                final int writer = w;
                writers.add(Thread.ofPlatform().name("writer-" + w).start(() -> {
                    try {
                        stream(initiator, lun, writer, stop, acknowledged, failed, lastAcknowledged);
                    } catch (Throwable e) {
                        problem.compareAndSet(null, e);
                    }
                }));
            }
            awaitAtLeast(acknowledged, 500);
            daemon.toHandle().destroyForcibly(); // SIGKILL
            daemon.waitFor(30, TimeUnit.SECONDS);
            final long atKill = acknowledged.get();
            Thread.sleep(300); // an outage, not a wait for anything: the channel's first logins again are refused
            daemon = startDaemon(config, dir.resolve("daemon-2.log"));
            awaitAtLeast(acknowledged, atKill + 500);
            stop.set(true);
            for (final Thread t : writers) {
                t.join(60_000);
                assertTrue(!t.isAlive(), "a writer still waits: some write was never answered");
            }
            if (problem.get() != null) {
                throw new AssertionError("a writer failed", problem.get());
            }
            assertTrue(initiator.reconnects() >= 1, "the channels logged in again: " + initiator.reconnects());
            verifyAcknowledged(initiator, lastAcknowledged);
            System.out.printf("FaultTest: %d writes acknowledged, %d failed, %d reconnects, %d resends; %d blocks verified%n",
                    acknowledged.get(), failed.get(), initiator.reconnects(), initiator.retries(), lastAcknowledged.size());
        } finally {
            daemon.toHandle().destroyForcibly();
        }
    }

    /**
     * Reads back every block whose write was acknowledged ({@link #stream}'s pattern): whole, its own, and holding its
     * acknowledged generation or a newer one (a later write the target did but never answered); returns the count.
     */
    static long verifyAcknowledged(final SrpInitiator initiator, final Map<Long, Long> lastAcknowledged) throws SrpIoException {
        final MemorySegment buffer = initiator.allocateBuffer(BLOCK);
        final Lun lun = initiator.lun(0);
        for (final var entry : lastAcknowledged.entrySet()) {
            assertEquals(BLOCK, lun.readBlocking(entry.getKey(), 1, buffer, 0), "block " + entry.getKey() + " read back");
            final long lba = buffer.get(ValueLayout.JAVA_LONG, 0);
            final long generation = buffer.get(ValueLayout.JAVA_LONG, 8);
            assertEquals((long) entry.getKey(), lba, "block " + entry.getKey() + " holds its own pattern");
            assertTrue(generation >= entry.getValue(), "block " + entry.getKey() + " lost acknowledged generation "
                    + entry.getValue() + " (holds " + generation + ")");
            assertEquals(generation ^ lba, buffer.get(ValueLayout.JAVA_LONG, BLOCK - 8), "block " + entry.getKey() + " is whole");
        }
        return lastAcknowledged.size();
    }

    /** One writer: its own blocks, written in turn with rising generations, {@link #DEPTH} in flight. */
    static void stream(final SrpInitiator initiator, final Lun lun, final int writer, final AtomicBoolean stop,
                               final AtomicLong acknowledged, final AtomicLong failed,
                               final ConcurrentHashMap<Long, Long> lastAcknowledged) throws InterruptedException {
        final MemorySegment buffers = initiator.allocateBuffer((long) DEPTH * BLOCK);
        final java.util.concurrent.Semaphore slots = new java.util.concurrent.Semaphore(DEPTH);
        final boolean[] busy = new boolean[DEPTH];
        long generation = 0;
        int next = 0;
        while (!stop.get()) {
            slots.acquire();
            int slot;
            synchronized (busy) {
                slot = 0;
                while (busy[slot]) {
                    slot++;
                }
                busy[slot] = true;
            }
            // one write per block in flight at a time: the block's next write waits until this one is answered
            final long lba = (long) writer * BLOCKS_PER_WRITER + next;
            next = (next + 1) % BLOCKS_PER_WRITER;
            generation++;
            final MemorySegment data = buffers.asSlice((long) slot * BLOCK, BLOCK);
            data.set(ValueLayout.JAVA_LONG, 0, lba);
            data.set(ValueLayout.JAVA_LONG, 8, generation);
            data.set(ValueLayout.JAVA_LONG, BLOCK - 8, generation ^ lba);
            final long written = generation;
            final int used = slot;
            lun.write(lba, 1, buffers, (long) slot * BLOCK, false, null, (attachment, bytes, failure) -> {
                if (failure == null) {
                    lastAcknowledged.merge(lba, written, Math::max);
                    acknowledged.incrementAndGet();
                } else {
                    failed.incrementAndGet();
                }
                synchronized (busy) {
                    busy[used] = false;
                }
                slots.release();
            });
        }
        slots.acquire(DEPTH); // every write answered
    }

    /** Reads block 9 until a read fails (the target away, the channel down); that failure. */
    private static SrpIoException awaitARequestFailing(final Lun lun, final MemorySegment buffer) {
        final AtomicReference<SrpIoException> down = new AtomicReference<>();
        await("a request failed while the target was away").atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(20)).until(() -> {
                    try {
                        lun.readBlocking(9, 1, buffer, 0);
                        return false;
                    } catch (SrpIoException e) {
                        down.set(e);
                        return true;
                    }
                });
        return down.get();
    }

    private static void awaitAtLeast(final AtomicLong counter, final long count) {
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(10)).untilAsserted(() -> assertTrue(
                counter.get() >= count, "only " + counter.get() + " writes acknowledged, waiting for " + count));
    }

    /** A TCP port nobody listens on now (the daemon is started on it, killed and started again on it). */
    static int freePort() throws java.io.IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    /**
     * The daemon's config in {@code dir}: the test target's identity on {@code port}, 32 credits and at most
     * {@code maxChannels} channels, {@code pipeline} (TOML lines of [pipeline], or empty), and one write-through file
     * LUN of {@code bytes} in {@link #BLOCK}-byte blocks.
     */
    static Path fileLunConfig(final Path dir, final int port, final int maxChannels, final String pipeline, final long bytes)
            throws java.io.IOException {
        final Path config = dir.resolve("target.toml");
        Files.writeString(config, """
                [listen]
                port = %d
                [target]
                id_ext = "0x%016x"
                ioc_guid = "0x%016x"
                [channel]
                credits = 32
                max_channels = %d
                [pipeline]
                %s
                [[lun]]
                number = 0
                backend = "file"
                path = "lun.img"
                create = true
                size = "%d"
                block_size = %d
                write_cache = "write-through"
                """.formatted(port, InitiatorTest.ID_EXT, InitiatorTest.IOC_GUID, maxChannels, pipeline, bytes, BLOCK));
        return config;
    }

    /** The target daemon in a child JVM, ready once its banner says how to reach it. */
    static Process startDaemon(final Path config, final Path log) throws Exception {
        final Process process = new ProcessBuilder(ProcessHandle.current().info().command().orElse("java"),
                "-cp", System.getProperty("java.class.path"), "--enable-native-access=ALL-UNNAMED", "-XX:TieredStopAtLevel=1",
                "-Xmx256m", TargetMain.class.getName(), "--config", config.toString()).redirectError(log.toFile()).start();
        final BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        try {
            // a line at a time; a daemon that hangs silent is given up at the deadline, not waited for in readLine
            await().atMost(Duration.ofSeconds(30)).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1)).until(() -> {
                final String line = out.readLine();
                if (line == null) {
                    throw new IllegalStateException("the daemon ended");
                }
                return line.startsWith("reach it");
            });
        } catch (Exception e) { // the deadline passed, the daemon ended, or its output broke
            process.toHandle().destroyForcibly();
            throw new IllegalStateException("the daemon did not start (" + e.getMessage() + "): " + Files.readString(log), e);
        }
        Thread.ofPlatform().daemon().start(() -> out.lines().forEach(ignored -> { }));
        return process;
    }
}

package org.rdmablock.initiator;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A reconnect storm (issue 41 §2): many initiators, several channels each, stream verified writes to a daemon that is
 * killed with SIGKILL and started again on the same port. Every channel must log in again by itself, no login may be
 * refused for want of channels, every write must be answered, every acknowledged block must read back (no read
 * failing after the reconnection), and the time from the new daemon's ready line to the last channel back is printed
 * (docs/benchmarks/reliability.md has the figures). {@code bin/test} runs 8 initiators × 2 channels;
 * {@code -Drdmablock.storm.initiators=64 -Drdmablock.storm.channels=4} is the 256 channels.
 */
class ReconnectStormTest {
    private static final int INITIATORS = Integer.getInteger("rdmablock.storm.initiators", 8);
    private static final int CHANNELS = Integer.getInteger("rdmablock.storm.channels", 2);
    /** Writes acknowledged per initiator before the kill, and again after the restart, before the writers stop. */
    private static final int ACKS_PER_INITIATOR = 100;

    @Test
    @Timeout(600)
    void everyChannelComesBackAfterTheDaemonIsKilledAndNoAcknowledgedWriteIsLost(@TempDir final Path dir) throws Exception {
        final int port = FaultTest.freePort();
        final Path config = FaultTest.fileLunConfig(dir, port, INITIATORS * CHANNELS, "completions = \"event\"",
                (long) INITIATORS * FaultTest.BLOCKS_PER_WRITER * FaultTest.BLOCK);
        Process daemon = FaultTest.startDaemon(config, dir.resolve("daemon-1.log"));
        final List<SrpInitiator> initiators = new ArrayList<>();
        final List<Thread> writers = new ArrayList<>();
        final AtomicBoolean stop = new AtomicBoolean();
        try {
            final long connectStarted = System.nanoTime();
            for (int i = 0; i < INITIATORS; i++) {
                initiators.add(SrpInitiator.connect(InitiatorConfig.of(InitiatorTest.PROVIDER, "127.0.0.1", port)
                        .withTargetPortId(InitiatorTest.ID_EXT, InitiatorTest.IOC_GUID).withInitiatorPortId(0x5000 + i, 1)
                        .withChannels(CHANNELS, InitiatorConfig.ChannelPolicy.ROUND_ROBIN)
                        .withWaiting(InitiatorConfig.Waiting.EVENTS)
                        .withFaultHandling(Duration.ofSeconds(10), Duration.ofSeconds(120), 5)));
            }
            final long connectNanos = System.nanoTime() - connectStarted;
            final AtomicLong[] acknowledged = new AtomicLong[INITIATORS];
            final AtomicLong failed = new AtomicLong();
            final AtomicReference<Throwable> problem = new AtomicReference<>();
            final List<ConcurrentHashMap<Long, Long>> lastAcknowledged = new ArrayList<>();
            for (int i = 0; i < INITIATORS; i++) {
                final int writer = i;
                acknowledged[i] = new AtomicLong();
                lastAcknowledged.add(new ConcurrentHashMap<>());
                writers.add(Thread.ofPlatform().name("storm-writer-" + i).start(() -> {
                    try {
                        FaultTest.stream(initiators.get(writer), initiators.get(writer).lun(0), writer, stop,
                                acknowledged[writer], failed, lastAcknowledged.get(writer));
                    } catch (Throwable e) {
                        problem.compareAndSet(null, e);
                    }
                }));
            }
            awaitEach(acknowledged, ACKS_PER_INITIATOR, "before the kill");
            daemon.toHandle().destroyForcibly(); // SIGKILL
            assertTrue(daemon.waitFor(30, TimeUnit.SECONDS), "the daemon ended");
            final long[] atKill = new long[INITIATORS];
            for (int i = 0; i < INITIATORS; i++) {
                atKill[i] = acknowledged[i].get();
            }
            daemon = FaultTest.startDaemon(config, dir.resolve("daemon-2.log"));
            final long restarted = System.nanoTime();
            await("every channel logged in again").atMost(Duration.ofSeconds(300)).pollInterval(Duration.ofMillis(20))
                    .until(() -> initiators.stream().mapToLong(SrpInitiator::reconnects).sum() >= (long) INITIATORS * CHANNELS);
            final long allBackNanos = System.nanoTime() - restarted;
            for (int i = 0; i < INITIATORS; i++) {
                atKill[i] += ACKS_PER_INITIATOR;
            }
            awaitEach(acknowledged, atKill, "after the restart");
            final long writesBackNanos = System.nanoTime() - restarted;
            stop.set(true);
            for (final Thread t : writers) {
                t.join(60_000);
                assertFalse(t.isAlive(), "a writer still waits: some write was never answered");
            }
            if (problem.get() != null) {
                throw new AssertionError("a writer failed", problem.get());
            }
            long verified = 0;
            for (int i = 0; i < INITIATORS; i++) {
                verified += FaultTest.verifyAcknowledged(initiators.get(i), lastAcknowledged.get(i));
            }
            final String log = Files.readString(dir.resolve("daemon-2.log"));
            assertFalse(log.contains("CHANNEL LIMIT REACHED"), "a login was refused for want of channels");
            long reconnects = 0;
            long retries = 0;
            for (final SrpInitiator initiator : initiators) {
                reconnects += initiator.reconnects();
                retries += initiator.retries();
            }
            System.out.printf("ReconnectStormTest: %d initiators x %d channels: connected in %.2f s; daemon killed, restarted:"
                            + " every channel back %.2f s after its ready line, every initiator writing again %.2f s after;"
                            + " %d reconnects, %d resends, %d writes failed; %d acknowledged blocks read back%n",
                    INITIATORS, CHANNELS, connectNanos / 1e9, allBackNanos / 1e9, writesBackNanos / 1e9, reconnects, retries,
                    failed.get(), verified);
        } finally {
            stop.set(true);
            for (final SrpInitiator initiator : initiators) {
                initiator.close();
            }
            daemon.toHandle().destroyForcibly();
        }
    }

    private static void awaitEach(final AtomicLong[] counters, final long count, final String when) {
        final long[] each = new long[counters.length];
        java.util.Arrays.fill(each, count);
        awaitEach(counters, each, when);
    }

    private static void awaitEach(final AtomicLong[] counters, final long[] counts, final String when) {
        await("every initiator's writes acknowledged " + when).atMost(Duration.ofSeconds(300)).pollInterval(Duration.ofMillis(20))
                .untilAsserted(() -> {
                    for (int i = 0; i < counters.length; i++) {
                        assertTrue(counters[i].get() >= counts[i], "initiator " + i + ": " + counters[i].get()
                                + " writes acknowledged, waiting for " + counts[i]);
                    }
                });
    }
}

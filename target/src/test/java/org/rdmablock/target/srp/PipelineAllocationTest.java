package org.rdmablock.target.srp;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.rdmablock.target.metrics.IoSnapshot;
import org.rdmablock.target.metrics.SessionStats;

import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The pipeline allocates nothing per command: a million 4 KiB commands of each mix through the
 * {@link org.rdmablock.target.core.CommandPipeline} ({@link PipelineHarness}: fake verbs, a backend that touches no data), counted with the JVM's per-thread
 * allocation counters on every thread a command runs on — the injecting thread (poller and initiator), the intake
 * stage and both backend threads — after a warm-up. The statistics are recorded all the while (LUN 0's and each
 * channel's session's counters and latency recorders): the test checks that every command was.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
public class PipelineAllocationTest {
    static final int WARMUP = 300_000;
    static final int MEASURED = 1_000_000;
    /** Bytes tolerated over the whole measured run for one-time things (a deoptimisation, a lazy JDK init). */
    static final long ONE_TIME_BYTES = 64 * 1024;

    @ParameterizedTest
    @EnumSource(PipelineHarness.Mix.class)
    void aMillionCommandsAllocateNothing(final PipelineHarness.Mix mix) {
        try (PipelineHarness harness = new PipelineHarness(2, 32, 2, new DiscardingBackend(PipelineHarness.DEVICE_BYTES))) {
            assertEquals(3, harness.pipelineThreads().size(), "intake and two backend threads: " + harness.pipelineThreads());
            measure(harness, mix);
        }
    }

    /**
     * {@code backend_threads = 0}: the injecting thread is the poller and runs every command, its posts gathered per
     * cycle ({@link org.rdmablock.target.core.SendBatch}); sixteen IUs per channel per cycle, so that each cycle's chains hold many commands.
     */
    @ParameterizedTest
    @EnumSource(PipelineHarness.Mix.class)
    void aMillionPollerRunCommandsAllocateNothing(final PipelineHarness.Mix mix) {
        try (PipelineHarness harness = new PipelineHarness(2, 32, 0, new DiscardingBackend(PipelineHarness.DEVICE_BYTES))) {
            assertEquals(0, harness.pipelineThreads().size(), "no stage threads: " + harness.pipelineThreads());
            harness.burst(16);
            measure(harness, mix);
        }
    }

    /**
     * A memory LUN served in place ({@code InPlaceStorage}: data-out READs into the LUN's memory, data-in WRITEs from
     * it, its registration made by the first command): nothing per command either, and the commands did go in place.
     */
    @ParameterizedTest
    @EnumSource(PipelineHarness.Mix.class)
    void aMillionInPlaceCommandsAllocateNothing(final PipelineHarness.Mix mix) {
        measureInPlace(org.rdmablock.target.config.LunConfig.BackendKind.MEMORY, null, mix);
    }

    /**
     * A file LUN's cached READs sent from its mapping ({@code FileBackend} as {@code InPlaceStorage}: a mincore per
     * command into the pipeline's vector): nothing per command, and the READs did go in place.
     */
    @org.junit.jupiter.api.Test
    void aMillionInPlaceFileReadsAllocateNothing(@org.junit.jupiter.api.io.TempDir final java.nio.file.Path dir) throws Exception {
        final java.nio.file.Path file = dir.resolve("lun0.img");
        java.nio.file.Files.write(file, new byte[IN_PLACE_LUN_BYTES]); // written, so every page is cached
        measureInPlace(org.rdmablock.target.config.LunConfig.BackendKind.FILE, file, PipelineHarness.Mix.READ);
    }

    private static final int IN_PLACE_LUN_BYTES = 64 << 20;

    /** {@link #measure} on the poller-run pipeline with in-place LUNs on; every measured command must have gone in place. */
    private static void measureInPlace(final org.rdmablock.target.config.LunConfig.BackendKind kind, final java.nio.file.Path path,
                                       final PipelineHarness.Mix mix) {
        try (org.rdmablock.target.backend.LunBackend lun = org.rdmablock.target.backend.BackendFactory.open(
                new org.rdmablock.target.config.LunConfig(0, kind, path, IN_PLACE_LUN_BYTES, PipelineHarness.BLOCK_SIZE, false,
                        org.rdmablock.target.config.LunConfig.WriteCachePolicy.WRITE_BACK, false, 0, java.util.List.of(), true, false));
             PipelineHarness harness = new PipelineHarness(2, 32, 0, lun, true)) {
            harness.burst(16);
            measure(harness, mix);
            assertTrue(harness.statistics.count(org.rdmablock.target.metrics.TargetStatistics.Count.IN_PLACE) >= MEASURED,
                    "every command went in place");
        }
    }

    /** Runs {@code mix} through {@code harness}: nothing allocated per command, every command recorded. */
    public static void measure(final PipelineHarness harness, final PipelineHarness.Mix mix) {
        harness.mix(mix);
        harness.run(WARMUP);
        final long[] threads = harness.commandThreadIds();
        allocated(threads);
        final long first = allocated(threads);
        final long before = allocated(threads);
        final long counting = before - first; // what reading the counters allocates
        final long[] perThreadBefore = MX.getThreadAllocatedBytes(threads);
        final long postsBefore = harness.posts;
        final long callsBefore = harness.postCalls(0) + harness.postCalls(1);
        final long start = System.nanoTime();
        harness.run(MEASURED);
        final long nanos = System.nanoTime() - start;
        final long[] perThreadAfter = MX.getThreadAllocatedBytes(threads);
        final long after = allocated(threads);
        final long bytes = after - before - counting;
        if (bytes > ONE_TIME_BYTES) {
            for (int i = 0; i < threads.length; i++) {
                System.out.printf("  thread %s: %d bytes%n", i == 0 ? "injecting" : harness.pipelineThreads().get(i - 1).getName(),
                        perThreadAfter[i] - perThreadBefore[i]);
            }
        }
        harness.drain();
        System.out.printf("pipeline %s: %d bytes allocated over %d commands (%.4f bytes/command) on %d threads;"
                        + " %.2f work requests and %.3f postSend calls per command; %.0f commands/s%n", mix, bytes,
                MEASURED, bytes / (double) MEASURED, threads.length, (harness.posts - postsBefore) / (double) MEASURED,
                (harness.postCalls(0) + harness.postCalls(1) - callsBefore) / (double) MEASURED, MEASURED / (nanos / 1e9));
        assertEquals(0, harness.failed, "responses that were not GOOD");
        assertTrue(bytes <= ONE_TIME_BYTES, mix + " allocated " + bytes + " bytes over " + MEASURED + " commands");
        assertRecorded(harness);
    }

    /** Every command the harness saw answered was recorded into LUN 0's and its session's figures, with its latency. */
    private static void assertRecorded(final PipelineHarness harness) {
        assertTrue(harness.pipeline.awaitHandled(java.time.Duration.ofSeconds(10)), "the stages handled every response");
        final IoSnapshot lun = harness.statistics.lun(0).snapshot();
        assertEquals(harness.completed, lun.readCommands() + lun.writeCommands(), "LUN 0's commands: " + lun);
        assertEquals(harness.completed, lun.readLatency().count() + lun.writeLatency().count(), "latencies recorded");
        assertEquals(PipelineHarness.IO_BYTES * harness.completed, lun.readBytes() + lun.writeBytes(), "bytes recorded");
        assertEquals(0, lun.queueDepth(), "every command left the target's hands");
        long sessions = 0;
        for (final SessionStats session : harness.statistics.sessions()) {
            sessions += session.io.snapshot().readCommands() + session.io.snapshot().writeCommands();
        }
        assertEquals(harness.completed, sessions, "the sessions' commands");
    }

    private static final com.sun.management.ThreadMXBean MX = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    static long allocated(final long[] threads) {
        return Arrays.stream(MX.getThreadAllocatedBytes(threads)).sum();
    }
}

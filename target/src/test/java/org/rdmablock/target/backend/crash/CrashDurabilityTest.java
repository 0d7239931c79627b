package org.rdmablock.target.backend.crash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.rdmablock.target.Waiting.waitUpTo;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.rdmablock.protocol.scsi.BackendStatus;
import org.rdmablock.target.backend.BackendFactory;
import org.rdmablock.target.backend.LunBackend;
import org.rdmablock.target.config.LunConfig.BackendKind;
import org.rdmablock.target.config.LunConfig.WriteCachePolicy;

/**
 * Acknowledged writes survive a crash: a child JVM ({@link CrashWriter}) streams verifiable writes from four threads
 * and prints each acknowledged one; it is killed with SIGKILL at a random moment; the backend is reopened here and
 * {@link DurabilityVerifier} checks that every acknowledged block reads back (its version or a later, in-flight one).
 * 20 trials per persistent backend and policy, alternating 4096- and 512-byte blocks (with 512, RocksDB patches 4 KiB
 * groups that four threads share). Two trials run at a time: a child starting up overlaps another being killed
 * and checked.
 *
 * <p>What this proves is survival of the process's death: data the backend handed to the kernel (page cache, WAL file)
 * survives SIGKILL whether or not it was synced. Survival of a power cut, which needs the fdatasync, O_DSYNC and WAL
 * sync, cannot be shown by killing a process; it would need a VM or a device-mapper target that drops unsynced writes.
 * Set {@code -Dcrash.seed=N} to repeat a run.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class CrashDurabilityTest {
    private static final int TRIALS = 20;
    private static final int TRIALS_AT_ONCE = 2;
    private static final int WRITERS = 4;
    private static final int BLOCKS = 64;
    /** The child is killed at a random moment up to this long after its first acknowledgement. */
    private static final int MAX_RUN_AFTER_FIRST_ACK_MILLIS = 150;
    /** How long a child may take to start and acknowledge its first write. */
    private static final long FIRST_ACK_TIMEOUT_MILLIS = 30_000;
    /** Exit status of a process killed by SIGKILL, as Process reports it. */
    private static final int KILLED = 128 + 9;

    /** Where RocksDB's native library is unpacked once (CrashVariants.unpackRocksDb). */
    @TempDir
    static Path nativeLibraries;

    @BeforeAll
    static void unpack() throws IOException {
        CrashVariants.unpackRocksDb(nativeLibraries);
    }

    /** One trial: what the child writes, where, and how long after its first acknowledgement it is killed. */
    private record Trial(int number, WriteSchedule schedule, Path path, int runMillis) {
    }

    /** What checking one trial found. */
    private record Outcome(long acknowledged, DurabilityVerifier.Result result) {
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("org.rdmablock.target.backend.crash.CrashVariants#persistent")
    void acknowledgedWritesSurviveSigkill(BackendKind kind, WriteCachePolicy writeCache, @TempDir Path dir) throws Exception {
        long seed = Long.getLong("crash.seed", System.nanoTime());
        Random random = new Random(seed);
        List<Trial> trials = new ArrayList<>();
        for (int t = 0; t < TRIALS; t++) {
            trials.add(new Trial(t, new WriteSchedule(random.nextLong(), WRITERS, BLOCKS, t % 2 == 0 ? 4096 : 512),
                    dir.resolve("trial-" + t + (kind == BackendKind.FILE ? ".img" : "")), random.nextInt(MAX_RUN_AFTER_FIRST_ACK_MILLIS)));
        }
        long started = System.nanoTime();
        List<Future<Outcome>> outcomes = new ArrayList<>();
        try (ExecutorService runner = Executors.newFixedThreadPool(TRIALS_AT_ONCE)) {
            for (Trial trial : trials) {
                String context = kind + " " + writeCache + " trial " + trial.number() + " (crash.seed " + seed + ", " + trial.schedule() + ")";
                outcomes.add(runner.submit(() -> runAndCheck(kind, writeCache, trial, dir, context)));
            }
            long acknowledged = 0;
            int newer = 0;
            int torn = 0;
            try {
                for (Future<Outcome> outcome : outcomes) {
                    Outcome done = CrashVariants.resultOf(outcome);
                    acknowledged += done.acknowledged();
                    newer += done.result().newerThanAcknowledged();
                    torn += done.result().tornByUnacknowledged();
                }
            } catch (Exception | Error e) {
                runner.shutdownNow(); // one loss is enough: stop the trials still running (their children are killed)
                throw e;
            }
            System.out.printf("%s %s: %d trials, %d acknowledged writes, 0 lost; %d blocks held a landed unacknowledged write, "
                            + "%d were torn by one; %.1f s%n", kind, writeCache, TRIALS, acknowledged, newer, torn,
                    (System.nanoTime() - started) / 1e9);
        }
    }

    /** Runs one trial's writer until it is killed, reopens the backend and checks every block; fails the trial on a loss. */
    private static Outcome runAndCheck(BackendKind kind, WriteCachePolicy writeCache, Trial trial, Path dir, String context) throws Exception {
        WriteSchedule schedule = trial.schedule();
        AcknowledgedWrites acks = runUntilKilled(kind, trial.path(), writeCache, schedule, trial.runMillis(), dir, context);
        try (LunBackend backend = BackendFactory.open(CrashWriter.lunConfig(kind, trial.path(), writeCache, schedule))) {
            DurabilityVerifier.Result result = DurabilityVerifier.verify(schedule, acks, 1, (block, buffer) -> {
                Status status = new Status();
                backend.read(block * schedule.blockSize(), buffer, 0, schedule.blockSize(), status);
                assertEquals(BackendStatus.OK, status.last, "read of block " + block);
            });
            assertTrue(result.ok(), context + ": " + acks.total() + " acknowledged writes, lost:\n" + String.join("\n", result.problems()));
            assertTrue(result.acknowledgedBlocks() > 0, context + ": no block was acknowledged");
            return new Outcome(acks.total(), result);
        }
    }

    /** Starts the writer, lets it run until {@code runMillis} after its first acknowledgement, kills it, and returns its log. */
    private static AcknowledgedWrites runUntilKilled(BackendKind kind, Path path, WriteCachePolicy writeCache, WriteSchedule schedule,
                                                     int runMillis, Path dir, String context) throws Exception {
        List<String> command = CrashVariants.childJvm(nativeLibraries, CrashWriter.class.getName());
        command.addAll(CrashWriter.arguments(kind, path, writeCache, schedule));
        Path errors = dir.resolve(path.getFileName() + ".stderr");
        Process child = new ProcessBuilder(command).redirectError(errors.toFile()).start();
        try {
            return acknowledgementsUntilKilled(child, schedule, runMillis, errors, context);
        } finally {
            child.toHandle().destroyForcibly(); // also when the trial was interrupted or failed: no writer is left behind
        }
    }

    private static AcknowledgedWrites acknowledgementsUntilKilled(Process child, WriteSchedule schedule, int runMillis, Path errors,
                                                                  String context) throws Exception {
        AcknowledgedWrites acks = new AcknowledgedWrites(schedule.writers());
        AtomicReference<Throwable> readFailure = new AtomicReference<>();
        Thread reader = Thread.ofPlatform().name("crash-writer-output").start(() -> readAcknowledgements(child, acks, readFailure));
        try {
            waitUpTo(Duration.ofMillis(FIRST_ACK_TIMEOUT_MILLIS), "the writer's first acknowledgement, or its end")
                    .until(() -> acks.total() > 0 || !child.isAlive());
        } catch (ConditionTimeoutException e) {
            // none: the kill comes all the same, and the checks after it fail the trial with the writer's stderr
        }
        Thread.sleep(runMillis); // not a wait for a state: the kill comes at a random moment of the writes, what is tested
        boolean aliveWhenKilled = child.isAlive();
        // SIGKILL through the handle: Process.destroyForcibly would also close our end of the child's stdout, losing
        // the acknowledgements still in the pipe
        child.toHandle().destroyForcibly();
        int exit = child.waitFor();
        reader.join(10_000);
        String stderr = Files.readString(errors);
        assertTrue(!reader.isAlive() && readFailure.get() == null, context + ": reading the acknowledgements failed: " + readFailure.get());
        assertTrue(aliveWhenKilled && exit == KILLED, context + ": the writer ended by itself (exit " + exit + "): " + stderr);
        assertTrue(acks.total() > 0, context + ": no write acknowledged within " + FIRST_ACK_TIMEOUT_MILLIS + " ms: " + stderr);
        return acks;
    }

    /** Records every acknowledgement the child printed, until the end of its output (after its death). */
    private static void readAcknowledgements(Process child, AcknowledgedWrites acks, AtomicReference<Throwable> failure) {
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.US_ASCII))) {
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                acks.record(line);
            }
        } catch (IOException | RuntimeException e) {
            failure.set(e);
        }
    }

    private static final class Status implements org.rdmablock.protocol.scsi.BackendCallback {
        BackendStatus last;

        @Override
        public void completed(BackendStatus status) {
            last = status;
        }
    }
}

package org.rdmablock.target.srp;

import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.rdmablock.protocol.scsi.BackendStatus;
import org.rdmablock.protocol.scsi.ScsiStatus;
import org.rdmablock.target.TargetMain;
import org.rdmablock.target.backend.BackendFactory;
import org.rdmablock.target.backend.LunBackend;
import org.rdmablock.target.backend.crash.AcknowledgedWrites;
import org.rdmablock.target.backend.crash.BlockReader;
import org.rdmablock.target.backend.crash.CrashVariants;
import org.rdmablock.target.backend.crash.DurabilityVerifier;
import org.rdmablock.target.backend.crash.WriteSchedule;
import org.rdmablock.target.config.LunConfig;
import org.rdmablock.target.config.LunConfig.BackendKind;
import org.rdmablock.target.config.LunConfig.WriteCachePolicy;
import org.rdmablock.target.config.TargetConfigReader;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.rdmablock.target.Waiting.waitUpTo;

/**
 * Acknowledged writes survive a crash of the whole daemon: a child JVM runs the target ({@link TargetMain} on a config
 * file), this JVM's initiator streams verifiable writes to it over the soft provider and records each one the target
 * acknowledged with GOOD (in write-back, after a SYNCHRONIZE CACHE that also came back GOOD), and the child is killed
 * with SIGKILL mid-stream. Then every acknowledged block must read back: from the reopened backend in every trial, and
 * through a restarted daemon in the first trial of each variant. 20 trials per persistent backend and policy.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class DaemonCrashTest {
    private static final int TRIALS = Integer.getInteger("rdmablock.crash.trials", 20);
    private static final int TRIALS_AT_ONCE = 3;
    private static final int BLOCKS = 64;
    /** Acknowledged writes before the kill may come: the stream is under way, not starting. */
    private static final int MIN_ACKS_BEFORE_KILL = 16;
    /** The child is killed at a random moment up to this long after {@link #MIN_ACKS_BEFORE_KILL} acknowledgements. */
    private static final int MAX_RUN_AFTER_FIRST_ACK_MILLIS = 200;
    private static final long START_TIMEOUT_MILLIS = 60_000;

    /** RocksDB's native library for the daemons (CrashVariants.unpackRocksDb). */
    @TempDir
    static Path nativeLibraries;

    private record Trial(int number, WriteSchedule schedule, Path dir, int runMillis) {
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("org.rdmablock.target.backend.crash.CrashVariants#persistent")
    void acknowledgedWritesSurviveSigkillOfTheDaemon(final BackendKind kind, final WriteCachePolicy writeCache,
                                                     @TempDir final Path dir) throws Exception {
        CrashVariants.unpackRocksDb(nativeLibraries);
        final long seed = Long.getLong("crash.seed", System.nanoTime());
        final Random random = new Random(seed);
        final List<Trial> trials = new ArrayList<>();
        for (int t = 0; t < TRIALS; t++) {
            final Path trialDir = Files.createDirectories(dir.resolve("trial-" + t));
            trials.add(new Trial(t, new WriteSchedule(random.nextLong(), 1, BLOCKS, t % 2 == 0 ? 4096 : 512), trialDir,
                    random.nextInt(MAX_RUN_AFTER_FIRST_ACK_MILLIS)));
        }
        final long started = System.nanoTime();
        long acknowledged = 0;
        try (ExecutorService runner = Executors.newFixedThreadPool(TRIALS_AT_ONCE)) {
            final List<Future<Long>> outcomes = new ArrayList<>();
            for (final Trial trial : trials) {
                final String context = kind + " " + writeCache + " trial " + trial.number() + " (crash.seed " + seed + ")";
                outcomes.add(runner.submit(() -> runAndCheck(kind, writeCache, trial, context)));
            }
            try {
                for (final Future<Long> outcome : outcomes) {
                    acknowledged += CrashVariants.resultOf(outcome);
                }
            } catch (Exception | Error e) {
                runner.shutdownNow();
                throw e;
            }
        }
        System.out.printf("daemon %s %s: %d trials, %d acknowledged writes, 0 lost; %.1f s%n", kind, writeCache, TRIALS,
                acknowledged, (System.nanoTime() - started) / 1e9);
    }

    private static long runAndCheck(final BackendKind kind, final WriteCachePolicy writeCache, final Trial trial,
                                    final String context) throws Exception {
        final WriteSchedule schedule = trial.schedule();
        final AcknowledgedWrites acks = new AcknowledgedWrites(1);
        final Daemon daemon = startOnAFreePort(kind, writeCache, trial, "daemon.log");
        final Path config = daemon.config;
        try {
            writeUntilKilled(daemon, schedule, writeCache == WriteCachePolicy.WRITE_BACK, acks, trial.runMillis(), context);
        } finally {
            daemon.kill();
        }
        assertTrue(acks.total() > 0, context + ": nothing was acknowledged");
        final LunConfig lun = TargetConfigReader.read(config).luns().getFirst();
        try (LunBackend backend = BackendFactory.open(lun)) {
            check(schedule, acks, context + ", reopened backend", (block, buffer) -> {
                final BackendStatus[] status = new BackendStatus[1];
                backend.read(block * schedule.blockSize(), buffer, 0, schedule.blockSize(), s -> status[0] = s);
                assertEquals(BackendStatus.OK, status[0], "read of block " + block);
            });
        }
        if (trial.number() == 0) {
            // The whole restart: a new daemon on the same LUN serves every acknowledged block over the wire.
            final Daemon restarted = startOnAFreePort(kind, writeCache, trial, "restarted.log");
            try (TestInitiator ini = TestInitiator.login(restarted.address, SrpTargetTest.ID_EXT, SrpTargetTest.IOC_GUID, 9, 1 << 20)) {
                check(schedule, acks, context + ", restarted daemon", (block, buffer) -> {
                    final TestInitiator.Response r = ini.execute(0, TestInitiator.read16(block, 1), 0, schedule.blockSize(), 0, false);
                    assertEquals(ScsiStatus.GOOD, r.status(), "READ of block " + block);
                    buffer.copyFrom(ini.buffer().asSlice(0, schedule.blockSize()));
                });
            } finally {
                restarted.kill();
            }
        }
        return acks.total();
    }

    private static void check(final WriteSchedule schedule, final AcknowledgedWrites acks, final String context,
                              final BlockReader reader) {
        final DurabilityVerifier.Result result = DurabilityVerifier.verify(schedule, acks, 1, reader);
        assertTrue(result.ok(), context + ": " + acks.total() + " acknowledged writes, lost:\n" + String.join("\n", result.problems()));
        assertTrue(result.acknowledgedBlocks() > 0, context + ": no block was acknowledged");
    }

    /** Streams writes until the daemon dies under them; a write counts once its GOOD (and flush's GOOD) came back. */
    private static void writeUntilKilled(final Daemon daemon, final WriteSchedule schedule, final boolean flushEach,
                                         final AcknowledgedWrites acks, final int runMillis, final String context) throws Exception {
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final TestInitiator ini = TestInitiator.login(daemon.address, SrpTargetTest.ID_EXT, SrpTargetTest.IOC_GUID, 7, 1 << 20);
        final Thread writer = Thread.ofPlatform().name("crash-writer").start(() -> {
            try {
                for (long seq = 0; ; seq++) {
                    final long block = schedule.blockOf(0, seq);
                    schedule.fill(ini.buffer(), 0, block, seq);
                    // odd writes carry their data inside the IU, even ones are fetched by RDMA READ
                    final boolean immediate = seq % 2 == 1;
                    final TestInitiator.Response w = ini.execute(0, TestInitiator.write16(block, 1), schedule.blockSize(), 0, 0, immediate);
                    if (w.status() != ScsiStatus.GOOD) {
                        throw new AssertionError(context + ": write " + seq + " answered status " + w.status());
                    }
                    if (flushEach) {
                        final TestInitiator.Response f = ini.execute(0, new byte[]{0x35, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 0, 0, 0, false);
                        if (f.status() != ScsiStatus.GOOD) {
                            throw new AssertionError(context + ": SYNCHRONIZE CACHE after write " + seq + " answered " + f.status());
                        }
                    }
                    acks.record(AcknowledgedWrites.line(0, seq));
                }
            } catch (AssertionError e) {
                failure.set(e);
            } catch (RuntimeException e) {
                // the daemon died under the command: the expected end of the stream
            }
        });
        try {
            waitUpTo(Duration.ofMillis(START_TIMEOUT_MILLIS), MIN_ACKS_BEFORE_KILL + " acknowledged writes, or the writer's end")
                    .until(() -> acks.total() >= MIN_ACKS_BEFORE_KILL || !writer.isAlive());
        } catch (ConditionTimeoutException e) {
            // fewer under way: the kill comes all the same, and the check after it fails the trial if none was acknowledged
        }
        Thread.sleep(runMillis); // not a wait for a state: the kill comes at a random moment of the stream, what is tested
        daemon.kill();
        writer.join(30_000);
        try {
            ini.close();
        } catch (RuntimeException e) {
            // the connection is already gone with the daemon
        }
        if (failure.get() != null) {
            throw new AssertionError(failure.get());
        }
    }

    private static Path writeConfig(final BackendKind kind, final WriteCachePolicy writeCache, final Trial trial, final int port)
            throws IOException {
        final Path config = trial.dir().resolve("target-" + port + ".toml");
        final String lunPath = kind == BackendKind.FILE ? "lun.img" : "lun.rocksdb";
        Files.writeString(config, listenAndTarget(port) + """
                [channel]
                credits = 16
                max_channels = 2
                max_io_size = "64KiB"
                [pipeline]
                ring_size = 64
                backend_threads = 1
                [[lun]]
                number = 0
                backend = "%s"
                path = "%s"
                create = true
                size = "%d"
                block_size = %d
                write_cache = "%s"
                """.formatted(kind.name().toLowerCase(Locale.ROOT), lunPath,
                (long) BLOCKS * trial.schedule().blockSize(), trial.schedule().blockSize(),
                writeCache == WriteCachePolicy.WRITE_BACK ? "write-back" : "write-through"));
        return config;
    }

    /**
     * Persistent reservations an initiator asked to persist (APTPL) survive SIGKILL of the daemon: the state each GOOD
     * answered is in the restarted daemon, which refuses an unregistered initiator's writes as before.
     */
    @org.junit.jupiter.api.Test
    void persistentReservationsAskedToPersistSurviveSigkill(@TempDir final Path dir) throws Exception {
        CrashVariants.unpackRocksDb(nativeLibraries);
        final int port = freePort();
        final Path config = dir.resolve("target.toml");
        Files.writeString(config, listenAndTarget(port) + """
                [[lun]]
                number = 0
                backend = "memory"
                size = "1MiB"
                """);
        final Daemon first = Daemon.start(config, dir.resolve("first.log"));
        try (TestInitiator a = TestInitiator.login(first.address, SrpTargetTest.ID_EXT, SrpTargetTest.IOC_GUID, 0xA, 1 << 16);
             TestInitiator b = TestInitiator.login(first.address, SrpTargetTest.ID_EXT, SrpTargetTest.IOC_GUID, 0xB, 1 << 16)) {
            assertEquals(ScsiStatus.GOOD, prout(a, 0, 0, 0, 0xA1, 0x01).status()); // REGISTER, APTPL
            assertEquals(ScsiStatus.GOOD, prout(b, 0, 0, 0, 0xB2, 0x01).status());
            assertEquals(ScsiStatus.GOOD, prout(a, 1, 5, 0xA1, 0, 0).status());    // RESERVE, WE - Registrants Only
        } finally {
            first.kill();
        }
        final Daemon second = Daemon.start(config, dir.resolve("second.log"));
        try (TestInitiator a = TestInitiator.login(second.address, SrpTargetTest.ID_EXT, SrpTargetTest.IOC_GUID, 0xA, 1 << 16);
             TestInitiator c = TestInitiator.login(second.address, SrpTargetTest.ID_EXT, SrpTargetTest.IOC_GUID, 0xC, 1 << 16)) {
            final byte[] readKeys = java.nio.ByteBuffer.allocate(10).put(0, (byte) 0x5E).putShort(7, (short) 64).array();
            assertEquals(ScsiStatus.GOOD, a.execute(TargetTestBase.LUN0, readKeys, 0, 64, 0, false).status());
            final java.nio.ByteBuffer keys = java.nio.ByteBuffer.wrap(TargetTestBase.bytesAt(a, 0, 24));
            assertEquals(16, keys.getInt(4), "both keys kept");
            assertEquals(0xA1, keys.getLong(8));
            assertEquals(0xB2, keys.getLong(16));
            final TestInitiator.Response refused = c.execute(TargetTestBase.LUN0, TestInitiator.write16(0, 1), 512, 0, 4096, false);
            assertEquals(ScsiStatus.RESERVATION_CONFLICT, refused.status(), "the reservation kept");
            assertEquals(ScsiStatus.GOOD, a.execute(TargetTestBase.LUN0, TestInitiator.write16(0, 1), 512, 0, 4096, false).status());
        } finally {
            second.kill();
        }
    }

    private static TestInitiator.Response prout(final TestInitiator ini, final int action, final int type, final long key,
                                                final long serviceActionKey, final int flags) {
        return PersistentReservationsSrpTest.prout(ini, 4096, action, type, key, serviceActionKey, flags);
    }

    /** A config's [listen] and [target] tables: this port, the tests' target port id. */
    private static String listenAndTarget(final int port) {
        return """
                [listen]
                port = %d
                [target]
                id_ext = "0x%016x"
                ioc_guid = "0x%016x"
                """.formatted(port, SrpTargetTest.ID_EXT, SrpTargetTest.IOC_GUID);
    }

    /** Attempts at a port before a daemon's start counts as failed. */
    private static final int PORT_ATTEMPTS = 5;

    /**
     * Starts a daemon on a port that was free a moment ago. Between the probe and the daemon's bind another process
     * may take it (the trials' own connections use ephemeral ports of 127.0.0.1): then it tries another.
     */
    private static Daemon startOnAFreePort(final BackendKind kind, final WriteCachePolicy writeCache, final Trial trial,
                                           final String log) throws Exception {
        for (int attempt = 1; ; attempt++) {
            final Path config = writeConfig(kind, writeCache, trial, freePort());
            try {
                return Daemon.start(config, trial.dir().resolve(log));
            } catch (PortTakenException e) {
                if (attempt == PORT_ATTEMPTS) {
                    throw e;
                }
            }
        }
    }

    /** The daemon could not listen: its port was taken after the probe. */
    private static final class PortTakenException extends IllegalStateException {
        PortTakenException(final String message) {
            super(message);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    /** A target daemon in a child JVM, started on a config and ready once its banner is out. */
    private static final class Daemon {
        final Process process;
        final InetSocketAddress address;
        final Path config;

        private Daemon(final Process process, final InetSocketAddress address, final Path config) {
            this.process = process;
            this.address = address;
            this.config = config;
        }

        static Daemon start(final Path config, final Path log) throws Exception {
            final List<String> command = CrashVariants.childJvm(nativeLibraries, TargetMain.class.getName(), "--config", config.toString());
            final Process process = new ProcessBuilder(command).redirectError(log.toFile()).start();
            final int port = TargetConfigReader.read(config).listen().port();
            final CompletableFuture<Void> reachable = new CompletableFuture<>();
            final Thread reader = Thread.ofPlatform().daemon().start(() -> readOutput(process, reachable));
            try {
                waitUpTo(Duration.ofMillis(START_TIMEOUT_MILLIS), "the daemon's banner, or the end of its output")
                        .until(() -> reachable.isDone() || !reader.isAlive());
            } catch (ConditionTimeoutException e) {
                // not started in time: a failed start, reported below with the daemon's log
            }
            if (reachable.isDone()) {
                return new Daemon(process, new InetSocketAddress("127.0.0.1", port), config);
            }
            process.toHandle().destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
            final String why = Files.readString(log);
            if (why.contains("cannot listen on")) {
                throw new PortTakenException(why);
            }
            throw new IllegalStateException("the daemon did not start; its log: " + why);
        }

        /** Reads the daemon's output to its end (the pipe kept drained); completes {@code reachable} at the banner. */
        private static void readOutput(final Process process, final CompletableFuture<Void> reachable) {
            try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = out.readLine(); line != null; line = out.readLine()) {
                    if (line.startsWith("reach it")) {
                        reachable.complete(null);
                    }
                }
            } catch (IOException | RuntimeException e) {
                // the daemon's output ends here: gone, or killed
            }
        }

        /** SIGKILL (Process.destroyForcibly is SIGKILL on Linux), then wait for it to be gone. */
        void kill() throws InterruptedException {
            process.toHandle().destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
        }
    }
}

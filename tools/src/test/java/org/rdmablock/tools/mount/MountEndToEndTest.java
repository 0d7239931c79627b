package org.rdmablock.tools.mount;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.rdmablock.tools.session.EmbeddedTarget;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@code rdmablock mount} as a user runs it: our target (a file LUN, soft provider, loopback) in this JVM,
 * {@code MountCommand} in a child JVM, fio with {@code verify=crc32c} through the mounted {@code lun0.img} (the fio
 * table's verify job files), SIGTERM to the mount, the target stopped. And a mount killed with SIGKILL: the next mount
 * on the same directory cleans up the stale mount and serves. Needs fio and fuse3 (bin/test installs them when run as
 * root); without them it fails and says so.
 */
class MountEndToEndTest {
    /** How long a child mount may take to log in and mount (a cold JVM on a loaded 2-CPU machine). */
    private static final long MOUNT_SECONDS = 90;
    private static final long LUN_BYTES = 32L << 20;
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    /**
     * Also with no channel threads ({@code --channel-wait caller}): the FUSE threads drive the channels as they wait;
     * and over NVMe over Fabrics ({@code --nvme}: namespace 1 as {@code lun1.img}).
     */
    @ParameterizedTest
    @ValueSource(strings = {"yield", "caller", "nvme"})
    @Timeout(300)
    void fioVerifiesThroughTheMountAndSigtermUnmounts(final String variant) throws Exception {
        final Path fio = requireFio();
        requireFuse();
        final Path mnt = dir.resolve("mnt");
        final boolean nvme = variant.equals("nvme");
        final String nqn = "nqn.2026-12.org.rdmablock:mount-test";
        try (EmbeddedTarget target = EmbeddedTarget.start("file", LUN_BYTES, dir.resolve("lun0.img"), "soft",
                nvme ? nqn : null)) {
            final List<String> args = new java.util.ArrayList<>(List.of("--target", target.where(), "--id-ext",
                    Long.toHexString(target.idExt()), "--channel-wait", nvme ? "yield" : variant));
            if (nvme) {
                args.addAll(List.of("--nvme", nqn));
            }
            final Child mount = Child.mount(mnt, args.toArray(String[]::new));
            try {
                mount.awaitMounted();
                final Path file = mnt.resolve(nvme ? "lun1.img" : "lun0.img");
                assertEquals(LUN_BYTES, Files.size(file));
                for (final String job : List.of("verify-randwrite-4k-qd16", "verify-write-1m-qd16")) {
                    final JsonNode result = runFio(fio, job, file, "8m");
                    final JsonNode stats = result.path("jobs").path(0);
                    assertEquals(0, stats.path("error").asInt(-1), job + ": fio's job error");
                    assertEquals(8L << 20, stats.path("write").path("io_bytes").asLong(), job + ": bytes written");
                    assertEquals(8L << 20, stats.path("read").path("io_bytes").asLong(), job + ": bytes read back and verified");
                }
            } finally {
                mount.terminate();
            }
            assertTrue(mount.output().contains("rdmablock mount: unmounted " + mnt), "exit " + mount.process().exitValue() + ": " + mount.output());
            assertEquals(MountPoint.State.FREE, MountPoint.probe(mnt));
        }
    }

    @Test
    @Timeout(300)
    void aStaleMountLeftByAKilledMountIsCleanedUpByTheNextMount() throws Exception {
        requireFuse();
        final Path mnt = dir.resolve("mnt");
        try (EmbeddedTarget target = EmbeddedTarget.start("memory", LUN_BYTES, null, "soft")) {
            final String[] args = {"--target", target.where(), "--id-ext", Long.toHexString(target.idExt())};
            final Child killed = Child.mount(mnt, args);
            try {
                killed.awaitMounted();
            } finally {
                killed.process.destroyForcibly(); // SIGKILL: no shutdown hook, the mount stays behind
                assertTrue(killed.process.waitFor(30, TimeUnit.SECONDS), "the killed mount did not end");
            }
            try {
                assertEquals(MountPoint.State.STALE, MountPoint.probe(mnt), "after SIGKILL the mount should be stale");
                final Child next = Child.mount(mnt, args);
                try {
                    next.awaitMounted();
                    assertEquals(LUN_BYTES, Files.size(mnt.resolve("lun0.img")));
                } finally {
                    next.terminate();
                }
                assertTrue(next.output().contains("cleaned up a stale mount at " + mnt), next.output());
                assertEquals(MountPoint.State.FREE, MountPoint.probe(mnt));
            } finally {
                if (MountPoint.probe(mnt) != MountPoint.State.FREE) {
                    MountPoint.cleanUp(mnt, Path.of("/usr/bin/fusermount3"));
                }
            }
        }
    }

    /** Runs a verify job of tools/fio on {@code file} with {@code size} bytes; fails on a non-zero exit (verify errors). */
    private JsonNode runFio(final Path fio, final String job, final Path file, final String size) throws Exception {
        final Path jobFile = Path.of("fio", job + ".fio").toAbsolutePath();
        assertTrue(Files.exists(jobFile), jobFile + " is missing");
        final Path output = dir.resolve(job + ".json");
        final ProcessBuilder builder = new ProcessBuilder(fio.toString(), "--output-format=json", "--output=" + output, jobFile.toString())
                .directory(dir.toFile()).redirectErrorStream(true).redirectOutput(dir.resolve(job + ".log").toFile());
        final Map<String, String> env = builder.environment();
        env.put("FIO_FILE", file.toString());
        env.put("FIO_VERIFY_SIZE", size);
        final Process process = builder.start();
        if (!process.waitFor(120, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            fail("fio " + job + " did not end within 120 s");
        }
        final String log = Files.readString(dir.resolve(job + ".log"));
        assertEquals(0, process.exitValue(), "fio " + job + " failed (verify errors end it with a non-zero status): " + log
                + (Files.exists(output) ? Files.readString(output) : ""));
        assertTrue(!log.contains("verify:") && !log.contains("bad magic"), "fio " + job + " reported: " + log);
        return JSON.readTree(output.toFile());
    }

    private static Path requireFio() {
        for (final String directory : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
            final Path candidate = Path.of(directory, "fio");
            if (Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        return fail("fio is not installed (apt-get install fio; bin/test installs it when run as root): the FUSE "
                + "volume's end-to-end test runs fio through the mount");
    }

    private static void requireFuse() {
        final FuseRequirements.Found fuse = FuseRequirements.check(FuseRequirements.SYSTEM, null);
        assertTrue(fuse.ok(), "this test needs FUSE (bin/test installs fuse3 when run as root): " + fuse.problems());
    }

    /** A {@code MountCommand} in a child JVM, its stdout and stderr in a file. */
    private record Child(Process process, Path log) {
        static Child mount(final Path directory, final String... args) throws IOException {
            final List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                    MountCommand.class.getName()));
            command.addAll(List.of(args));
            command.add(directory.toString());
            final Path log = Files.createTempFile(directory.getParent(), "mount", ".log");
            final Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            return new Child(process, log);
        }

        /** Until the mount prints that it mounted; fails at once if its JVM ends first. */
        void awaitMounted() {
            await("the mount (its output in " + log + ")").atMost(Duration.ofSeconds(MOUNT_SECONDS)).pollInterval(Duration.ofMillis(100))
                    .failFast(() -> assertTrue(process.isAlive(),
                            () -> "the mount ended (exit " + process.exitValue() + ") before it mounted: " + output()))
                    .untilAsserted(() -> assertTrue(output().lines().anyMatch(
                            l -> l.startsWith("rdmablock mount:") && l.contains(" mounted at ")), () -> "not mounted yet: " + output()));
        }

        /** SIGTERM, and waits for the JVM to end (30 s at most). */
        void terminate() throws InterruptedException {
            process.destroy();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                fail("the mount did not end within 30 s of SIGTERM: " + output());
            }
        }

        String output() {
            try {
                return Files.readString(log);
            } catch (IOException e) {
                return "(" + log + ": " + e.getMessage() + ")";
            }
        }
    }
}

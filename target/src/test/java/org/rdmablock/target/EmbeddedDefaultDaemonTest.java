package org.rdmablock.target;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.rdmablock.target.Waiting.waitUpTo;

/**
 * The daemon as the README's first command starts it: no config, in a fresh working directory, as a process of its
 * own (signals are the point). It makes its ./data folder and LUN file, and a SIGHUP, with no file to re-read, is
 * logged and changes nothing: the JVM's own handling would have ended the daemon with status 129.
 */
class EmbeddedDefaultDaemonTest {
    /** The embedded default's port. */
    private static final int PORT = 5555;

    @TempDir
    Path dir;

    @Test
    void servesTheEmbeddedDefaultAndKeepsServingThroughSighup() throws Exception {
        assumeTrue(portFree(), "127.0.0.1:" + PORT + " is taken on this machine: the embedded default cannot listen");
        final Path out = dir.resolve("out.txt");
        final Path err = dir.resolve("err.txt");
        final Process daemon = new ProcessBuilder(ProcessHandle.current().info().command().orElse("java"),
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                TargetMain.class.getName())
                .directory(dir.toFile()).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        try {
            waitUpTo(Duration.ofSeconds(30), "the daemon's banner, or its end")
                    .until(() -> read(out).contains("reach it") || !daemon.isAlive());
            assertTrue(daemon.isAlive(), "the daemon ended: " + read(out) + read(err));
            assertEquals(1L << 30, Files.size(dir.resolve("data/lun0.img")), "./data/lun0.img made at 1 GiB");

            // a JVM started with SIGHUP ignored (under nohup) passes that on: the daemon says so, and there is nothing to test
            assumeFalse(read(err).contains(TargetMain.SIGHUP_IGNORED), "SIGHUP is ignored in this test JVM (its parent ran under nohup)");
            final Process hangUp = new ProcessBuilder("kill", "-HUP", Long.toString(daemon.pid())).start();
            assertEquals(0, hangUp.waitFor());
            waitUpTo(Duration.ofSeconds(10), "the SIGHUP's log line, or the daemon's end")
                    .until(() -> read(err).contains("SIGHUP: nothing to reload") || !daemon.isAlive());
            assertTrue(daemon.isAlive(), "SIGHUP ended the daemon (status " + (daemon.isAlive() ? "" : daemon.exitValue())
                    + "): " + read(err));
            assertTrue(read(err).contains(RunningConfiguration.NOTHING_TO_RELOAD), read(err));

            daemon.destroy(); // SIGTERM
            assertTrue(daemon.waitFor(20, TimeUnit.SECONDS), "the daemon did not stop on SIGTERM");
            assertEquals(0, daemon.exitValue(), read(out) + read(err));
        } finally {
            daemon.destroyForcibly();
        }
    }

    private static boolean portFree() {
        try (ServerSocket probe = new ServerSocket(PORT, 1, InetAddress.getLoopbackAddress())) {
            return probe.getLocalPort() == PORT;
        } catch (IOException e) {
            return false;
        }
    }

    private static String read(final Path file) throws IOException {
        return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
    }
}

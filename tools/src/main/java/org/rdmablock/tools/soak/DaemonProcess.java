package org.rdmablock.tools.soak;

import org.rdmablock.target.TargetMain;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The target daemon the soak runs against: {@link TargetMain} in a child JVM on this JVM's class path, its output
 * appended to a log; started, stopped by SIGTERM or SIGKILL, and sampled (resident memory, threads, open file
 * descriptors from {@code /proc}). Runs on the soak's controlling thread.
 */
final class DaemonProcess {
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);

    /** One sample of the daemon; -1 where /proc did not say. */
    record Footprint(long residentKib, int threads, int openFiles) {
    }

    private final Path config;
    private final Path log;
    private Process process;

    DaemonProcess(final Path config, final Path log) {
        this.config = config;
        this.log = log;
    }

    /** Starts the daemon and waits for its ready line ("reach it"). */
    void start() throws IOException {
        final ProcessBuilder builder = new ProcessBuilder(ProcessHandle.current().info().command().orElse("java"),
                "-cp", System.getProperty("java.class.path"), "--enable-native-access=ALL-UNNAMED", "-Xmx512m",
                TargetMain.class.getName(), "--config", config.toString())
                .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()));
        process = builder.start();
        final BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        final CompletableFuture<Boolean> ready = CompletableFuture.supplyAsync(() -> {
            try {
                String line;
                while ((line = out.readLine()) != null) {
                    if (line.startsWith("reach it")) {
                        return true;
                    }
                }
                return false;
            } catch (IOException e) {
                return false;
            }
        });
        final boolean up;
        try {
            up = ready.get(READY_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        } catch (Exception e) {
            process.destroyForcibly();
            throw new IOException("the daemon printed no ready line in " + READY_TIMEOUT.toSeconds() + " s (" + log + ")", e);
        }
        if (!up) {
            throw new IOException("the daemon ended before it was ready (" + log + ")");
        }
        Thread.ofPlatform().daemon().name("soak-daemon-output").start(() -> {
            try {
                while (out.readLine() != null) {
                    continue; // its banner is in the log already; the pipe must not fill
                }
            } catch (IOException ended) {
                // the daemon is gone
            }
        });
    }

    /** Stops the daemon: SIGKILL when {@code kill}, else SIGTERM; waits for it to end. */
    void stop(final boolean kill) throws IOException, InterruptedException {
        if (process == null || !process.isAlive()) {
            return;
        }
        if (kill) {
            process.destroyForcibly();
        } else {
            process.destroy();
        }
        if (!process.waitFor(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IOException("the daemon did not end in " + STOP_TIMEOUT.toSeconds() + " s after SIG" + (kill ? "KILL" : "TERM"));
        }
    }

    boolean alive() {
        return process != null && process.isAlive();
    }

    /** The daemon's footprint now, from /proc (Linux); all -1 when it is not running. */
    Footprint footprint() {
        if (!alive()) {
            return new Footprint(-1, -1, -1);
        }
        final Path proc = Path.of("/proc", Long.toString(process.pid()));
        long rss = -1;
        int threads = -1;
        try {
            for (final String line : Files.readAllLines(proc.resolve("status"))) {
                if (line.startsWith("VmRSS:")) {
                    rss = Long.parseLong(line.replaceAll("[^0-9]", ""));
                } else if (line.startsWith("Threads:")) {
                    threads = Integer.parseInt(line.replaceAll("[^0-9]", ""));
                }
            }
        } catch (IOException | NumberFormatException e) {
            return new Footprint(-1, -1, -1);
        }
        int files = -1;
        try (Stream<Path> fds = Files.list(proc.resolve("fd"))) {
            files = (int) fds.count();
        } catch (IOException e) {
            // gone meanwhile
        }
        return new Footprint(rss, threads, files);
    }
}

package org.rdmablock.tools.soak;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A program the soak runs beside it (the target daemon, the FUSE mount): a main class in a child JVM on this JVM's
 * class path, its stderr appended to a log; started and waited for until its stdout prints its ready line, stopped by
 * SIGTERM or SIGKILL, and sampled (resident memory, threads, open file descriptors from {@code /proc}). Runs on the
 * soak's controlling thread.
 */
final class ChildJvm {
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);

    /** One sample of the child; -1 where /proc did not say. */
    record Footprint(long residentKib, int threads, int openFiles) {
        static final Footprint UNKNOWN = new Footprint(-1, -1, -1);
    }

    private final String name;
    private final List<String> command;
    private final String readyLine;
    private final Path log;
    private Process process;

    /**
     * @param name      what it is, for messages ("the daemon")
     * @param mainClass the class whose main it runs
     * @param readyLine how the stdout line that says it is ready begins
     */
    ChildJvm(final String name, final Class<?> mainClass, final List<String> args, final String readyLine, final Path log) {
        this.name = name;
        this.command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"), "-cp",
                System.getProperty("java.class.path"), "--enable-native-access=ALL-UNNAMED", "-Xmx512m", mainClass.getName()));
        this.command.addAll(args);
        this.readyLine = readyLine;
        this.log = log;
    }

    /** Starts it and waits for its ready line. */
    void start() throws IOException {
        final ProcessBuilder builder = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()));
        process = builder.start();
        final BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        final CompletableFuture<Boolean> ready = CompletableFuture.supplyAsync(() -> {
            try {
                String line;
                while ((line = out.readLine()) != null) {
                    if (line.startsWith(readyLine)) {
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
            throw new IOException(name + " printed no ready line in " + READY_TIMEOUT.toSeconds() + " s (" + log + ")", e);
        }
        if (!up) {
            throw new IOException(name + " ended before it was ready (" + log + ")");
        }
        Thread.ofPlatform().daemon().name("soak-child-output").start(() -> {
            try {
                while (out.readLine() != null) {
                    continue; // the pipe must not fill
                }
            } catch (IOException ended) {
                // it is gone
            }
        });
    }

    /** Stops it: SIGKILL when {@code kill}, else SIGTERM; waits for it to end. */
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
            throw new IOException(name + " did not end in " + STOP_TIMEOUT.toSeconds() + " s after SIG" + (kill ? "KILL" : "TERM"));
        }
    }

    boolean alive() {
        return process != null && process.isAlive();
    }

    /** Its footprint now, from /proc (Linux); all -1 when it is not running. */
    Footprint footprint() {
        if (!alive()) {
            return Footprint.UNKNOWN;
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
            return Footprint.UNKNOWN;
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

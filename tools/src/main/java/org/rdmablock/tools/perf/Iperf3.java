package org.rdmablock.tools.perf;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * iperf3, the reference TCP stream, as a second baseline beside {@link TcpBaseline}: one server ({@code -s -1},
 * it serves one test and exits) and one client on the same address, one stream of a fixed number of bytes written
 * in {@link TcpBaseline#WRITE_SIZE} blocks ({@code -n}, {@code -l}), its JSON report's receiver rate taken. The
 * command is found on PATH (or given as a path); when it is missing, the comparison leaves its row out and says why.
 */
final class Iperf3 {
    /** The command the comparison looks for by default. */
    static final String DEFAULT_COMMAND = "iperf3";
    /** How long one iperf3 run may take before it counts as failed. */
    private static final long RUN_TIMEOUT_SECONDS = 120;
    /** Client starts before the server listens: tries, and the pause between them. */
    private static final int CONNECT_ATTEMPTS = 100;
    private static final long CONNECT_RETRY_MILLIS = 20;
    /** The receiver's rate in the JSON report: {@code "sum_received": {... "bits_per_second": N ...}}. */
    private static final Pattern RECEIVED = Pattern.compile("\"sum_received\"\\s*:\\s*\\{[^}]*?\"bits_per_second\"\\s*:\\s*([0-9.eE+-]+)");

    private final Path executable;

    private Iperf3(final Path executable) {
        this.executable = executable;
    }

    /** The executable: {@code command} itself when it names a path, else the first match on {@code path}; empty when none runs. */
    static Optional<Iperf3> locate(final String command, final String path) {
        if (command.contains(File.separator)) {
            final Path file = Path.of(command);
            return Files.isRegularFile(file) && Files.isExecutable(file) ? Optional.of(new Iperf3(file)) : Optional.empty();
        }
        for (final String dir : (path == null ? "" : path).split(File.pathSeparator)) {
            if (dir.isEmpty()) {
                continue;
            }
            final Path file = Path.of(dir, command);
            if (Files.isRegularFile(file) && Files.isExecutable(file)) {
                return Optional.of(new Iperf3(file));
            }
        }
        return Optional.empty();
    }

    /** {@link #locate(String, String)} on this process's PATH. */
    static Optional<Iperf3> locate(final String command) {
        return locate(command, System.getenv("PATH"));
    }

    /** Why the iperf3 row is missing, for the table's footnote. */
    static String missing(final String command) {
        return "iperf3 row skipped: '" + command + "' not found"
            + (command.contains(File.separator) ? "" : " on PATH") + " (Debian: apt-get install iperf3; bin/perf-compare installs it when run as root)";
    }

    Path executable() {
        return executable;
    }

    /** The server's arguments: one test on {@code address}:{@code port}, then exit. */
    List<String> serverCommand(final InetAddress address, final int port) {
        return List.of(executable.toString(), "-s", "-1", "-B", address.getHostAddress(), "-p", Integer.toString(port));
    }

    /** The client's arguments: one stream of {@code bytes} in writes of {@code writeSize}, a JSON report. */
    List<String> clientCommand(final InetAddress address, final int port, final long bytes, final int writeSize) {
        return List.of(executable.toString(), "-c", address.getHostAddress(), "-p", Integer.toString(port), "-n", Long.toString(bytes),
            "-l", Integer.toString(writeSize), "-J");
    }

    /** Streams {@code bytes} from an iperf3 client to an iperf3 server on {@code address}: the receiver's rate. */
    BandwidthTest.Result stream(final InetAddress address, final long bytes, final int writeSize) throws IOException, InterruptedException {
        final int port = freePort(address);
        final Process server = new ProcessBuilder(serverCommand(address, port)).redirectErrorStream(true).start();
        try {
            final CompletableFuture<String> serverOutput = readAll(server.getInputStream());
            for (int attempt = 1; ; attempt++) {
                final Process client = new ProcessBuilder(clientCommand(address, port, bytes, writeSize)).redirectErrorStream(true).start();
                final CompletableFuture<String> report = readAll(client.getInputStream());
                if (!client.waitFor(RUN_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                    client.destroyForcibly();
                    throw new IOException("iperf3 client did not finish within " + RUN_TIMEOUT_SECONDS + " s");
                }
                final String json = report.join();
                if (client.exitValue() == 0) {
                    final double bitsPerSecond = receivedBitsPerSecond(json);
                    return new BandwidthTest.Result(bytes, Math.max(1, bytes / writeSize), (long) (bytes * 8 / bitsPerSecond * 1e9));
                }
                // the server may not listen yet: its start is not announced on a pipe, so the client tries again
                if (attempt < CONNECT_ATTEMPTS && server.isAlive() && json.contains("unable to connect")) {
                    TimeUnit.MILLISECONDS.sleep(CONNECT_RETRY_MILLIS);
                    continue;
                }
                throw new IOException("iperf3 client failed (exit " + client.exitValue() + "): " + json.strip()
                    + (serverOutput.isDone() ? " / server: " + serverOutput.join().strip() : ""));
            }
        } finally {
            server.destroy();
            if (!server.waitFor(5, TimeUnit.SECONDS)) {
                server.destroyForcibly();
            }
        }
    }

    /** The receiver's bits per second from an iperf3 JSON report. */
    static double receivedBitsPerSecond(final String json) throws IOException {
        final Matcher m = RECEIVED.matcher(json);
        if (!m.find()) {
            throw new IOException("no receiver rate (sum_received.bits_per_second) in iperf3's report: " + json.strip());
        }
        final double value = Double.parseDouble(m.group(1));
        if (!(value > 0)) {
            throw new IOException("iperf3 reported a receiver rate of " + value);
        }
        return value;
    }

    /** A port that was free a moment ago (iperf3 needs a number; the race with other programs is accepted). */
    private static int freePort(final InetAddress address) throws IOException {
        try (ServerSocket probe = new ServerSocket(0, 1, address)) {
            return probe.getLocalPort();
        }
    }

    /** A process's output, read to its end on a thread of its own (a full pipe would stall the process). */
    private static CompletableFuture<String> readAll(final InputStream in) {
        final CompletableFuture<String> output = new CompletableFuture<>();
        Thread.ofVirtual().name("iperf3-output").start(() -> {
            try (in) {
                output.complete(new String(in.readAllBytes(), StandardCharsets.UTF_8));
            } catch (final IOException e) {
                output.complete("(output unreadable: " + e.getMessage() + ")");
            }
        });
        return output;
    }

    @Override
    public String toString() {
        return executable.toString();
    }
}

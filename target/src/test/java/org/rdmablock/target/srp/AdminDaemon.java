package org.rdmablock.target.srp;

import org.rdmablock.target.CommandLines;
import org.rdmablock.target.TargetMain;
import org.rdmablock.target.admin.AdminCommand;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.rdmablock.target.Waiting.waitUpTo;

/**
 * A daemon of the management socket's tests: started in this JVM on a free port with {@code [admin] socket =
 * "admin.sock"} and the LUNs given, and {@code rdmablock admin} run against it as a user runs it.
 */
final class AdminDaemon implements AutoCloseable {
    final Path config;
    final Path socket;
    final int port;
    /** The config's text as written, before any verb changed or saved it. */
    final String text;
    private final TargetMain daemon;
    private final CompletableFuture<Integer> exit;
    private final ByteArrayOutputStream banner = new ByteArrayOutputStream();

    /** What one {@code rdmablock admin} printed, and its exit status. */
    record Run(int exit, String out, String err) {
    }

    private AdminDaemon(final Path dir, final String luns) throws Exception {
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
        config = dir.resolve("target.toml");
        socket = dir.resolve("admin.sock");
        text = """
                # the operator's comment
                [listen]
                provider = "%s"
                address = "%s"
                port = %d
                [target]
                id_ext = "0x%016x"
                ioc_guid = "0x%016x"
                [admin]
                socket = "admin.sock"
                """.formatted(TestInitiator.PROVIDER, TestInitiator.ADDRESS, port, TargetTestBase.ID_EXT,
                TargetTestBase.IOC_GUID) + luns;
        Files.writeString(config, text);
        daemon = new TargetMain(new PrintStream(banner, true), new PrintStream(new ByteArrayOutputStream(), true));
        exit = CompletableFuture.supplyAsync(() -> new CommandLine(daemon).execute("--config", config.toString()));
        waitUpTo(Duration.ofSeconds(20), "the daemon's banner, or its end")
                .until(() -> banner().contains("reach it") || exit.isDone());
    }

    /** Starts a daemon serving {@code luns} ([[lun]] tables) with its config and socket in {@code dir}. */
    static AdminDaemon start(final Path dir, final String luns) throws Exception {
        return new AdminDaemon(dir, luns);
    }

    /** What the daemon printed at start. */
    String banner() {
        return banner.toString(StandardCharsets.UTF_8);
    }

    /** {@code rdmablock admin ARGS}, as given (no socket added). */
    static Run admin(final String... args) {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int status = CommandLines.of(new AdminCommand(), "rdmablock admin", new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8)).execute(args);
        return new Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** {@code rdmablock admin --socket SOCKET ARGS}. */
    Run ask(final String... args) {
        final String[] all = new String[args.length + 2];
        all[0] = "--socket";
        all[1] = socket.toString();
        System.arraycopy(args, 0, all, 2, args.length);
        return admin(all);
    }

    /** Stops the daemon, which exits 0. */
    @Override
    public void close() throws Exception {
        daemon.stop();
        assertEquals(0, exit.get(20, TimeUnit.SECONDS));
    }
}

package org.rdmablock.target.admin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.rdmablock.target.CommandLines;
import org.rdmablock.target.config.ConfigException;
import org.rdmablock.target.config.TargetConfig;
import org.rdmablock.target.config.TargetConfigReader;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code rdmablock admin VERB}: asks a running daemon over its management socket ({@link AdminEndpoint}) and prints
 * the answer, a table for people or the JSON-RPC result with {@code --json}. Runs on the caller's thread.
 */
@Command(name = "rdmablock admin", mixinStandardHelpOptions = true, versionProvider = CommandLines.Version.class,
        sortOptions = false, description = "Asks a running target daemon over its management socket ([admin] socket).",
        footer = {"", "Verbs:", "  status     the daemon: version, address, target port id, uptime, LUNs, sessions, channels",
                "  luns       each LUN: backend, size, block size, read-only, write cache, its I/O so far",
                "  sessions   each initiator port logged in: address, channels, credits, commands in flight, since",
                "  reload     re-read the config file and apply its LUN changes, as SIGHUP does; says what it did",
                "  logout INITIATOR   log that initiator port's channels out (SRP_T_LOGOUT, then the disconnect)"})
public final class AdminCommand implements Callable<Integer> {
    /** Exit status of a call without a socket to ask (picocli's own usage errors are 2 as well). */
    static final int EXIT_USAGE = 2;
    private static final ObjectMapper JSON = new ObjectMapper();

    @Option(names = "--socket", paramLabel = "PATH", description = "the daemon's management socket")
    Path socket;

    @Option(names = {"-c", "--config"}, paramLabel = "FILE", description = "the daemon's config: its [admin] socket")
    Path config;

    @Option(names = "--json", description = "print the JSON-RPC result as it came, for scripts")
    boolean json;

    @Parameters(index = "0", paramLabel = "VERB", description = "status, luns, sessions, reload or logout")
    String verb;

    @Parameters(index = "1", arity = "0..1", paramLabel = "INITIATOR", description = "logout: the initiator port id, 32 hex"
            + " digits (as sessions lists it)")
    String initiator;

    /** Where it prints: the command line's own writers ({@code CommandLines.of} sets them). */
    @Spec
    CommandSpec spec;
    private PrintWriter out;
    private PrintWriter err;

    @Override
    public Integer call() {
        out = spec.commandLine().getOut();
        err = spec.commandLine().getErr();
        final Path path;
        try {
            path = socketPath();
        } catch (IllegalArgumentException e) {
            err.println("rdmablock admin: " + e.getMessage());
            return EXIT_USAGE;
        }
        final JsonNode response;
        try (SocketChannel channel = SocketChannel.open(UnixDomainSocketAddress.of(path))) {
            final ObjectNode request = JSON.createObjectNode().put("jsonrpc", "2.0").put("id", 1).put("method", verb);
            if (initiator != null) {
                request.putObject("params").put("initiator", initiator);
            }
            channel.write(java.nio.ByteBuffer.wrap((JSON.writeValueAsString(request) + "\n").getBytes(StandardCharsets.UTF_8)));
            final BufferedReader in = new BufferedReader(new InputStreamReader(Channels.newInputStream(channel),
                    StandardCharsets.UTF_8));
            final String line = in.readLine();
            if (line == null) {
                err.println("rdmablock admin: the daemon at " + path + " closed the connection without an answer");
                return CommandLines.EXIT_FAILED;
            }
            response = JSON.readTree(line);
        } catch (IOException e) {
            err.println("rdmablock admin: cannot reach the daemon at " + path + ": " + e.getMessage()
                    + " (is it running, with [admin] socket set to this path?)");
            return CommandLines.EXIT_FAILED;
        }
        if (response.has("error")) {
            err.println("rdmablock admin: " + response.get("error").path("message").asText() + " (JSON-RPC error "
                    + response.get("error").path("code").asInt() + ")");
            return CommandLines.EXIT_FAILED;
        }
        final JsonNode result = response.path("result");
        if (json) {
            out.println(result.toPrettyString());
        } else {
            print(result);
        }
        out.flush();
        return 0;
    }

    private Path socketPath() {
        if (socket != null) {
            return socket;
        }
        if (config == null) {
            throw new IllegalArgumentException("name the daemon's socket: --socket PATH, or --config FILE (its [admin] socket)");
        }
        final TargetConfig read;
        try {
            read = TargetConfigReader.read(config, TargetConfigReader.Storage.NOT_CHECKED);
        } catch (ConfigException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
        if (!read.admin().served()) {
            throw new IllegalArgumentException(config + " sets no [admin] socket: the daemon serves no management socket");
        }
        return read.admin().socket();
    }

    /** A table for people: key: value lines for an object, columns for a list of objects. */
    private void print(final JsonNode result) {
        if (result.isObject()) {
            final int width = names(result).stream().mapToInt(String::length).max().orElse(0);
            result.properties().forEach(e -> out.printf(Locale.ROOT, "%-" + width + "s  %s%n", e.getKey(), text(e.getValue())));
        } else if (result.isArray() && result.isEmpty()) {
            out.println("(none)");
        } else if (result.isArray()) {
            final List<String> columns = names(result.get(0));
            final List<List<String>> rows = new ArrayList<>();
            rows.add(columns.stream().map(c -> c.toUpperCase(Locale.ROOT)).toList());
            result.forEach(item -> rows.add(columns.stream().map(c -> text(item.path(c))).toList()));
            final int[] widths = new int[columns.size()];
            rows.forEach(row -> {
                for (int i = 0; i < widths.length; i++) {
                    widths[i] = Math.max(widths[i], row.get(i).length());
                }
            });
            for (final List<String> row : rows) {
                final StringBuilder line = new StringBuilder();
                for (int i = 0; i < widths.length; i++) {
                    line.append(i == 0 ? "" : "  ").append(i == widths.length - 1 ? row.get(i)
                            : String.format(Locale.ROOT, "%-" + widths[i] + "s", row.get(i)));
                }
                out.println(line);
            }
        } else {
            out.println(text(result));
        }
    }

    private static List<String> names(final JsonNode object) {
        return object.properties().stream().map(Map.Entry::getKey).toList();
    }

    private static String text(final JsonNode value) {
        if (value.isArray()) {
            final List<String> items = new ArrayList<>();
            value.forEach(v -> items.add(text(v)));
            return items.isEmpty() ? "-" : String.join(",", items);
        }
        return value.isNull() || value.isMissingNode() ? "-" : value.asText();
    }
}

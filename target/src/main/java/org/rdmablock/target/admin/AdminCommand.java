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
                "  luns       each LUN: backend, size, block size, read-only, write cache, its I/O so far, its reservation",
                "  sessions   each initiator port or NVMe host logged in: address, channels, credits, commands in flight,",
                "             since, the host NQN",
                "  reload     re-read the config file and apply its LUN changes, as SIGHUP does; says what it did",
                "  logout INITIATOR   log that initiator port's channels out (SRP_T_LOGOUT, then the disconnect)",
                "  ports      each SRP target port: address, target port group and its ALUA state, listening, channels",
                "  port down N        stop listening on target port N and disconnect its channels (a path pulled)",
                "  port up N          listen on target port N again",
                "  lun add N KEY=VALUE...  serve a new LUN, its keys those of a [[lun]] table (size=1GiB path=lun1.img",
                "             create=true ...); the sessions that see it get REPORTED LUNS DATA HAS CHANGED",
                "  lun remove N          stop serving LUN N (its commands in flight finish first)",
                "  lun resize N SIZE     grow it (CAPACITY DATA HAS CHANGED); shrinking needs --force",
                "  lun set N [--read-only | --writable] [--initiator ID... | --any-initiator]",
                "  apply FILE            make the running configuration FILE's: lists the changes; --dry-run applies none",
                "  save                  write the running configuration to the config file (the old one kept as .bak)",
                "",
                "Changes take effect at once, without dropping sessions, and are refused whole when any part cannot be",
                "made. They last until the next reload re-reads the file: save keeps them."})
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

    @Parameters(index = "0", paramLabel = "VERB", description = "status, luns, sessions, reload, logout, ports, port, lun, apply or save")
    String verb;

    @Parameters(index = "1..*", paramLabel = "ARG", description = "the verb's: logout INITIATOR (32 hex digits, as"
            + " sessions lists it); lun add N KEY=VALUE...; lun remove|resize|set N [SIZE]; apply FILE")
    List<String> words = new ArrayList<>();

    @Option(names = "--dry-run", description = "lun and apply: list what would change, change nothing")
    boolean dryRun;

    @Option(names = "--force", description = "lun resize and apply: let a LUN shrink (its end is cut off)")
    boolean force;

    @Option(names = "--read-only", description = "lun set: writes fail with DATA PROTECT")
    boolean readOnly;

    @Option(names = "--writable", description = "lun set: accept writes again")
    boolean writable;

    @Option(names = "--initiator", paramLabel = "ID", description = "lun set: an initiator port allowed to see the LUN"
            + " (repeat for more)")
    List<String> initiators = new ArrayList<>();

    @Option(names = "--any-initiator", description = "lun set: every initiator may see the LUN")
    boolean anyInitiator;

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
        final ObjectNode request = JSON.createObjectNode().put("jsonrpc", "2.0").put("id", 1);
        try {
            request(request);
        } catch (IllegalArgumentException e) {
            err.println("rdmablock admin: " + e.getMessage());
            return EXIT_USAGE;
        }
        final JsonNode response;
        try (SocketChannel channel = SocketChannel.open(UnixDomainSocketAddress.of(path))) {
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

    /** The method and params of the verb and its arguments; a missing or extra argument is a usage error. */
    private void request(final ObjectNode request) {
        final ObjectNode params = request.putObject("params");
        switch (verb) {
            case "status", "luns", "sessions", "reload", "save" -> {
                arguments(0, verb);
                request.put("method", verb);
            }
            case "ports" -> {
                arguments(0, verb);
                request.put("method", "ports");
            }
            case "port" -> {
                arguments(2, "port down|up N");
                final String what = words.getFirst();
                if (!what.equals("down") && !what.equals("up")) {
                    throw new IllegalArgumentException("port " + what + ": give down or up (port down|up N)");
                }
                try {
                    params.put("port", Integer.parseInt(words.get(1)));
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("not a port number: " + words.get(1) + " (port down|up N)", e);
                }
                request.put("method", "port." + what);
            }
            case "logout" -> {
                arguments(1, "logout INITIATOR");
                request.put("method", "logout");
                params.put("initiator", words.getFirst());
            }
            case "apply" -> {
                arguments(1, "apply FILE");
                final Path file = Path.of(words.getFirst()).toAbsolutePath();
                try {
                    params.put("toml", java.nio.file.Files.readString(file));
                } catch (IOException e) {
                    throw new IllegalArgumentException("cannot read " + file + ": " + e.getMessage(), e);
                }
                request.put("method", "apply");
                params.put("name", file.toString()).put("directory", file.getParent().toString());
                changing(params);
            }
            case "lun" -> lun(request, params);
            default -> request.put("method", verb); // the daemon names the methods it has
        }
    }

    private void lun(final ObjectNode request, final ObjectNode params) {
        final String usage = "lun add|remove|resize|set N";
        if (words.size() < 2) {
            throw new IllegalArgumentException("give the LUN verb and number: " + usage);
        }
        final String what = words.getFirst();
        final int number;
        try {
            number = Integer.parseInt(words.get(1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a LUN number: " + words.get(1) + " (" + usage + ")", e);
        }
        request.put("method", "lun." + what);
        switch (what) {
            case "add" -> {
                if (words.size() < 3) {
                    throw new IllegalArgumentException("missing arguments: lun add N KEY=VALUE... (the keys of a [[lun]]"
                            + " table: size=1GiB, backend=file, path=lun1.img, create=true, ...)");
                }
                final ObjectNode lun = params.putObject("lun").put("number", number);
                for (final String pair : words.subList(2, words.size())) {
                    final int equals = pair.indexOf('=');
                    if (equals < 1) {
                        throw new IllegalArgumentException("not KEY=VALUE: " + pair + " (e.g. size=1GiB)");
                    }
                    final String key = pair.substring(0, equals);
                    if (key.equals("number")) {
                        throw new IllegalArgumentException("the LUN's number is N, given before its keys: lun add N KEY=VALUE...");
                    }
                    lun.set(key, value(key, pair.substring(equals + 1)));
                }
            }
            case "remove" -> {
                arguments(2, "lun remove N");
                params.put("number", number);
            }
            case "resize" -> {
                arguments(3, "lun resize N SIZE");
                params.put("number", number).put("size", words.get(2));
            }
            case "set" -> {
                arguments(2, "lun set N [--read-only | --writable] [--initiator ID... | --any-initiator]");
                params.put("number", number);
                if (readOnly && writable) {
                    throw new IllegalArgumentException("--read-only or --writable, not both");
                }
                if (readOnly || writable) {
                    params.put("read_only", readOnly);
                }
                if (anyInitiator && !initiators.isEmpty()) {
                    throw new IllegalArgumentException("--initiator or --any-initiator, not both");
                }
                if (anyInitiator || !initiators.isEmpty()) {
                    initiators.forEach(params.putArray("allowed_initiators")::add);
                }
            }
            default -> throw new IllegalArgumentException("no lun verb " + what + ": " + usage);
        }
        changing(params);
    }

    /** The [[lun]] keys whose values are true or false; block_size is a number; allowed_initiators a list. */
    private static final java.util.Set<String> FLAGS = java.util.Set.of("read_only", "create", "grow", "direct_io");

    /**
     * A KEY=VALUE's value as the config file has it, by key: true or false for the flags, a number for block_size,
     * a list "[a, b]" for allowed_initiators, text for the rest (a path of digits stays a path). The daemon's reader
     * checks each, naming the key.
     */
    private static JsonNode value(final String key, final String text) {
        if (FLAGS.contains(key) && (text.equals("true") || text.equals("false"))) {
            return JSON.getNodeFactory().booleanNode(Boolean.parseBoolean(text));
        }
        if (key.equals("block_size") && text.matches("\\d{1,9}")) {
            return JSON.getNodeFactory().numberNode(Integer.parseInt(text));
        }
        if (key.equals("allowed_initiators")) {
            final com.fasterxml.jackson.databind.node.ArrayNode items = JSON.createArrayNode();
            for (final String item : text.replaceAll("^\\[|]$", "").split(",")) {
                if (!item.isBlank()) {
                    items.add(item.strip().replaceAll("^\"|\"$", ""));
                }
            }
            return items;
        }
        return JSON.getNodeFactory().textNode(text);
    }

    private void changing(final ObjectNode params) {
        if (dryRun) {
            params.put("dry_run", true);
        }
        if (force) {
            params.put("force", true);
        }
    }

    /** Exactly {@code count} words after the verb. */
    private void arguments(final int count, final String usage) {
        if (words.size() != count) {
            throw new IllegalArgumentException((words.size() < count ? "missing" : "too many") + " arguments: " + usage);
        }
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
            result.properties().forEach(e -> {
                if (e.getValue().isArray() && !e.getValue().isEmpty() && e.getValue().get(0).isTextual()
                        && e.getKey().equals("changes")) {
                    // a line each: what a change did, LUN by LUN
                    String key = e.getKey();
                    for (final JsonNode line : e.getValue()) {
                        out.printf(Locale.ROOT, "%-" + width + "s  %s%n", key, line.asText());
                        key = "";
                    }
                } else {
                    out.printf(Locale.ROOT, "%-" + width + "s  %s%n", e.getKey(), text(e.getValue()));
                }
            });
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

package org.rdmablock.target.config;

import org.rdmablock.target.config.LunConfig.BackendKind;
import org.rdmablock.target.config.LunConfig.WriteCachePolicy;
import org.rdmablock.target.config.PipelineConfig.CompletionMode;
import org.rdmablock.target.config.PipelineConfig.ReceiveQueueMode;
import org.tomlj.Toml;
import org.tomlj.TomlArray;
import org.tomlj.TomlParseError;
import org.tomlj.TomlParseResult;
import org.tomlj.TomlPosition;
import org.tomlj.TomlTable;
import org.tomlj.TomlVersion;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SequencedMap;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the target's TOML config file (deploy/rdmablock.toml documents every key) into a {@link TargetConfig}:
 * absent keys take their defaults (the {@code DEFAULT_*} constants of the records), and anything the daemon
 * could not run with refuses to start: unknown keys (with a suggestion when a known key is close), values out of
 * range, and combinations that cannot work. All problems are collected and thrown together in one
 * {@link ConfigException}, each naming the file, line, key, the value found and what is allowed.
 *
 * <p>The TOML parser (tomlj) keeps where each key, table header and array element stands, so every message
 * names the line of the key it is about (an array element: its own line).
 */
public final class TargetConfigReader {
    /** {@link TargetConfig#source()} of the embedded default. */
    public static final String EMBEDDED_SOURCE = "<embedded default>";
    /** Class-path resource of the embedded default config, used when the daemon is started without a file. */
    public static final String EMBEDDED_RESOURCE = "/org/rdmablock/target/default.toml";

    // Upper bounds that are not protocol limits: beyond them a value is a typo, or buffers would not fit in memory
    // (receive buffers are credits × max_iu_length bytes per channel).
    private static final int MAX_IU_LENGTH_LIMIT = 1 << 20;
    private static final int MAX_IO_SIZE_LIMIT = 1 << 30;
    private static final int MAX_CHANNELS_LIMIT = 4096;
    private static final int RING_SIZE_LIMIT = 1 << 24;
    private static final int BACKEND_THREADS_LIMIT = 1024;
    /** max_io_size is whole 4 KiB, so that it is whole blocks for either block size. */
    private static final int IO_SIZE_UNIT = 4096;

    /** The tables a config may hold and their keys, in the order of the sample; anything else is refused. */
    private static final SequencedMap<String, List<String>> KEYS = new LinkedHashMap<>();

    static {
        KEYS.put("listen", List.of("provider", "address", "port"));
        KEYS.put("target", List.of("id_ext", "ioc_guid"));
        KEYS.put("channel", List.of("credits", "max_iu_length", "max_io_size", "immediate_data",
                "immediate_data_size", "max_channels"));
        KEYS.put("pipeline", List.of("cq_size", "ring_size", "backend_threads", "blocking_threads", "receive_queue", "completions"));
        KEYS.put("timeouts", List.of("idle", "command"));
        KEYS.put("metrics", List.of("address", "summary_interval"));
        KEYS.put("lun", List.of("number", "backend", "path", "size", "block_size", "read_only", "write_cache",
                "direct_io", "block_cache", "allowed_initiators"));
    }

    private static final Map<String, String> PROVIDERS = names(ListenConfig.PROVIDERS, ListenConfig.PROVIDERS);
    private static final Map<String, BackendKind> BACKENDS = names(List.of("file", "rocksdb", "memory", "null"),
            List.of(BackendKind.FILE, BackendKind.ROCKSDB, BackendKind.MEMORY, BackendKind.NULL));
    private static final Map<String, WriteCachePolicy> WRITE_CACHES = names(List.of("write-through", "write-back"),
            List.of(WriteCachePolicy.WRITE_THROUGH, WriteCachePolicy.WRITE_BACK));
    private static final Map<String, ReceiveQueueMode> RECEIVE_QUEUES = names(List.of("srq", "per-channel"),
            List.of(ReceiveQueueMode.SHARED, ReceiveQueueMode.PER_CHANNEL));
    private static final Map<String, CompletionMode> COMPLETIONS = names(List.of("poll", "event"),
            List.of(CompletionMode.POLL, CompletionMode.EVENT));

    private static final Pattern HEX_ID = Pattern.compile("(?:0[xX])?([0-9a-fA-F]{16})");
    private static final String SIZE_FORMS = Quantities.SIZE_FORMS;
    private static final String DURATION_FORMS = Quantities.DURATION_FORMS;
    /** A metrics endpoint: host:port (a name or IPv4 address) or [IPv6]:port. */
    private static final Pattern ENDPOINT = Pattern.compile("(?:\\[([0-9A-Fa-f:.]+)]|([^\\s:\\[\\]]+)):(\\d{1,5})");
    private static final String ENDPOINT_FORMS = "\"\" (no endpoint), or \"host:port\" such as \"127.0.0.1:9464\","
            + " \"[::1]:9464\"; port 0 takes any free one";
    private static final String HEX_ID_FORM = "a string of 16 hex digits, e.g. \"0x0272000000000001\"";
    private static final int RENDERED_VALUE_LIMIT = 60;
    private static final TomlTable EMPTY = Toml.parse("");

    /** tomlj's message for a key or table given twice: {@code port previously defined at line 2, column 1}. */
    private static final Pattern REDEFINED = Pattern.compile("(.+) previously defined at line (\\d+), column (\\d+)");

    private final String source;
    private final String[] textLines;
    private final Path baseDirectory;
    private final List<ConfigException.Problem> problems = new ArrayList<>();

    private TargetConfigReader(String source, String text, Path baseDirectory) {
        this.source = source;
        this.textLines = text.split("\\r?\\n", -1);
        this.baseDirectory = baseDirectory;
    }

    /** Reads {@code file}; relative LUN paths resolve against its directory. Messages name it as given. */
    public static TargetConfig read(Path file) throws ConfigException {
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(Files.readAllBytes(file))).toString();
        } catch (CharacterCodingException e) {
            throw new ConfigException(List.of(new ConfigException.Problem(file.toString(), 0, null,
                    "is not UTF-8 text (TOML files are)")));
        } catch (IOException e) {
            throw new ConfigException(List.of(new ConfigException.Problem(file.toString(), 0, null,
                    "cannot be read: " + e)));
        }
        return read(text, file.toString(), TargetConfig.baseDirectory(file));
    }

    /**
     * Reads a config from {@code toml}.
     *
     * @param source        what messages and {@link TargetConfig#source()} call it
     * @param baseDirectory what relative LUN paths resolve against
     */
    public static TargetConfig read(String toml, String source, Path baseDirectory) throws ConfigException {
        TomlParseResult root = Toml.parse(toml, TomlVersion.V1_0_0);
        if (root.hasErrors()) {
            List<ConfigException.Problem> syntax = new ArrayList<>();
            root.errors().forEach(e -> syntax.add(syntaxProblem(source, root, e)));
            syntax.sort(Comparator.comparingInt(ConfigException.Problem::line));
            throw new ConfigException(syntax);
        }
        TargetConfigReader reader = new TargetConfigReader(source, toml, baseDirectory.toAbsolutePath());
        TargetConfig config = reader.config(new Table("", root, 0));
        if (!reader.problems.isEmpty()) {
            reader.problems.sort(Comparator.comparingInt(ConfigException.Problem::line));
            throw new ConfigException(reader.problems);
        }
        return config;
    }

    /**
     * The config the daemon runs with when given no file ({@link #EMBEDDED_RESOURCE}): the soft provider on
     * 127.0.0.1 port 5555, one 1 GiB sparse file LUN 0 at {@code ./data/lun0.img}. Its relative paths resolve against
     * the working directory, as it has no directory of its own.
     */
    public static TargetConfig embeddedDefault() {
        try (InputStream in = TargetConfigReader.class.getResourceAsStream(EMBEDDED_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(EMBEDDED_RESOURCE + " is missing from the class path");
            }
            return read(new String(in.readAllBytes(), StandardCharsets.UTF_8), EMBEDDED_SOURCE,
                    TargetConfig.baseDirectory(null));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (ConfigException e) {
            throw new IllegalStateException("the embedded default config is refused:\n" + e.getMessage(), e);
        }
    }

    /** Every key the reader knows, as {@code table.key} ({@code lun.block_size} for the keys of each [[lun]]). */
    public static List<String> knownKeys() {
        List<String> keys = new ArrayList<>();
        KEYS.forEach((table, names) -> names.forEach(name -> keys.add(table + "." + name)));
        return keys;
    }

    // ---- the document

    private TargetConfig config(Table root) {
        checkKeys(root, KEYS.sequencedKeySet(), "tables");
        ListenConfig listen = listen(table(root, "listen"));
        IdentityConfig identity = identity(table(root, "target"), listen);
        ChannelConfig channel = channel(table(root, "channel"));
        PipelineConfig pipeline = pipeline(table(root, "pipeline"), channel);
        TimeoutConfig timeouts = timeouts(table(root, "timeouts"));
        List<LunConfig> luns = luns(root);
        MetricsConfig metrics = metrics(table(root, "metrics"));
        if (!problems.isEmpty()) {
            return null;
        }
        return new TargetConfig(source, listen, identity, channel, pipeline, timeouts, luns, metrics);
    }

    private ListenConfig listen(Table t) {
        String provider = choice(t, "provider", ListenConfig.DEFAULT_PROVIDER, PROVIDERS);
        String address = value(t, "address", ListenConfig.DEFAULT_ADDRESS, "an IP address or host name",
                n -> n instanceof String text && !text.isBlank() && text.chars().noneMatch(Character::isWhitespace)
                        ? text : null);
        Integer port = integer(t, "port", ListenConfig.DEFAULT_PORT, 1, 65535);
        return valid(provider, address, port) ? new ListenConfig(provider, address, port) : null;
    }

    private IdentityConfig identity(Table t, ListenConfig listen) {
        Long derived = listen == null ? null : IdentityConfig.derivedIdExt(listen.address(), listen.port());
        Long idExt = value(t, "id_ext", derived, HEX_ID_FORM, TargetConfigReader::hexId);
        // ib_srpt uses the HCA's GUID for both; with no HCA to take it from, the id_ext serves again
        Long iocGuid = value(t, "ioc_guid", idExt, HEX_ID_FORM, TargetConfigReader::hexId);
        return valid(idExt, iocGuid) ? new IdentityConfig(idExt, iocGuid) : null;
    }

    private ChannelConfig channel(Table t) {
        Integer credits = integer(t, "credits", ChannelConfig.DEFAULT_CREDITS, 1, ChannelConfig.MAX_CREDITS);
        Integer maxIuLength = integer(t, "max_iu_length", ChannelConfig.DEFAULT_MAX_IU_LENGTH,
                ChannelConfig.MIN_IU_LENGTH, MAX_IU_LENGTH_LIMIT);
        Long maxIoSize = size(t, "max_io_size", (long) ChannelConfig.DEFAULT_MAX_IO_SIZE,
                IO_SIZE_UNIT, MAX_IO_SIZE_LIMIT, IO_SIZE_UNIT, "a multiple of 4KiB from 4KiB to 1GiB");
        Boolean immediateData = bool(t, "immediate_data", ChannelConfig.DEFAULT_IMMEDIATE_DATA);
        Integer maxChannels = integer(t, "max_channels", ChannelConfig.DEFAULT_MAX_CHANNELS, 1, MAX_CHANNELS_LIMIT);
        Integer immediateDataSize = maxIuLength == null || immediateData == null ? null
                : immediateDataSize(t, maxIuLength, immediateData);
        return valid(credits, maxIuLength, maxIoSize, immediateData, immediateDataSize, maxChannels)
                ? new ChannelConfig(credits, maxIuLength, maxIoSize.intValue(), immediateData, immediateDataSize,
                maxChannels)
                : null;
    }

    /**
     * immediate_data_size: with immediate data on, it must fit behind the command in an IU of max_iu_length bytes;
     * absent, it is as much of the default as fits.
     */
    private Integer immediateDataSize(Table t, int maxIuLength, boolean immediateData) {
        int room = maxIuLength - ChannelConfig.IMMEDIATE_DATA_OFFSET;
        String why = "immediate data starts at byte " + ChannelConfig.IMMEDIATE_DATA_OFFSET + " of an SRP_CMD";
        if (immediateData && room < 1) {
            notAllowed(t, "max_iu_length", "more than " + ChannelConfig.IMMEDIATE_DATA_OFFSET
                    + " while immediate_data is true: " + why);
            return null;
        }
        long absent = Math.clamp(room, 0, ChannelConfig.DEFAULT_IMMEDIATE_DATA_SIZE);
        Long size = immediateData
                ? size(t, "immediate_data_size", absent, 1, room, 1,
                "1 to max_iu_length - " + ChannelConfig.IMMEDIATE_DATA_OFFSET + " = " + room + ": " + why)
                : size(t, "immediate_data_size", absent, 1, MAX_IU_LENGTH_LIMIT, 1, "1 to " + MAX_IU_LENGTH_LIMIT);
        return size == null ? null : size.intValue();
    }

    private PipelineConfig pipeline(Table t, ChannelConfig channel) {
        Integer cqSize;
        if (channel == null) {
            cqSize = integer(t, "cq_size", null, 1, Integer.MAX_VALUE);
        } else {
            int minimum = (int) PipelineConfig.minimumCqSize(channel.maxChannels(), channel.credits());
            cqSize = integer(t, "cq_size", minimum, minimum, Integer.MAX_VALUE,
                    "at least max_channels × (credits + " + PipelineConfig.SPARE_RECEIVES_PER_CHANNEL + ") × "
                            + PipelineConfig.CQ_ENTRIES_PER_CREDIT + " = " + minimum);
        }
        Integer ringSize = value(t, "ring_size", PipelineConfig.DEFAULT_RING_SIZE,
                "a power of two from 1 to " + RING_SIZE_LIMIT,
                n -> inRange(n, 1, RING_SIZE_LIMIT) && Long.bitCount((Long) n) == 1 ? intValue(n) : null);
        Integer backendThreads = value(t, "backend_threads", PipelineConfig.DEFAULT_BACKEND_THREADS,
                "an integer from 0 to " + BACKEND_THREADS_LIMIT + " or \"auto\"",
                TargetConfigReader::threads);
        Integer blockingThreads = value(t, "blocking_threads", PipelineConfig.DEFAULT_BLOCKING_THREADS,
                "an integer from 0 to " + BACKEND_THREADS_LIMIT + " or \"auto\"",
                TargetConfigReader::threads);
        if (blockingThreads != null && blockingThreads > 0 && backendThreads != null && backendThreads > 0) {
            notAllowed(t, "blocking_threads", "blocking-call threads serve a pipeline the poller runs: only with"
                    + " backend_threads = 0 or \"auto\", not " + backendThreads);
            blockingThreads = null;
        }
        ReceiveQueueMode receiveQueue = choice(t, "receive_queue", PipelineConfig.DEFAULT_RECEIVE_QUEUE,
                RECEIVE_QUEUES);
        CompletionMode completions = choice(t, "completions", PipelineConfig.DEFAULT_COMPLETIONS, COMPLETIONS);
        return valid(cqSize, ringSize, backendThreads, blockingThreads, receiveQueue, completions)
                ? new PipelineConfig(cqSize, ringSize, backendThreads, receiveQueue, completions, blockingThreads) : null;
    }

    private TimeoutConfig timeouts(Table t) {
        Duration idle = duration(t, "idle", TimeoutConfig.DEFAULT_IDLE);
        Duration command = duration(t, "command", TimeoutConfig.DEFAULT_COMMAND);
        return valid(idle, command) ? new TimeoutConfig(idle, command) : null;
    }

    private MetricsConfig metrics(Table t) {
        HostAndPort endpoint = value(t, "address", HostAndPort.NONE, ENDPOINT_FORMS, TargetConfigReader::endpoint);
        Duration summary = value(t, "summary_interval", MetricsConfig.DEFAULT_SUMMARY_INTERVAL,
                "\"0\" (never) or at least \"" + MetricsConfig.MIN_SUMMARY_INTERVAL.toSeconds() + "s\"; " + DURATION_FORMS,
                n -> {
                    Duration d = durationOf(n);
                    return d != null && (d.isZero() || d.compareTo(MetricsConfig.MIN_SUMMARY_INTERVAL) >= 0) ? d : null;
                });
        return valid(endpoint, summary) ? new MetricsConfig(endpoint.host(), endpoint.port(), summary) : null;
    }

    /** A thread count: 0 to {@link #BACKEND_THREADS_LIMIT}, or "auto"; null when it is neither. */
    private static Integer threads(Object n) {
        return "auto".equals(n) ? Integer.valueOf(PipelineConfig.AUTO_BACKEND_THREADS)
                : inRange(n, 0, BACKEND_THREADS_LIMIT) ? intValue(n) : null;
    }

    /** A metrics endpoint as written: host and port, or {@link #NONE} for the empty string. */
    private record HostAndPort(String host, int port) {
        static final HostAndPort NONE = new HostAndPort(null, 0);
    }

    /** "host:port" or "[v6]:port", port 0..65535; "" is no endpoint; null when it is neither. */
    private static HostAndPort endpoint(Object n) {
        if (!(n instanceof String value)) {
            return null;
        }
        String text = value.strip();
        if (text.isEmpty()) {
            return HostAndPort.NONE;
        }
        Matcher m = ENDPOINT.matcher(text);
        if (!m.matches()) {
            return null;
        }
        String host = m.group(1) != null ? m.group(1) : m.group(2);
        int port = Integer.parseInt(m.group(3));
        return port <= 65535 ? new HostAndPort(host, port) : null;
    }

    private List<LunConfig> luns(Table root) {
        Object value = root.get("lun");
        if (value == null) {
            return List.of();
        }
        if (!(value instanceof TomlArray array)) {
            notAllowed(root, "lun", "an array of tables: each LUN under a [[lun]] header");
            return List.of();
        }
        List<LunConfig> luns = new ArrayList<>();
        Map<Integer, Table> numbers = new HashMap<>();
        Map<Path, Table> paths = new HashMap<>();
        for (int i = 0; i < array.size(); i++) {
            String name = "lun[" + i + "]";
            int line = elementLine(array, i);
            if (!(array.get(i) instanceof TomlTable entry)) {
                notAllowed(name, line, array.get(i), "a table: a [[lun]] header and its keys");
                continue;
            }
            Table t = new Table(name, entry, line);
            checkKeys(t, KEYS.get("lun"), "keys in [[lun]]");
            LunConfig lun = lun(t);
            if (lun == null) {
                continue;
            }
            Table other = numbers.putIfAbsent(lun.number(), t);
            if (other != null) {
                notAllowed(t, "number", "each number once: " + other.name() + " at line " + other.line()
                        + " is LUN " + lun.number());
            }
            other = lun.path() == null ? null : paths.putIfAbsent(lun.path(), t);
            if (other != null) {
                notAllowed(t, "path", "each path once: " + other.name() + " at line " + other.line()
                        + " uses " + lun.path());
            }
            luns.add(lun);
        }
        luns.sort(Comparator.comparingInt(LunConfig::number));
        return luns;
    }

    private LunConfig lun(Table t) {
        Integer number = required(t, "number", "0 to " + LunConfig.MAX_NUMBER)
                ? integer(t, "number", null, 0, LunConfig.MAX_NUMBER) : null;
        BackendKind backend = choice(t, "backend", LunConfig.DEFAULT_BACKEND, BACKENDS);
        Path path = path(t, backend);
        Integer blockSize = value(t, "block_size", LunConfig.DEFAULT_BLOCK_SIZE, "512 or 4096",
                n -> inRange(n, 0, Integer.MAX_VALUE) && LunConfig.BLOCK_SIZES.contains(intValue(n))
                        ? intValue(n) : null);
        int unit = blockSize == null ? 1 : blockSize;
        Long size = required(t, "size", "the capacity, e.g. \"1GiB\"")
                ? size(t, "size", null, unit, Long.MAX_VALUE, unit, "a positive multiple of block_size " + unit)
                : null;
        Boolean readOnly = bool(t, "read_only", LunConfig.DEFAULT_READ_ONLY);
        WriteCachePolicy writeCache = choice(t, "write_cache", LunConfig.DEFAULT_WRITE_CACHE, WRITE_CACHES);
        Boolean directIo = onlyFor(t, "direct_io", backend, BackendKind.FILE)
                ? bool(t, "direct_io", LunConfig.DEFAULT_DIRECT_IO) : LunConfig.DEFAULT_DIRECT_IO;
        Long blockCache = onlyFor(t, "block_cache", backend, BackendKind.ROCKSDB)
                ? size(t, "block_cache", backend == BackendKind.ROCKSDB ? LunConfig.DEFAULT_BLOCK_CACHE_BYTES : 0,
                1, Long.MAX_VALUE, 1, "a positive size") : 0L;
        List<InitiatorPortId> initiators = initiators(t);
        if (!valid(number, backend, blockSize, size, readOnly, writeCache, directIo, blockCache, initiators)
                || (path == null && needsPath(backend))) {
            return null;
        }
        return new LunConfig(number, backend, path, size, blockSize, readOnly, writeCache, directIo, blockCache,
                initiators);
    }

    private static boolean needsPath(BackendKind backend) {
        return backend == BackendKind.FILE || backend == BackendKind.ROCKSDB;
    }

    /** The LUN's path resolved against the base directory; null when it has none (or a wrong one, reported). */
    private Path path(Table t, BackendKind backend) {
        if (backend == null) {
            return null;
        }
        String kind = backendName(backend);
        if (!needsPath(backend)) {
            if (t.has("path")) {
                notAllowed(t, "path", "none: a " + kind + " LUN keeps no file");
            }
            return null;
        }
        if (!required(t, "path", "a " + kind + " LUN needs one")) {
            return null;
        }
        String text = value(t, "path", null, "a " + (backend == BackendKind.FILE ? "file" : "directory") + " path",
                n -> n instanceof String path && !path.isBlank() ? path : null);
        if (text == null) {
            return null;
        }
        try {
            return baseDirectory.resolve(text).normalize();
        } catch (InvalidPathException e) {
            notAllowed(t, "path", "a path this system accepts: " + e.getReason());
            return null;
        }
    }

    /** The allowed initiators, each element checked on its own; null when one is wrong. */
    private List<InitiatorPortId> initiators(Table t) {
        Object value = t.get("allowed_initiators");
        if (value == null) {
            return List.of();
        }
        if (!(value instanceof TomlArray array)) {
            notAllowed(t, "allowed_initiators", "an array of initiator port ids, 32 hex digits each");
            return null;
        }
        String key = t.key("allowed_initiators");
        List<InitiatorPortId> ids = new ArrayList<>();
        for (int i = 0; i < array.size(); i++) {
            InitiatorPortId id = initiatorPortId(array.get(i));
            if (id == null) {
                notAllowed(key + "[" + i + "]", elementLine(array, i), array.get(i),
                        "an initiator port id: a string of 32 hex digits, e.g. \"0x" + "0".repeat(31) + "1\"");
            }
            ids.add(id);
        }
        return ids.contains(null) ? null : ids;
    }

    private static InitiatorPortId initiatorPortId(Object n) {
        try {
            return n instanceof String text ? InitiatorPortId.parse(text) : null;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    // ---- values

    /**
     * One TOML table: its name in messages ({@code channel}, {@code lun[1]}, {@code ""} for the root), its keys
     * and the line of its header (0 when it has none: the root, or a table the file leaves out).
     */
    private record Table(String name, TomlTable node, int line) {
        String key(String key) {
            return name.isEmpty() ? key : name + "." + key;
        }

        boolean has(String key) {
            return node.contains(List.of(key));
        }

        Object get(String key) {
            return node.get(List.of(key));
        }

        /** The line {@code key} stands on; the table's own when it is not there. */
        int lineOf(String key) {
            TomlPosition position = node.inputPositionOf(List.of(key));
            return position == null ? line : position.line();
        }
    }

    /** The table {@code name} of the root; an empty one when absent (every key then takes its default). */
    private Table table(Table root, String name) {
        Object value = root.get(name);
        if (value == null) {
            return new Table(name, EMPTY, 0);
        }
        if (!(value instanceof TomlTable table)) {
            notAllowed(root, name, "a table: a [" + name + "] header and its keys");
            return new Table(name, EMPTY, 0);
        }
        Table t = new Table(name, table, root.lineOf(name));
        checkKeys(t, KEYS.get(name), "keys in [" + name + "]");
        return t;
    }

    /**
     * The line array element {@code index} stands on. tomlj places an element where the space before it begins
     * (after the {@code [} or the previous comma), so the blanks, line ends and comments that follow are skipped.
     */
    private int elementLine(TomlArray array, int index) {
        TomlPosition position = array.inputPositionOf(index);
        if (position == null) {
            return 0;
        }
        int line = position.line();
        int column = position.column() - 1;
        while (line <= textLines.length) {
            String text = textLines[line - 1];
            while (column < text.length() && (text.charAt(column) == ' ' || text.charAt(column) == '\t')) {
                column++;
            }
            if (column < text.length() && text.charAt(column) != '#') {
                return line;
            }
            line++;
            column = 0;
        }
        return position.line();
    }

    /**
     * Reads {@code key} of {@code t}: {@code absent} when it is not there, else what {@code convert} makes of it;
     * convert returns null for a value that is not allowed, which is then reported with {@code allowed}.
     */
    private <T> T value(Table t, String key, T absent, String allowed, Function<Object, T> convert) {
        Object node = t.get(key);
        if (node == null) {
            return absent;
        }
        T converted = convert.apply(node);
        if (converted == null) {
            notAllowed(t, key, allowed);
        }
        return converted;
    }

    private Integer integer(Table t, String key, Integer absent, int min, int max) {
        return integer(t, key, absent, min, max, "an integer from " + min + " to " + max);
    }

    private Integer integer(Table t, String key, Integer absent, int min, int max, String allowed) {
        return value(t, key, absent, allowed, n -> inRange(n, min, max) ? intValue(n) : null);
    }

    /** Whether {@code n} is a TOML integer from {@code min} to {@code max}. */
    private static boolean inRange(Object n, long min, long max) {
        return n instanceof Long l && l >= min && l <= max;
    }

    /** A TOML integer that {@link #inRange} found within int's range. */
    private static int intValue(Object n) {
        return Math.toIntExact((Long) n);
    }

    private Long size(Table t, String key, Long absent, long min, long max, long multiple, String allowed) {
        return value(t, key, absent, allowed + "; " + SIZE_FORMS, n -> {
            Long bytes = n instanceof Long l ? l : null;
            if (n instanceof String text) {
                try {
                    bytes = Quantities.parseSize(text);
                } catch (IllegalArgumentException e) {
                    return null;
                }
            }
            return bytes != null && bytes >= min && bytes <= max && bytes % multiple == 0 ? bytes : null;
        });
    }

    private Boolean bool(Table t, String key, boolean absent) {
        return value(t, key, absent, "true or false", n -> n instanceof Boolean b ? b : null);
    }

    private <E> E choice(Table t, String key, E absent, Map<String, E> names) {
        return value(t, key, absent, orList(names.keySet()), n -> n instanceof String text ? names.get(text) : null);
    }

    private Duration duration(Table t, String key, Duration absent) {
        return value(t, key, absent, DURATION_FORMS, TargetConfigReader::durationOf);
    }

    /** A duration value: 0, or a string {@link Quantities#parseDuration} takes; null when it is neither. */
    private static Duration durationOf(Object n) {
        if (n instanceof Long l && l == 0) {
            return Duration.ZERO;       // 0 needs no unit; any other number does
        }
        try {
            return n instanceof String text ? Quantities.parseDuration(text) : null;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static Long hexId(Object n) {
        Matcher m = HEX_ID.matcher(n instanceof String text ? text : "");
        return m.matches() ? Long.parseUnsignedLong(m.group(1), 16) : null;
    }

    /** Whether {@code key} is there; reports it missing otherwise. */
    private boolean required(Table t, String key, String allowed) {
        if (!t.has(key)) {
            problem(t.key(key), t.line(), "key '" + t.key(key) + "' is missing (" + allowed + ")");
            return false;
        }
        return true;
    }

    /** Whether {@code key} may be read: it is absent or the LUN has {@code backend}; reports it otherwise. */
    private boolean onlyFor(Table t, String key, BackendKind backend, BackendKind owner) {
        if (t.has(key) && backend != null && backend != owner) {
            notAllowed(t, key, "only for " + backendName(owner) + " LUNs, not " + backendName(backend));
            return false;
        }
        return true;
    }

    private static String backendName(BackendKind kind) {
        return BACKENDS.entrySet().stream().filter(e -> e.getValue() == kind).findFirst().orElseThrow().getKey();
    }

    private static boolean valid(Object... values) {
        for (Object v : values) {
            if (v == null) {
                return false;
            }
        }
        return true;
    }

    // ---- problems

    private void notAllowed(Table t, String key, String allowed) {
        notAllowed(t.key(key), t.lineOf(key), t.get(key), allowed);
    }

    private void notAllowed(String key, int line, Object found, String allowed) {
        problem(key, line, "key '" + key + "': " + render(found) + " is not allowed (" + allowed + ")");
    }

    private void problem(String key, int line, String message) {
        problems.add(new ConfigException.Problem(source, line, key, message));
    }

    /** Refuses the keys of {@code table} that are not {@code known}, suggesting a close known one. */
    private void checkKeys(Table table, Collection<String> known, String knownWhat) {
        for (String name : table.node().keySet()) {
            if (known.contains(name)) {
                continue;
            }
            String key = table.key(name);
            String suggestion = closest(name, known);
            problem(key, table.lineOf(name), "key '" + key + "' is not known" + (suggestion != null
                    ? "; did you mean '" + suggestion + "'?"
                    : " (" + knownWhat + ": " + String.join(", ", known) + ")"));
        }
    }

    /**
     * The known key a mistyped one most likely meant: at most 2 edits away (a swap of neighbours is one, case and
     * {@code -} for {@code _} are free), and at most a third of the known key; null when none is that close.
     */
    static String closest(String typed, Collection<String> known) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String candidate : known) {
            int distance = editDistance(typed.toLowerCase().replace('-', '_'), candidate);
            if (distance < bestDistance && distance <= Math.max(1, Math.min(2, candidate.length() / 3))) {
                best = candidate;
                bestDistance = distance;
            }
        }
        return best;
    }

    /** Optimal-string-alignment distance: insertions, deletions, substitutions and swaps of neighbours. */
    private static int editDistance(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) {
            for (int j = 0; j <= b.length(); j++) {
                if (i == 0 || j == 0) {
                    d[i][j] = i + j;
                    continue;
                }
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[a.length()][b.length()];
    }

    /** A value as it would be written in TOML (strings quoted, tables inline), cut short when long. */
    private static String render(Object found) {
        String text = found == null ? "(absent)" : toml(found);
        return text.length() <= RENDERED_VALUE_LIMIT ? text : text.substring(0, RENDERED_VALUE_LIMIT - 3) + "...";
    }

    private static String toml(Object value) {
        return switch (value) {
            case String s -> "\"" + s + "\"";
            case Double d when d.isNaN() -> "nan";
            case Double d when d.isInfinite() -> d > 0 ? "inf" : "-inf";
            case Double d -> {
                String plain = BigDecimal.valueOf(d).toPlainString();
                yield plain.contains(".") ? plain : plain + ".0";
            }
            case TomlArray array -> {
                List<String> elements = new ArrayList<>();
                for (int i = 0; i < array.size(); i++) {
                    elements.add(toml(array.get(i)));
                }
                yield "[" + String.join(", ", elements) + "]";
            }
            case TomlTable table -> {
                List<String> entries = new ArrayList<>();
                table.keySet().forEach(k -> entries.add(tomlKey(k) + " = " + toml(table.get(List.of(k)))));
                yield "{" + String.join(", ", entries) + "}";
            }
            default -> value.toString();    // integers, booleans, dates and times: as TOML writes them
        };
    }

    private static String tomlKey(String key) {
        return key.matches("[A-Za-z0-9_-]+") ? key : "\"" + key + "\"";
    }

    /**
     * A problem the TOML parser found. A key or table given twice is named in the reader's notation (tomlj's
     * message names only its last part), with the line of both.
     */
    private static ConfigException.Problem syntaxProblem(String source, TomlParseResult root, TomlParseError e) {
        int line = e.position() == null ? 0 : e.position().line();
        String message = e.getMessage();
        Matcher first = REDEFINED.matcher(message);
        if (first.matches()) {
            TomlPosition at = TomlPosition.positionAt(Integer.parseInt(first.group(2)),
                    Integer.parseInt(first.group(3)));
            // a dotted key (listen.port = 1) puts its tables where it stands: the one tomlj names is the one meant
            List<String> keys = new ArrayList<>();
            keysAt(root, "", at, keys);
            String named = first.group(1);
            String key = keys.stream().filter(k -> k.equals(named) || k.endsWith("." + named)).findFirst()
                    .orElse(keys.isEmpty() ? null : keys.getFirst());
            if (key != null) {
                return new ConfigException.Problem(source, line, key,
                        "key '" + key + "' is given twice (first at line " + at.line() + ")");
            }
        }
        return new ConfigException.Problem(source, line, null, "not TOML: " + message);
    }

    /** Adds the keys of {@code table} (named under {@code prefix}) that stand at {@code position} to {@code keys}. */
    private static void keysAt(TomlTable table, String prefix, TomlPosition position, List<String> keys) {
        for (String name : table.keySet()) {
            String key = prefix.isEmpty() ? name : prefix + "." + name;
            if (position.equals(table.inputPositionOf(List.of(name)))) {
                keys.add(key);
            }
            Object value = table.get(List.of(name));
            if (value instanceof TomlTable inner) {
                keysAt(inner, key, position, keys);
            } else if (value instanceof TomlArray array) {
                for (int i = 0; i < array.size(); i++) {
                    if (array.get(i) instanceof TomlTable entry) {
                        keysAt(entry, key + "[" + i + "]", position, keys);
                    }
                }
            }
        }
    }

    private static String orList(Collection<String> names) {
        List<String> list = List.copyOf(names);
        return list.size() == 1 ? list.getFirst()
                : String.join(", ", list.subList(0, list.size() - 1)) + " or " + list.getLast();
    }


    /** TOML names to values, in the order messages list them. */
    private static <E> Map<String, E> names(List<String> names, List<E> values) {
        Map<String, E> map = new LinkedHashMap<>();
        for (int i = 0; i < names.size(); i++) {
            map.put(names.get(i), values.get(i));
        }
        return map;
    }
}

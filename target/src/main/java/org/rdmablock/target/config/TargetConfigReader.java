package org.rdmablock.target.config;

import org.rdmablock.target.config.ConfigKeys.Absent;
import org.rdmablock.target.config.ConfigKeys.HostAndPort;
import org.rdmablock.target.config.ConfigKeys.Key;
import org.rdmablock.target.config.ConfigKeys.ListOf;
import org.rdmablock.target.config.ConfigKeys.Type;
import org.rdmablock.target.config.ConfigKeys.Values;
import org.rdmablock.target.config.LunConfig.BackendKind;
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
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.rdmablock.target.config.ConfigKeys.ADDRESS;
import static org.rdmablock.target.config.ConfigKeys.ADMIN;
import static org.rdmablock.target.config.ConfigKeys.ADMIN_SOCKET;
import static org.rdmablock.target.config.ConfigKeys.ALL;
import static org.rdmablock.target.config.ConfigKeys.ALLOWED_INITIATORS;
import static org.rdmablock.target.config.ConfigKeys.ARRAYS;
import static org.rdmablock.target.config.ConfigKeys.BACKEND;
import static org.rdmablock.target.config.ConfigKeys.BACKEND_THREADS;
import static org.rdmablock.target.config.ConfigKeys.BLOCKING_THREADS;
import static org.rdmablock.target.config.ConfigKeys.BLOCK_CACHE;
import static org.rdmablock.target.config.ConfigKeys.BLOCK_SIZE;
import static org.rdmablock.target.config.ConfigKeys.COMMAND;
import static org.rdmablock.target.config.ConfigKeys.COMPLETIONS;
import static org.rdmablock.target.config.ConfigKeys.CQ_SIZE;
import static org.rdmablock.target.config.ConfigKeys.CREATE;
import static org.rdmablock.target.config.ConfigKeys.CREDITS;
import static org.rdmablock.target.config.ConfigKeys.DIRECT_IO;
import static org.rdmablock.target.config.ConfigKeys.IDLE;
import static org.rdmablock.target.config.ConfigKeys.GROW;
import static org.rdmablock.target.config.ConfigKeys.ID_EXT;
import static org.rdmablock.target.config.ConfigKeys.IMMEDIATE_DATA;
import static org.rdmablock.target.config.ConfigKeys.IMMEDIATE_DATA_SIZE;
import static org.rdmablock.target.config.ConfigKeys.IOC_GUID;
import static org.rdmablock.target.config.ConfigKeys.LISTEN;
import static org.rdmablock.target.config.ConfigKeys.LISTEN_GROUP;
import static org.rdmablock.target.config.ConfigKeys.LUN;
import static org.rdmablock.target.config.ConfigKeys.MAX_CHANNELS;
import static org.rdmablock.target.config.ConfigKeys.MAX_CHANNELS_PER_INITIATOR;
import static org.rdmablock.target.config.ConfigKeys.MAX_IO_SIZE;
import static org.rdmablock.target.config.ConfigKeys.MAX_IU_LENGTH;
import static org.rdmablock.target.config.ConfigKeys.METRICS_ADDRESS;
import static org.rdmablock.target.config.ConfigKeys.NUMBER;
import static org.rdmablock.target.config.ConfigKeys.NVME;
import static org.rdmablock.target.config.ConfigKeys.NVME_ALLOWED_HOSTS;
import static org.rdmablock.target.config.ConfigKeys.NVME_PORT;
import static org.rdmablock.target.config.ConfigKeys.NVME_SERIAL;
import static org.rdmablock.target.config.ConfigKeys.NVME_SUBSYSTEM;
import static org.rdmablock.target.config.ConfigKeys.PATH;
import static org.rdmablock.target.config.ConfigKeys.PORT;
import static org.rdmablock.target.config.ConfigKeys.PORT_GROUP;
import static org.rdmablock.target.config.ConfigKeys.PORT_GROUP_ID;
import static org.rdmablock.target.config.ConfigKeys.PORT_GROUP_STATE;
import static org.rdmablock.target.config.ConfigKeys.PROVIDER;
import static org.rdmablock.target.config.ConfigKeys.READ_ONLY;
import static org.rdmablock.target.config.ConfigKeys.RECEIVE_QUEUE;
import static org.rdmablock.target.config.ConfigKeys.RING_SIZE;
import static org.rdmablock.target.config.ConfigKeys.SIZE;
import static org.rdmablock.target.config.ConfigKeys.SUBSYSTEM;
import static org.rdmablock.target.config.ConfigKeys.SUBSYSTEM_ALLOWED_HOSTS;
import static org.rdmablock.target.config.ConfigKeys.SUBSYSTEM_MODEL;
import static org.rdmablock.target.config.ConfigKeys.SUBSYSTEM_NAMESPACES;
import static org.rdmablock.target.config.ConfigKeys.SUBSYSTEM_NQN;
import static org.rdmablock.target.config.ConfigKeys.SUBSYSTEM_SERIAL;
import static org.rdmablock.target.config.ConfigKeys.SUMMARY_INTERVAL;
import static org.rdmablock.target.config.ConfigKeys.TABLES;
import static org.rdmablock.target.config.ConfigKeys.TARGET_PORT;
import static org.rdmablock.target.config.ConfigKeys.TARGET_PORT_ADDRESS;
import static org.rdmablock.target.config.ConfigKeys.TARGET_PORT_GROUP;
import static org.rdmablock.target.config.ConfigKeys.TARGET_PORT_ID;
import static org.rdmablock.target.config.ConfigKeys.TARGET_PORT_PORT;
import static org.rdmablock.target.config.ConfigKeys.WRITE_CACHE;
import static org.rdmablock.target.config.ConfigKeys.namesOf;

/**
 * Reads the target's TOML config file (deploy/rdmablock.toml documents every key) into a {@link TargetConfig}:
 * absent keys take their defaults, and anything the daemon could not run with refuses to start: unknown keys (with a
 * suggestion when a known key is close), values out of range, and combinations that cannot work. All problems are
 * collected and thrown together in one {@link ConfigException}, each naming the file, line, key, the value found and
 * what is allowed.
 *
 * <p>The keys, their types, ranges and defaults are described once, in {@link ConfigKeys}; this class walks the
 * document with them. The TOML parser (tomlj) keeps where each key, table header and array element stands, so every
 * message names the line of what it is about.
 */
public final class TargetConfigReader {
    /** {@link TargetConfig#source()} of the embedded default. */
    public static final String EMBEDDED_SOURCE = "<embedded default>";
    /** Class-path resource of the embedded default config, used when the daemon is started without a file. */
    public static final String EMBEDDED_RESOURCE = "/org/rdmablock/target/default.toml";
    /** The folder, in the working directory, that the embedded default keeps its LUN in (the daemon makes it). */
    public static final String EMBEDDED_FOLDER = "data";

    private static final int RENDERED_VALUE_LIMIT = 60;
    private static final TomlTable EMPTY = Toml.parse("");

    /** tomlj's message for a key or table given twice: {@code port previously defined at line 2, column 1}. */
    private static final Pattern REDEFINED = Pattern.compile("(.+) previously defined at line (\\d+), column (\\d+)");

    private final String source;
    private final String[] textLines;
    private final Path baseDirectory;
    private final Storage storage;
    private final List<ConfigException.Problem> problems = new ArrayList<>();

    private TargetConfigReader(String source, String text, Path baseDirectory, Storage storage) {
        this.source = source;
        this.textLines = text.split("\\r?\\n", -1);
        this.baseDirectory = baseDirectory;
        this.storage = storage;
    }

    /** Whether a read looks at the LUNs' files as well as the text. */
    public enum Storage {
        /**
         * The text only: for configs of other machines and tests. Its LUN paths need not exist.
         */
        NOT_CHECKED,
        /**
         * The text and the file system, as the daemon reads its config (start, reload, {@code --check}): a file or
         * rocksdb LUN's folder must exist (the target makes none: a typo or a disk not mounted yet would otherwise
         * become a blank disk), and its file or database too unless {@code create = true}.
         */
        CHECKED
    }

    /**
     * Reads {@code file} as the daemon does ({@link Storage#CHECKED}); relative LUN paths resolve against its
     * directory. Messages name it as given.
     */
    public static TargetConfig read(Path file) throws ConfigException {
        return read(file, Storage.CHECKED);
    }

    /** Reads {@code file}, looking at its LUNs' files or not; relative LUN paths resolve against its directory. */
    public static TargetConfig read(Path file, Storage storage) throws ConfigException {
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
        return read(text, file.toString(), TargetConfig.baseDirectory(file), storage);
    }

    /**
     * Reads a config from {@code toml}.
     *
     * @param source        what messages and {@link TargetConfig#source()} call it
     * @param baseDirectory what relative LUN paths resolve against
     */
    public static TargetConfig read(String toml, String source, Path baseDirectory) throws ConfigException {
        return read(toml, source, baseDirectory, Storage.NOT_CHECKED);
    }

    /**
     * Reads a config from {@code toml}, looking at its LUNs' files or not.
     *
     * @param source        what messages and {@link TargetConfig#source()} call it
     * @param baseDirectory what relative LUN paths resolve against
     * @param storage       whether the LUNs' folders and files are checked
     */
    public static TargetConfig read(String toml, String source, Path baseDirectory, Storage storage)
            throws ConfigException {
        TomlParseResult root = Toml.parse(toml, TomlVersion.V1_0_0);
        if (root.hasErrors()) {
            List<ConfigException.Problem> syntax = new ArrayList<>();
            root.errors().forEach(e -> syntax.add(syntaxProblem(source, root, e)));
            syntax.sort(Comparator.comparingInt(ConfigException.Problem::line));
            throw new ConfigException(syntax);
        }
        TargetConfigReader reader = new TargetConfigReader(source, toml, baseDirectory.toAbsolutePath(), storage);
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
        try {
            return embeddedDefault(Storage.NOT_CHECKED);
        } catch (ConfigException e) {
            throw new IllegalStateException("the embedded default config is refused:\n" + e.getMessage(), e);
        }
    }

    /**
     * The embedded default, its LUN's file looked at or not: checked, it is refused (a {@link ConfigException}) when
     * the working directory has no {@value #EMBEDDED_FOLDER} folder to keep the LUN in.
     */
    public static TargetConfig embeddedDefault(Storage storage) throws ConfigException {
        try (InputStream in = TargetConfigReader.class.getResourceAsStream(EMBEDDED_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(EMBEDDED_RESOURCE + " is missing from the class path");
            }
            return read(new String(in.readAllBytes(), StandardCharsets.UTF_8), EMBEDDED_SOURCE,
                    TargetConfig.baseDirectory(null), storage);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every key the reader knows, as {@code table.key} ({@code lun.block_size} for the keys of each [[lun]]). */
    public static List<String> knownKeys() {
        return ConfigKeys.ALL.stream().map(Key::fullName).toList();
    }

    // ---- the document

    private TargetConfig config(Table root) {
        checkKeys(root, TABLES, "tables");
        Map<String, Table> tables = new HashMap<>();
        TABLES.stream().filter(name -> !ARRAYS.contains(name)).forEach(name -> tables.put(name, table(root, name)));
        Scope v = new Scope(tables, null);
        ALL.stream().filter(key -> !ARRAYS.contains(key.table())).forEach(v::get);     // each problem, once
        ListenConfig listen = valid(v.get(PROVIDER), v.get(ADDRESS), v.get(PORT))
                ? new ListenConfig(v.get(PROVIDER), v.get(ADDRESS), v.get(PORT)) : null;
        IdentityConfig identity = valid(v.get(ID_EXT), v.get(IOC_GUID))
                ? new IdentityConfig(v.get(ID_EXT), v.get(IOC_GUID)) : null;
        ChannelConfig channel = valid(v.get(CREDITS), v.get(MAX_IU_LENGTH), v.get(MAX_IO_SIZE), v.get(IMMEDIATE_DATA),
                v.get(IMMEDIATE_DATA_SIZE), v.get(MAX_CHANNELS), v.get(MAX_CHANNELS_PER_INITIATOR))
                ? new ChannelConfig(v.get(CREDITS), v.get(MAX_IU_LENGTH), v.get(MAX_IO_SIZE).intValue(),
                v.get(IMMEDIATE_DATA), v.get(IMMEDIATE_DATA_SIZE).intValue(), v.get(MAX_CHANNELS),
                v.get(MAX_CHANNELS_PER_INITIATOR)) : null;
        PipelineConfig pipeline = valid(v.get(CQ_SIZE), v.get(RING_SIZE), v.get(BACKEND_THREADS),
                v.get(BLOCKING_THREADS), v.get(RECEIVE_QUEUE), v.get(COMPLETIONS))
                ? new PipelineConfig(v.get(CQ_SIZE), v.get(RING_SIZE), v.get(BACKEND_THREADS), v.get(RECEIVE_QUEUE),
                v.get(COMPLETIONS), v.get(BLOCKING_THREADS)) : null;
        TimeoutConfig timeouts = valid(v.get(IDLE), v.get(COMMAND)) ? new TimeoutConfig(v.get(IDLE), v.get(COMMAND))
                : null;
        List<LunConfig> luns = luns(root, v);
        List<NvmeConfig.Subsystem> subsystems = subsystems(root, v, luns);
        HostAndPort endpoint = v.get(METRICS_ADDRESS);
        MetricsConfig metrics = valid(endpoint, v.get(SUMMARY_INTERVAL))
                ? new MetricsConfig(endpoint.host(), endpoint.port(), v.get(SUMMARY_INTERVAL)) : null;
        AdminConfig admin = adminConfig(tables.get(ADMIN), v.get(ADMIN_SOCKET));
        PortsConfig ports = ports(root, tables, v, !subsystems.isEmpty());
        if (!problems.isEmpty()) {
            return null;
        }
        NvmeConfig nvme = subsystems.isEmpty() ? NvmeConfig.NONE : new NvmeConfig(v.get(NVME_PORT), subsystems);
        return new TargetConfig(source, listen, identity, channel, pipeline, timeouts, luns, metrics, admin, nvme, ports);
    }

    /** [admin] socket: none when empty, else the path resolved against the base directory. */
    private AdminConfig adminConfig(Table admin, String socket) {
        if (socket == null || socket.isEmpty()) {
            return AdminConfig.NONE;
        }
        try {
            return new AdminConfig(baseDirectory.resolve(socket).normalize());
        } catch (InvalidPathException e) {
            notAllowed(admin, ADMIN_SOCKET.name(), "a path this system accepts: " + e.getReason());
            return AdminConfig.NONE;
        }
    }

    private List<LunConfig> luns(Table root, Scope document) {
        List<LunConfig> luns = new ArrayList<>();
        Map<Integer, Table> numbers = new HashMap<>();
        Map<Path, Table> paths = new HashMap<>();
        for (Table t : entries(root, LUN, "LUN")) {
            LunConfig lun = lun(t, new Scope(Map.of(LUN, t), document));
            if (lun == null) {
                continue;
            }
            Table other = numbers.putIfAbsent(lun.number(), t);
            if (other != null) {
                notAllowed(t, NUMBER.name(), "each number once: " + other.name() + " at line " + other.line()
                        + " is LUN " + lun.number());
            }
            other = lun.path() == null ? null : paths.putIfAbsent(lun.path(), t);
            if (other != null) {
                notAllowed(t, PATH.name(), "each path once: " + other.name() + " at line " + other.line()
                        + " uses " + lun.path());
            }
            luns.add(lun);
        }
        luns.sort(Comparator.comparingInt(LunConfig::number));
        return luns;
    }

    /**
     * The NVMe subsystems: [nvme]'s own when it names one (every LUN open to every initiator), then each
     * [[subsystem]]. NQNs once each; a namespace names a LUN of the file that is open to every initiator.
     */
    private List<NvmeConfig.Subsystem> subsystems(Table root, Scope document, List<LunConfig> luns) {
        List<NvmeConfig.Subsystem> subsystems = new ArrayList<>();
        Map<String, String> nqns = new HashMap<>();
        String single = document.get(NVME_SUBSYSTEM);
        if (single != null && !single.isEmpty()) {
            subsystems.add(new NvmeConfig.Subsystem(single, document.get(NVME_SERIAL), NvmeConfig.Subsystem.DEFAULT_MODEL,
                    List.of(), Set.copyOf(document.get(NVME_ALLOWED_HOSTS))));
            nqns.put(single, "nvme.subsystem");
        }
        Map<Integer, LunConfig> byNumber = new HashMap<>();
        luns.forEach(lun -> byNumber.put(lun.number(), lun));
        for (Table t : entries(root, SUBSYSTEM, "NVMe subsystem")) {
            Scope v = new Scope(Map.of(SUBSYSTEM, t), document);
            ConfigKeys.of(SUBSYSTEM).forEach(v::get);     // each problem, once
            String nqn = v.get(SUBSYSTEM_NQN);
            List<Integer> namespaces = v.get(SUBSYSTEM_NAMESPACES);
            if (!valid(nqn, v.get(SUBSYSTEM_SERIAL), v.get(SUBSYSTEM_MODEL), namespaces, v.get(SUBSYSTEM_ALLOWED_HOSTS))) {
                continue;
            }
            String other = nqns.putIfAbsent(nqn, t.name() + " at line " + t.line());
            if (other != null) {
                notAllowed(t, SUBSYSTEM_NQN.name(), "each NQN once: " + other + " has " + nqn);
                continue;
            }
            if (!namespacesAllowed(t, namespaces, byNumber)) {
                continue;
            }
            subsystems.add(new NvmeConfig.Subsystem(nqn, v.get(SUBSYSTEM_SERIAL), v.get(SUBSYSTEM_MODEL), namespaces,
                    Set.copyOf(v.get(SUBSYSTEM_ALLOWED_HOSTS))));
        }
        return subsystems;
    }

    /**
     * The SRP ports beyond [listen]'s and their target port groups: [listen] group, each [[port]] in the file's order
     * (ids once each; each address and port once, [listen]'s and, when the NVMe front end serves, NVMe's at
     * listen.address included), each [[port_group]] (ids once each). A group a port names and none declares is
     * active/optimized. {@link PortsConfig#NONE} when the file gives none of them.
     */
    private PortsConfig ports(Table root, Map<String, Table> tables, Scope document, boolean nvmeServes) {
        Map<String, String> endpoints = new HashMap<>();
        String address = document.get(ADDRESS);
        if (valid(address, document.get(PORT))) {
            endpoints.put(endpoint(address, document.get(PORT)), where(tables.get(LISTEN)) + " has");
            if (nvmeServes && document.get(NVME_PORT) != null) {
                endpoints.putIfAbsent(endpoint(address, document.get(NVME_PORT)),
                        where(tables.get(NVME)) + " serves NVMe at");
            }
        }
        List<PortsConfig.Port> ports = new ArrayList<>();
        Map<Integer, Table> ids = new HashMap<>();
        for (Table t : entries(root, TARGET_PORT, "target port")) {
            Scope v = new Scope(Map.of(TARGET_PORT, t), document);
            ConfigKeys.of(TARGET_PORT).forEach(v::get);     // each problem, once
            if (!valid(v.get(TARGET_PORT_ID), v.get(TARGET_PORT_ADDRESS), v.get(TARGET_PORT_PORT),
                    v.get(TARGET_PORT_GROUP))) {
                continue;
            }
            PortsConfig.Port port = new PortsConfig.Port(v.get(TARGET_PORT_ID), v.get(TARGET_PORT_ADDRESS),
                    v.get(TARGET_PORT_PORT), v.get(TARGET_PORT_GROUP));
            Table other = ids.putIfAbsent(port.id(), t);
            if (other != null) {
                notAllowed(t, TARGET_PORT_ID.name(), "each id once: " + where(other) + " is port " + port.id());
                continue;
            }
            String endpoint = endpoint(port.address(), port.port());
            String taken = endpoints.putIfAbsent(endpoint, where(t) + " has");
            if (taken != null) {
                notAllowed(t.key(TARGET_PORT_PORT.name()), t.lineOf(TARGET_PORT_PORT.name()), port.port(),
                        "each address and port once: " + taken + " " + endpoint);
                continue;
            }
            ports.add(port);
        }
        List<PortsConfig.Group> groups = new ArrayList<>();
        Map<Integer, Table> groupIds = new HashMap<>();
        for (Table t : entries(root, PORT_GROUP, "target port group")) {
            Scope v = new Scope(Map.of(PORT_GROUP, t), document);
            ConfigKeys.of(PORT_GROUP).forEach(v::get);     // each problem, once
            if (!valid(v.get(PORT_GROUP_ID), v.get(PORT_GROUP_STATE))) {
                continue;
            }
            Table other = groupIds.putIfAbsent(v.get(PORT_GROUP_ID), t);
            if (other != null) {
                notAllowed(t, PORT_GROUP_ID.name(), "each id once: " + where(other) + " is group "
                        + v.get(PORT_GROUP_ID));
                continue;
            }
            groups.add(new PortsConfig.Group(v.get(PORT_GROUP_ID), v.get(PORT_GROUP_STATE)));
        }
        Integer listenGroup = document.get(LISTEN_GROUP);
        return new PortsConfig(listenGroup == null ? PortsConfig.DEFAULT_GROUP : listenGroup, ports, groups);
    }

    /** An address and port as messages write them: {@code 127.0.0.1:5555}, {@code [::1]:5555}. */
    private static String endpoint(String address, int port) {
        return (address.contains(":") ? "[" + address + "]" : address) + ":" + port;
    }

    /** A table as messages name it: {@code [listen] at line 1}, {@code port[0] at line 5}; no line when absent. */
    private static String where(Table t) {
        String name = t.name().endsWith("]") ? t.name() : "[" + t.name() + "]";
        return t.line() > 0 ? name + " at line " + t.line() : name;
    }

    /**
     * The entries of the array of tables {@code name} ([[lun]], [[subsystem]], [[port]], [[port_group]]), each checked
     * for unknown keys; a value that is not an array of tables, or an entry that is not a table, is refused
     * ({@code what} names an entry).
     */
    private List<Table> entries(Table root, String name, String what) {
        Object value = root.get(name);
        if (value == null) {
            return List.of();
        }
        if (!(value instanceof TomlArray array)) {
            notAllowed(root, name, "an array of tables: each " + what + " under a [[" + name + "]] header");
            return List.of();
        }
        List<Table> entries = new ArrayList<>();
        for (int i = 0; i < array.size(); i++) {
            String entry = name + "[" + i + "]";
            int line = elementLine(array, i);
            if (!(array.get(i) instanceof TomlTable table)) {
                notAllowed(entry, line, array.get(i), "a table: a [[" + name + "]] header and its keys");
                continue;
            }
            Table t = new Table(entry, table, line);
            checkKeys(t, namesOf(name), "keys in [[" + name + "]]");
            entries.add(t);
        }
        return entries;
    }

    /** Whether each namespace names a LUN of this file, once, that NVMe hosts may see (no allowed_initiators). */
    private boolean namespacesAllowed(Table t, List<Integer> namespaces, Map<Integer, LunConfig> luns) {
        Set<Integer> seen = new java.util.HashSet<>();
        for (int number : namespaces) {
            LunConfig lun = luns.get(number);
            String why = !seen.add(number) ? "each LUN once: " + number + " is there twice"
                    : lun == null ? "LUN numbers of this file's [[lun]]s: no [[lun]] has number " + number
                    : !lun.allowedInitiators().isEmpty() ? "LUNs without allowed_initiators: LUN " + number
                    + " has some, and NVMe hosts are not SRP initiators (give the subsystem allowed_hosts instead)"
                    : null;
            if (why != null) {
                notAllowed(t, SUBSYSTEM_NAMESPACES.name(), why);
                return false;
            }
        }
        return true;
    }

    private LunConfig lun(Table t, Scope v) {
        ConfigKeys.of(LUN).forEach(v::get);     // each problem, once
        Path path = resolve(t, v.get(PATH));
        BackendKind backend = v.get(BACKEND);
        boolean pathMissing = path == null && backend != null && PATH.onlyFor().backends().contains(backend);
        if (pathMissing || !valid(v.get(NUMBER), backend, v.get(BLOCK_SIZE), v.get(SIZE), v.get(READ_ONLY),
                v.get(WRITE_CACHE), v.get(DIRECT_IO), v.get(BLOCK_CACHE), v.get(ALLOWED_INITIATORS), v.get(CREATE),
                v.get(GROW))) {
            return null;
        }
        LunConfig lun = new LunConfig(v.get(NUMBER), backend, path, v.get(SIZE), v.get(BLOCK_SIZE), v.get(READ_ONLY),
                v.get(WRITE_CACHE), v.get(DIRECT_IO), v.get(BLOCK_CACHE), v.get(ALLOWED_INITIATORS), v.get(CREATE),
                v.get(GROW));
        return storage == Storage.CHECKED && lun.path() != null && !storageAllowed(t, lun) ? null : lun;
    }

    /**
     * Whether the LUN's folder exists, and its file or database too (or {@code create = true} asks for it); else
     * refuses its path. The backend checks again as it opens (the file system may change in between).
     */
    private boolean storageAllowed(Table t, LunConfig lun) {
        Path folder = lun.path().getParent();
        boolean file = lun.backend() == BackendKind.FILE;
        String what = file ? "file" : "database directory";
        if (folder == null || !Files.isDirectory(folder)) {
            notAllowed(t, PATH.name(), "a path in an existing folder: " + folder + " is not one; the target makes no"
                    + " folder (a typo, or a disk not mounted yet?)");
            return false;
        }
        if (!Files.exists(lun.path())) {
            if (lun.create() && !lun.readOnly()) {
                return true;
            }
            notAllowed(t, PATH.name(), "an existing " + what + ": " + lun.path() + " does not exist"
                    + (lun.readOnly() ? " (a read-only LUN is never created)"
                    : " (create = true makes it, a new empty disk)"));
            return false;
        }
        if (file == Files.isDirectory(lun.path())) {
            notAllowed(t, PATH.name(), "a " + (file ? "file, not a directory" : "directory, not a file") + ": "
                    + lun.path() + " is " + (file ? "a directory" : "a file"));
            return false;
        }
        return true;
    }

    /** A LUN's path as written, resolved against the base directory; null when it has none or a wrong one. */
    private Path resolve(Table t, String path) {
        if (path == null) {
            return null;
        }
        try {
            return baseDirectory.resolve(path).normalize();
        } catch (InvalidPathException e) {
            notAllowed(t, PATH.name(), "a path this system accepts: " + e.getReason());
            return null;
        }
    }

    // ---- values

    /**
     * The values of the keys of some tables (the document's single tables, or one [[lun]] entry with the document's
     * behind it), each read and checked once, when first asked for: a key whose range or default depends on another
     * asks for that one.
     */
    private final class Scope implements Values {
        private final Map<String, Table> tables;
        private final Scope outer;
        private final Map<Key<?>, Object> values = new HashMap<>();

        Scope(Map<String, Table> tables, Scope outer) {
            this.tables = tables;
            this.outer = outer;
        }

        @Override
        @SuppressWarnings("unchecked")
        public <T> T get(Key<T> key) {
            if (!tables.containsKey(key.table())) {
                return outer.get(key);
            }
            if (!values.containsKey(key)) {
                values.put(key, read(tables.get(key.table()), key, this));
            }
            return (T) values.get(key);
        }
    }

    /**
     * Reads {@code key} of {@code t}: refused (and its value for other backends) when the LUN's backend does not take
     * it; its default, or missing, when absent; else what its type, narrowed by the values of other keys, makes of
     * it. Null when it is wrong, or not checked as a key it depends on is wrong.
     */
    private <T> T read(Table t, Key<T> key, Values v) {
        String name = key.name();
        if (key.onlyFor() != null) {
            BackendKind backend = v.get(BACKEND);
            if (backend == null) {
                return null;
            }
            if (!key.onlyFor().backends().contains(backend)) {
                if (t.has(name)) {
                    notAllowed(t, name, key.onlyFor().why(backend));
                }
                return key.onlyFor().otherwise();
            }
        }
        if (!t.has(name)) {
            return switch (key.absent()) {
                case Absent.Value<T> given -> given.value();
                case Absent.Derived<T> derived -> derived.value().apply(v);
                case Absent.Required<T> required -> {
                    problem(t.key(name), t.line(), "key '" + t.key(name) + "' is missing ("
                            + required.hint().apply(v) + ")");
                    yield null;
                }
            };
        }
        Type<T> type = key.typeGiven(v);
        if (type == null) {
            return null;
        }
        Object found = t.get(name);
        T value = type.read(found);
        if (value == null) {
            if (type instanceof ListOf<?> list && found instanceof TomlArray array) {
                elementsNotAllowed(t, name, list.element(), array);
            } else {
                notAllowed(t, name, type.allowed(found));
            }
        }
        return value;
    }

    /** Refuses each element of {@code array} that {@code element} does not take, named by its index. */
    private void elementsNotAllowed(Table t, String name, Type<?> element, TomlArray array) {
        for (int i = 0; i < array.size(); i++) {
            if (element.read(array.get(i)) == null) {
                notAllowed(t.key(name) + "[" + i + "]", elementLine(array, i), array.get(i),
                        element.allowed(array.get(i)));
            }
        }
    }

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
        checkKeys(t, namesOf(name), "keys in [" + name + "]");
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
}

package org.rdmablock.target.config;

import org.rdmablock.target.config.LunConfig.BackendKind;
import org.rdmablock.target.config.LunConfig.WriteCachePolicy;
import org.rdmablock.target.config.PipelineConfig.CompletionMode;
import org.rdmablock.target.config.PipelineConfig.ReceiveQueueMode;
import org.rdmablock.protocol.scsi.TargetPortGroups.AccessState;
import org.tomlj.TomlArray;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Every key of the config file, described once: its table and name, its type and range, its value when left out,
 * and what it is for. {@link TargetConfigReader} reads and checks each value with it and takes the words of its
 * messages from it ({@code key 'listen.port': 0 is not allowed (an integer from 1 to 65535)}); ShippedConfigTest
 * holds deploy/rdmablock.toml to it (every key there, documented, showing its default).
 *
 * <p>A range or default that depends on other keys (cq_size on [channel]'s, a LUN's size on its block_size) is a
 * function of the values read so far ({@link Values}); such a key is not checked while a key it depends on is
 * wrong (that one is reported).
 */
final class ConfigKeys {
    static final String LISTEN = "listen";
    /** An array of tables: a [[port]] per SRP target port beyond [listen]'s. */
    static final String TARGET_PORT = "port";
    /** An array of tables: a [[port_group]] per target port group whose state the file gives (ALUA). */
    static final String PORT_GROUP = "port_group";
    static final String TARGET = "target";
    static final String CHANNEL = "channel";
    static final String PIPELINE = "pipeline";
    static final String TIMEOUTS = "timeouts";
    static final String METRICS = "metrics";
    static final String ADMIN = "admin";
    static final String NVME = "nvme";
    /** An array of tables: a [[subsystem]] per NVMe subsystem (beside [nvme]'s own, when it names one). */
    static final String SUBSYSTEM = "subsystem";
    /** An array of tables: a [[lun]] per logical unit. */
    static final String LUN = "lun";
    /** The tables a config may hold, in the order of the sample. */
    static final List<String> TABLES = List.of(LISTEN, TARGET_PORT, PORT_GROUP, TARGET, CHANNEL, PIPELINE, TIMEOUTS,
            METRICS, ADMIN, NVME, SUBSYSTEM, LUN);
    /** The arrays of tables among {@link #TABLES}: each entry read on its own, with the document's keys behind it. */
    static final List<String> ARRAYS = List.of(TARGET_PORT, PORT_GROUP, SUBSYSTEM, LUN);

    // Upper bounds that are not protocol limits: beyond them a value is a typo, or buffers would not fit in memory
    // (receive buffers are credits × max_iu_length bytes per channel).
    static final int MAX_IU_LENGTH_LIMIT = 1 << 20;
    static final int MAX_IO_SIZE_LIMIT = 1 << 30;
    static final int MAX_CHANNELS_LIMIT = 4096;
    static final int RING_SIZE_LIMIT = 1 << 24;
    static final int BACKEND_THREADS_LIMIT = 1024;
    /** max_io_size is whole 4 KiB, so that it is whole blocks for either block size. */
    static final int IO_SIZE_UNIT = 4096;

    private static final Pattern HEX_ID = Pattern.compile("(?:0[xX])?([0-9a-fA-F]{16})");
    /** A metrics endpoint: host:port (a name or IPv4 address) or [IPv6]:port. */
    private static final Pattern ENDPOINT = Pattern.compile("(?:\\[([0-9A-Fa-f:.]+)]|([^\\s:\\[\\]]+)):(\\d{1,5})");
    private static final String IMMEDIATE_DATA_WHY = "immediate data starts at byte "
            + ChannelConfig.IMMEDIATE_DATA_OFFSET + " of an SRP_CMD";

    // ---- the keys: table, name, type and range, value when absent, what it is for

    static final Key<String> PROVIDER = key(LISTEN, "provider", choice(names(ListenConfig.PROVIDERS,
                    ListenConfig.PROVIDERS)), byDefault(ListenConfig.DEFAULT_PROVIDER),
            "the verbs provider: soft (over TCP, runs anywhere), native (an RDMA device), auto (native if present)");
    static final Key<String> ADDRESS = key(LISTEN, "address", host(), byDefault(ListenConfig.DEFAULT_ADDRESS),
            "the IP address or host name to bind; \"0.0.0.0\" for every interface");
    static final Key<Integer> PORT = key(LISTEN, "port", integer(1, 65535), byDefault(ListenConfig.DEFAULT_PORT),
            "the rdma_cm port (the TCP port for soft)");
    static final Key<Integer> LISTEN_GROUP = key(LISTEN, "group", integer(1, 65535),
            byDefault(PortsConfig.DEFAULT_GROUP), "the target port group of port 1, [listen]'s (ALUA)");

    static final Key<Integer> TARGET_PORT_ID = key(TARGET_PORT, "id", integer(2, 65535),
            required(v -> "2 to 65535; [listen] is port 1"),
            "the relative target port identifier: 2, 3, ...; [listen] is port 1; each once");
    static final Key<String> TARGET_PORT_ADDRESS = key(TARGET_PORT, "address", host(),
            derived("listen.address", v -> v.get(ADDRESS)), "the IP address or host name to bind");
    static final Key<Integer> TARGET_PORT_PORT = key(TARGET_PORT, "port", integer(1, 65535),
            derived("listen.port", v -> v.get(PORT)), "the rdma_cm port (the TCP port for soft)");
    static final Key<Integer> TARGET_PORT_GROUP = key(TARGET_PORT, "group", integer(1, 65535),
            byDefault(PortsConfig.DEFAULT_GROUP), "the target port group it is in (ALUA)");

    static final Key<Integer> PORT_GROUP_ID = key(PORT_GROUP, "id", integer(1, 65535), required(v -> "1 to 65535"),
            "the target port group identifier, each once");
    static final Key<AccessState> PORT_GROUP_STATE = key(PORT_GROUP, "state",
            choice(names(Arrays.stream(AccessState.values()).map(AccessState::configName).toList(),
                    List.of(AccessState.values()))), byDefault(PortsConfig.DEFAULT_STATE),
            "its asymmetric access state, what REPORT TARGET PORT GROUPS returns: active/optimized,"
                    + " active/non-optimized, standby or unavailable");

    static final Key<Long> ID_EXT = key(TARGET, "id_ext", hexId(),
            derived("0x0272, listen.port (16 bits), then the CRC-32 of listen.address as written",
                    v -> v.get(ADDRESS) == null || v.get(PORT) == null ? null
                            : IdentityConfig.derivedIdExt(v.get(ADDRESS), v.get(PORT))),
            "the 64-bit id initiators name the target by (add_target id_ext=...)");
    static final Key<Long> IOC_GUID = key(TARGET, "ioc_guid", hexId(), derived("id_ext", v -> v.get(ID_EXT)),
            "the 64-bit I/O controller GUID (add_target ioc_guid=...)");

    static final Key<Integer> CREDITS = key(CHANNEL, "credits", integer(1, ChannelConfig.MAX_CREDITS),
            byDefault(ChannelConfig.DEFAULT_CREDITS), "receive credits per channel (SRP req_lim)");
    static final Key<Integer> MAX_IU_LENGTH = key(CHANNEL, "max_iu_length",
            integer(ChannelConfig.MIN_IU_LENGTH, MAX_IU_LENGTH_LIMIT), byDefault(ChannelConfig.DEFAULT_MAX_IU_LENGTH),
            "the largest request IU accepted, in bytes")
            .rangeFrom((type, v) -> !Boolean.TRUE.equals(v.get(ConfigKeys.IMMEDIATE_DATA)) ? type
                    : type.where(n -> n > ChannelConfig.IMMEDIATE_DATA_OFFSET, "more than "
                    + ChannelConfig.IMMEDIATE_DATA_OFFSET + " while immediate_data is true: " + IMMEDIATE_DATA_WHY));
    static final Key<Long> MAX_IO_SIZE = key(CHANNEL, "max_io_size",
            size(IO_SIZE_UNIT, MAX_IO_SIZE_LIMIT, IO_SIZE_UNIT, "a multiple of 4KiB from 4KiB to 1GiB"),
            byDefault((long) ChannelConfig.DEFAULT_MAX_IO_SIZE), "the largest transfer of one command");
    static final Key<Boolean> IMMEDIATE_DATA = key(CHANNEL, "immediate_data", bool(),
            byDefault(ChannelConfig.DEFAULT_IMMEDIATE_DATA), "accept write data inside the SRP_CMD");
    static final Key<Long> IMMEDIATE_DATA_SIZE = key(CHANNEL, "immediate_data_size",
            size(1, MAX_IU_LENGTH_LIMIT, 1, "1 to " + MAX_IU_LENGTH_LIMIT),
            derived(ChannelConfig.DEFAULT_IMMEDIATE_DATA_SIZE + ", or max_iu_length - "
                            + ChannelConfig.IMMEDIATE_DATA_OFFSET + " when that is less",
                    v -> v.get(MAX_IU_LENGTH) == null ? null : Math.clamp(immediateRoom(v), 0,
                            (long) ChannelConfig.DEFAULT_IMMEDIATE_DATA_SIZE)),
            "the most immediate data an SRP_CMD may carry, in bytes")
            .rangeFrom((type, v) -> v.get(MAX_IU_LENGTH) == null || v.get(IMMEDIATE_DATA) == null ? null
                    : !v.get(IMMEDIATE_DATA) ? type
                    : size(1, immediateRoom(v), 1, "1 to max_iu_length - " + ChannelConfig.IMMEDIATE_DATA_OFFSET
                    + " = " + immediateRoom(v) + ": " + IMMEDIATE_DATA_WHY));
    static final Key<Integer> MAX_CHANNELS = key(CHANNEL, "max_channels", integer(1, MAX_CHANNELS_LIMIT),
            byDefault(ChannelConfig.DEFAULT_MAX_CHANNELS), "channels served at once; a login beyond them is rejected");
    static final Key<Integer> MAX_CHANNELS_PER_INITIATOR = key(CHANNEL, "max_channels_per_initiator",
            integer(1, MAX_CHANNELS_LIMIT),
            derived(ChannelConfig.DEFAULT_MAX_CHANNELS_PER_INITIATOR + ", or max_channels when that is less",
                    v -> v.get(MAX_CHANNELS) == null ? null : ChannelConfig.defaultMaxChannelsPerInitiator(v.get(MAX_CHANNELS))),
            "channels one initiator port may hold at once; a login beyond them is rejected")
            .rangeFrom((type, v) -> v.get(MAX_CHANNELS) == null ? null
                    : integer(1, v.get(MAX_CHANNELS), "an integer from 1 to max_channels = " + v.get(MAX_CHANNELS)));

    static final Key<Integer> CQ_SIZE = key(PIPELINE, "cq_size", integer(1, Integer.MAX_VALUE),
            derived(cqSizeRule(), v -> v.get(MAX_CHANNELS) == null || v.get(CREDITS) == null ? null
                    : minimumCqSize(v)),
            "completion queue entries, at least " + cqSizeRule())
            .rangeFrom((type, v) -> v.get(MAX_CHANNELS) == null || v.get(CREDITS) == null ? type
                    : integer(minimumCqSize(v), Integer.MAX_VALUE, "at least " + cqSizeRule() + " = "
                    + minimumCqSize(v)));
    static final Key<Integer> RING_SIZE = key(PIPELINE, "ring_size", powerOfTwo(RING_SIZE_LIMIT),
            byDefault(PipelineConfig.DEFAULT_RING_SIZE), "Disruptor ring slots");
    static final Key<Integer> BACKEND_THREADS = key(PIPELINE, "backend_threads", threads(),
            byDefault(PipelineConfig.DEFAULT_BACKEND_THREADS),
            "threads that run backend I/O; 0: the completion poller's thread runs every command, no ring");
    static final Key<Integer> BLOCKING_THREADS = key(PIPELINE, "blocking_threads", threads(),
            byDefault(PipelineConfig.DEFAULT_BLOCKING_THREADS),
            "with backend_threads 0: threads that make the backend calls which would wait on a device")
            .rangeFrom((type, v) -> v.get(BACKEND_THREADS) == null || v.get(BACKEND_THREADS) <= 0 ? type
                    : type.where(n -> n <= 0, "blocking-call threads serve a pipeline the poller runs: only with"
                    + " backend_threads = 0 or \"auto\", not " + v.get(BACKEND_THREADS)));
    static final Key<ReceiveQueueMode> RECEIVE_QUEUE = key(PIPELINE, "receive_queue",
            choice(names(List.of("srq", "per-channel"), List.of(ReceiveQueueMode.SHARED, ReceiveQueueMode.PER_CHANNEL))),
            byDefault(PipelineConfig.DEFAULT_RECEIVE_QUEUE), "a receive queue per channel, or one shared (srq)");
    static final Key<CompletionMode> COMPLETIONS = key(PIPELINE, "completions",
            choice(names(List.of("poll", "event"), List.of(CompletionMode.POLL, CompletionMode.EVENT))),
            byDefault(PipelineConfig.DEFAULT_COMPLETIONS),
            "poll (busy, lowest latency) or event (the poller sleeps on the completion channel when idle)");

    static final Key<Duration> IDLE = key(TIMEOUTS, "idle", duration(), byDefault(TimeoutConfig.DEFAULT_IDLE),
            "log out a channel with no traffic for this long");
    static final Key<Duration> COMMAND = key(TIMEOUTS, "command", duration(), byDefault(TimeoutConfig.DEFAULT_COMMAND),
            "answer a command its backend has not finished by then with COMMAND TIMEOUT DURING PROCESSING");

    static final Key<HostAndPort> METRICS_ADDRESS = key(METRICS, "address", endpoint(), byDefault(HostAndPort.NONE),
            "where to serve Prometheus metrics (GET /metrics)");
    static final Key<Duration> SUMMARY_INTERVAL = key(METRICS, "summary_interval",
            scalar("\"0\" (never) or at least \"" + MetricsConfig.MIN_SUMMARY_INTERVAL.toSeconds() + "s\"; "
                    + Quantities.DURATION_FORMS, n -> {
                Duration d = durationOf(n);
                return d != null && (d.isZero() || d.compareTo(MetricsConfig.MIN_SUMMARY_INTERVAL) >= 0) ? d : null;
            }), byDefault(MetricsConfig.DEFAULT_SUMMARY_INTERVAL), "log a one-line summary this often");

    /** As written ("" for none): the reader resolves it against the config's directory. */
    static final Key<String> ADMIN_SOCKET = key(ADMIN, "socket",
            scalar("\"\" (no endpoint) or a path", n -> n instanceof String text ? text : null), byDefault(""),
            "the management socket's path (JSON-RPC 2.0 for rdmablock admin; mode 0600, the daemon's user and root only)");

    /** "" (no NVMe front end) or the subsystem's NQN. */
    static final Key<String> NVME_SUBSYSTEM = key(NVME, "subsystem",
            scalar("\"\" (no NVMe front end) or an NQN of at most " + NvmeConfig.NQN_MAX_LENGTH
                    + " bytes starting \"nqn.\", e.g. \"nqn.2026-12.org.example:disks\"", ConfigKeys::nqnOrEmpty),
            byDefault(""), "the NVMe subsystem's NQN (nvme connect -n); \"\": SRP only");
    static final Key<Integer> NVME_PORT = key(NVME, "port", integer(1, 65535), byDefault(NvmeConfig.DEFAULT_PORT),
            "the rdma_cm port NVMe hosts connect to, at listen.address");
    static final Key<String> NVME_SERIAL = key(NVME, "serial",
            scalar("at most " + NvmeConfig.SERIAL_MAX_LENGTH + " printable ASCII characters", ConfigKeys::serial),
            derived("target.id_ext's 16 hex digits", v -> v.get(ID_EXT) == null ? null : String.format("%016x", v.get(ID_EXT))),
            "Identify Controller's serial number");
    static final Key<List<String>> NVME_ALLOWED_HOSTS = key(NVME, "allowed_hosts",
            listOf(scalar("a host NQN (nvme show-hostnqn)", ConfigKeys::nqnOrEmpty), "an array of host NQNs"),
            byDefault(List.of()), "the host NQNs that may connect; empty: any");

    static final Key<String> SUBSYSTEM_NQN = key(SUBSYSTEM, "nqn",
            scalar("an NQN of at most " + NvmeConfig.NQN_MAX_LENGTH + " bytes starting \"nqn.\"", ConfigKeys::nqn),
            required(v -> "the subsystem's NQN, e.g. \"nqn.2026-12.org.example:disks\""),
            "the subsystem's NQN (nvme connect -n), each once");
    static final Key<String> SUBSYSTEM_SERIAL = key(SUBSYSTEM, "serial",
            scalar("at most " + NvmeConfig.SERIAL_MAX_LENGTH + " printable ASCII characters", ConfigKeys::serial),
            derived("target.id_ext's 16 hex digits and 4 of the NQN's CRC-32", v -> v.get(ID_EXT) == null
                    || v.get(SUBSYSTEM_NQN) == null ? null : NvmeConfig.Subsystem.derivedSerial(v.get(ID_EXT), v.get(SUBSYSTEM_NQN))),
            "Identify Controller's serial number");
    static final Key<String> SUBSYSTEM_MODEL = key(SUBSYSTEM, "model",
            scalar("at most " + NvmeConfig.MODEL_MAX_LENGTH + " printable ASCII characters", ConfigKeys::model),
            byDefault(NvmeConfig.Subsystem.DEFAULT_MODEL), "Identify Controller's model number");
    static final Key<List<Integer>> SUBSYSTEM_NAMESPACES = key(SUBSYSTEM, "namespaces",
            listOf(integer(0, LunConfig.MAX_NUMBER), "an array of LUN numbers"), byDefault(List.of()),
            "the LUNs it serves, each as namespace LUN + 1; empty: every LUN without allowed_initiators");
    static final Key<List<String>> SUBSYSTEM_ALLOWED_HOSTS = key(SUBSYSTEM, "allowed_hosts",
            listOf(scalar("a host NQN (nvme show-hostnqn)", ConfigKeys::nqn), "an array of host NQNs"),
            byDefault(List.of()), "the host NQNs that may connect; empty: any");

    static final Map<String, BackendKind> BACKENDS = names(List.of("file", "rocksdb", "memory", "null"),
            List.of(BackendKind.FILE, BackendKind.ROCKSDB, BackendKind.MEMORY, BackendKind.NULL));

    static final Key<Integer> NUMBER = key(LUN, "number", integer(0, LunConfig.MAX_NUMBER),
            required(v -> "0 to " + LunConfig.MAX_NUMBER), "the LUN's number, each once");
    static final Key<BackendKind> BACKEND = key(LUN, "backend", choice(BACKENDS), byDefault(LunConfig.DEFAULT_BACKEND),
            "file (sparse file), rocksdb, memory (lost at exit) or null (reads zeroes, drops writes)");
    /** As written: the reader resolves it against the config's directory. */
    static final Key<String> PATH = key(LUN, "path", path("a path"),
            required(v -> "a " + backendName(v.get(BACKEND)) + " LUN needs one"),
            "file: the image; rocksdb: its directory; relative to the config's directory")
            .onlyFor(EnumSet.of(BackendKind.FILE, BackendKind.ROCKSDB), null,
                    backend -> "none: a " + backendName(backend) + " LUN keeps no file")
            .rangeFrom((type, v) -> path(v.get(BACKEND) == BackendKind.FILE ? "a file path"
                    : "a directory path"));
    static final Key<Boolean> CREATE = key(LUN, "create", bool(), byDefault(LunConfig.DEFAULT_CREATE),
            "make the file (rocksdb: the database) when it is missing, as a new empty disk; never its folder")
            .onlyFor(EnumSet.of(BackendKind.FILE, BackendKind.ROCKSDB), false, null);
    static final Key<Boolean> GROW = key(LUN, "grow", bool(), byDefault(LunConfig.DEFAULT_GROW),
            "extend an existing file smaller than size to size (else refused, as it may be the wrong file)")
            .onlyFor(EnumSet.of(BackendKind.FILE), false, null);
    static final Key<Integer> BLOCK_SIZE = key(LUN, "block_size", oneOf(LunConfig.BLOCK_SIZES),
            byDefault(LunConfig.DEFAULT_BLOCK_SIZE), "bytes per logical block");
    static final Key<Long> SIZE = key(LUN, "size", size(1, Long.MAX_VALUE, 1, "a positive multiple of block_size"),
            required(v -> "the capacity, e.g. \"1GiB\""), "the capacity in bytes")
            .rangeFrom((type, v) -> {
                int unit = v.get(ConfigKeys.BLOCK_SIZE) == null ? 1 : v.get(ConfigKeys.BLOCK_SIZE);
                return size(unit, Long.MAX_VALUE, unit, "a positive multiple of block_size " + unit);
            });
    static final Key<Boolean> READ_ONLY = key(LUN, "read_only", bool(), byDefault(LunConfig.DEFAULT_READ_ONLY),
            "writes fail with DATA PROTECT");
    static final Key<WriteCachePolicy> WRITE_CACHE = key(LUN, "write_cache",
            choice(names(List.of("write-through", "write-back"),
                    List.of(WriteCachePolicy.WRITE_THROUGH, WriteCachePolicy.WRITE_BACK))),
            byDefault(LunConfig.DEFAULT_WRITE_CACHE),
            "write-through (durable before the response) or write-back (durable after FUA or SYNCHRONIZE CACHE)");
    static final Key<Boolean> DIRECT_IO = key(LUN, "direct_io", bool(), byDefault(LunConfig.DEFAULT_DIRECT_IO),
            "open the image with O_DIRECT")
            .onlyFor(EnumSet.of(BackendKind.FILE), LunConfig.DEFAULT_DIRECT_IO, null);
    static final Key<Long> BLOCK_CACHE = key(LUN, "block_cache", size(1, Long.MAX_VALUE, 1, "a positive size"),
            byDefault(LunConfig.DEFAULT_BLOCK_CACHE_BYTES), "the RocksDB block cache")
            .onlyFor(EnumSet.of(BackendKind.ROCKSDB), 0L, null);
    static final Key<List<InitiatorPortId>> ALLOWED_INITIATORS = key(LUN, "allowed_initiators",
            listOf(scalar("an initiator port id: a string of 32 hex digits, e.g. \"0x" + "0".repeat(31) + "1\"",
                    ConfigKeys::initiatorPortId), "an array of initiator port ids, 32 hex digits each"),
            byDefault(List.of()), "the initiator ports that may log in; empty: any");

    /** Every key, table by table in the order of the sample; messages list a table's keys in this order. */
    static final List<Key<?>> ALL = List.of(PROVIDER, ADDRESS, PORT, LISTEN_GROUP, TARGET_PORT_ID,
            TARGET_PORT_ADDRESS, TARGET_PORT_PORT, TARGET_PORT_GROUP, PORT_GROUP_ID, PORT_GROUP_STATE, ID_EXT, IOC_GUID,
            CREDITS, MAX_IU_LENGTH,
            MAX_IO_SIZE, IMMEDIATE_DATA, IMMEDIATE_DATA_SIZE, MAX_CHANNELS, MAX_CHANNELS_PER_INITIATOR, CQ_SIZE, RING_SIZE, BACKEND_THREADS,
            BLOCKING_THREADS, RECEIVE_QUEUE, COMPLETIONS, IDLE, COMMAND, METRICS_ADDRESS, SUMMARY_INTERVAL, ADMIN_SOCKET, NVME_SUBSYSTEM,
            NVME_PORT, NVME_SERIAL, NVME_ALLOWED_HOSTS, SUBSYSTEM_NQN, SUBSYSTEM_SERIAL, SUBSYSTEM_MODEL,
            SUBSYSTEM_NAMESPACES, SUBSYSTEM_ALLOWED_HOSTS, NUMBER,
            BACKEND, PATH, CREATE, GROW, SIZE, BLOCK_SIZE, READ_ONLY, WRITE_CACHE, DIRECT_IO, BLOCK_CACHE, ALLOWED_INITIATORS);

    private ConfigKeys() {
    }

    /** The keys of {@code table}, in the order of the sample. */
    static List<Key<?>> of(String table) {
        return ALL.stream().filter(k -> k.table().equals(table)).toList();
    }

    /** The names of the keys of {@code table}, in the order of the sample. */
    static List<String> namesOf(String table) {
        return of(table).stream().map(Key::name).toList();
    }

    /** The TOML name of {@code kind}: file, rocksdb, memory or null. */
    static String backendName(BackendKind kind) {
        return BACKENDS.entrySet().stream().filter(e -> e.getValue() == kind).findFirst().orElseThrow().getKey();
    }

    private static long immediateRoom(Values v) {
        return v.get(MAX_IU_LENGTH) - ChannelConfig.IMMEDIATE_DATA_OFFSET;
    }

    private static String cqSizeRule() {
        return "max_channels × (credits + " + PipelineConfig.SPARE_RECEIVES_PER_CHANNEL + ") × "
                + PipelineConfig.CQ_ENTRIES_PER_CREDIT;
    }

    private static int minimumCqSize(Values v) {
        return (int) PipelineConfig.minimumCqSize(v.get(MAX_CHANNELS), v.get(CREDITS));
    }

    // ---- what a key is

    /** The values of the keys read so far, for the ranges and defaults that depend on other keys. */
    interface Values {
        /** The value of {@code key} (its default when absent); null when it is wrong or depends on one that is. */
        <T> T get(Key<T> key);
    }

    /** Where a key's value comes from when the file leaves it out. */
    sealed interface Absent<T> {
        /** A fixed default, shown in the sample. */
        record Value<T>(T value) implements Absent<T> {
        }

        /** A default made from other keys ({@code doc} says how); null when one of them is wrong. */
        record Derived<T>(String doc, Function<Values, T> value) implements Absent<T> {
        }

        /** No default: the key must be given; {@code hint} says what it holds. */
        record Required<T>(Function<Values, String> hint) implements Absent<T> {
        }
    }

    /**
     * Keys only some backends take: {@code backends} take it; with another backend the key is refused
     * ({@code refused} says why, given the backend; null: "only for file LUNs, not rocksdb") and the LUN gets
     * {@code otherwise}.
     */
    record OnlyFor<T>(Set<BackendKind> backends, T otherwise, Function<BackendKind, String> refused) {
        String why(BackendKind backend) {
            return refused != null ? refused.apply(backend) : "only for " + String.join(" and ",
                    backends.stream().map(ConfigKeys::backendName).toList()) + " LUNs, not " + backendName(backend);
        }
    }

    /** How a range narrows with the values of other keys; null: not checked, as one of those is wrong. */
    interface RangeFrom<T> {
        Type<T> narrow(Type<T> type, Values values);
    }

    /**
     * One key: the table it belongs to ({@code lun}: each [[lun]]), its name, its type with its range, its value when
     * absent, what it is for, and, where they apply, how other keys narrow its range and which backends take it.
     */
    record Key<T>(String table, String name, Type<T> type, Absent<T> absent, String doc, RangeFrom<T> rangeFrom,
                  OnlyFor<T> onlyFor) {
        /** {@code table.name}; {@code lun.block_size} for the keys of each [[lun]]. */
        String fullName() {
            return table + "." + name;
        }

        /** The type and range of this key, given the values read so far; null when it cannot be checked now. */
        Type<T> typeGiven(Values values) {
            return rangeFrom == null ? type : rangeFrom.narrow(type, values);
        }

        Key<T> rangeFrom(RangeFrom<T> narrowing) {
            return new Key<>(table, name, type, absent, doc, narrowing, onlyFor);
        }

        Key<T> onlyFor(Set<BackendKind> backends, T otherwise, Function<BackendKind, String> refused) {
            return new Key<>(table, name, type, absent, doc, rangeFrom, new OnlyFor<>(Set.copyOf(backends), otherwise,
                    refused));
        }

        @Override
        public String toString() {
            return fullName();
        }
    }

    private static <T> Key<T> key(String table, String name, Type<T> type, Absent<T> absent, String doc) {
        return new Key<>(table, name, type, absent, doc, null, null);
    }

    private static <T> Absent<T> byDefault(T value) {
        return new Absent.Value<>(value);
    }

    private static <T> Absent<T> derived(String doc, Function<Values, T> value) {
        return new Absent.Derived<>(doc, value);
    }

    private static <T> Absent<T> required(Function<Values, String> hint) {
        return new Absent.Required<>(hint);
    }

    // ---- types

    /** What a key may hold: how a TOML value reads as one (null: it is not allowed), and what is allowed. */
    sealed interface Type<T> {
        /** {@code toml} (a String, Long, Double, Boolean, TomlArray, TomlTable or date) as a value; null: refused. */
        T read(Object toml);

        /** What is allowed, for the message that refuses {@code found}. */
        String allowed(Object found);

        /** This type, with values that fail {@code test} refused too, saying {@code allowed}. */
        default Type<T> where(Predicate<T> test, String allowed) {
            return new Narrowed<>(this, test, allowed);
        }
    }

    /** A single value, and one phrase for what is allowed. */
    record Scalar<T>(String allowed, Function<Object, T> reader) implements Type<T> {
        @Override
        public T read(Object toml) {
            return reader.apply(toml);
        }

        @Override
        public String allowed(Object found) {
            return allowed;
        }
    }

    /** {@code base}, and then {@code test}: a value the base refuses is refused in its words, one the test does in these. */
    record Narrowed<T>(Type<T> base, Predicate<T> test, String allowed) implements Type<T> {
        @Override
        public T read(Object toml) {
            T value = base.read(toml);
            return value != null && test.test(value) ? value : null;
        }

        @Override
        public String allowed(Object found) {
            return base.read(found) == null ? base.allowed(found) : allowed;
        }
    }

    /** An array, each element checked (and refused) on its own. */
    record ListOf<E>(Type<E> element, String allowed) implements Type<List<E>> {
        @Override
        public List<E> read(Object toml) {
            if (!(toml instanceof TomlArray array)) {
                return null;
            }
            List<E> values = new ArrayList<>();
            for (int i = 0; i < array.size(); i++) {
                E value = element.read(array.get(i));
                if (value == null) {
                    return null;
                }
                values.add(value);
            }
            return values;
        }

        @Override
        public String allowed(Object found) {
            return allowed;
        }
    }

    static <T> Type<T> scalar(String allowed, Function<Object, T> reader) {
        return new Scalar<>(allowed, reader);
    }

    static <E> Type<List<E>> listOf(Type<E> element, String allowed) {
        return new ListOf<>(element, allowed);
    }

    /** An NQN ("nqn." and at most 223 bytes of printable ASCII), or "" for none; null when it is neither. */
    private static String nqnOrEmpty(Object value) {
        if (!(value instanceof String text)) {
            return null;
        }
        boolean printable = text.chars().allMatch(c -> c > 0x20 && c < 0x7F);
        return text.isEmpty() || text.startsWith("nqn.") && text.length() <= NvmeConfig.NQN_MAX_LENGTH && printable
                ? text : null;
    }

    private static String nqn(Object value) {
        String nqn = nqnOrEmpty(value);
        return nqn == null || nqn.isEmpty() ? null : nqn;
    }

    private static String model(Object value) {
        return value instanceof String text && text.length() <= NvmeConfig.MODEL_MAX_LENGTH
                && text.chars().allMatch(c -> c >= 0x20 && c < 0x7F) ? text : null;
    }

    private static String serial(Object value) {
        return value instanceof String text && text.length() <= NvmeConfig.SERIAL_MAX_LENGTH
                && text.chars().allMatch(c -> c >= 0x20 && c < 0x7F) ? text : null;
    }

    static Type<Integer> integer(int min, int max) {
        return integer(min, max, "an integer from " + min + " to " + max);
    }

    static Type<Integer> integer(int min, int max, String allowed) {
        return scalar(allowed, n -> inRange(n, min, max) ? intValue(n) : null);
    }

    /** One of {@code values}: "512 or 4096". */
    static Type<Integer> oneOf(Collection<Integer> values) {
        return scalar(orList(values.stream().map(String::valueOf).toList()),
                n -> inRange(n, 0, Integer.MAX_VALUE) && values.contains(intValue(n)) ? intValue(n) : null);
    }

    static Type<Integer> powerOfTwo(int max) {
        return scalar("a power of two from 1 to " + max,
                n -> inRange(n, 1, max) && Long.bitCount((Long) n) == 1 ? intValue(n) : null);
    }

    /** A thread count or "auto" ({@link PipelineConfig#AUTO_BACKEND_THREADS}). */
    static Type<Integer> threads() {
        return scalar("an integer from 0 to " + BACKEND_THREADS_LIMIT + " or \"auto\"",
                n -> "auto".equals(n) ? Integer.valueOf(PipelineConfig.AUTO_BACKEND_THREADS)
                        : inRange(n, 0, BACKEND_THREADS_LIMIT) ? Integer.valueOf(intValue(n)) : null);
    }

    /** A size in bytes: an integer, or a string {@link Quantities#parseSize} takes. */
    static Type<Long> size(long min, long max, long multiple, String allowed) {
        return scalar(allowed + "; " + Quantities.SIZE_FORMS, n -> {
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

    static Type<Boolean> bool() {
        return scalar("true or false", n -> n instanceof Boolean b ? b : null);
    }

    /** One of the names of {@code names}: "srq or per-channel". */
    static <E> Type<E> choice(Map<String, E> names) {
        return scalar(orList(names.keySet()), n -> n instanceof String text ? names.get(text) : null);
    }

    static Type<Duration> duration() {
        return scalar(Quantities.DURATION_FORMS, ConfigKeys::durationOf);
    }

    static Type<Long> hexId() {
        return scalar("a string of 16 hex digits, e.g. \"0x0272000000000001\"", n -> {
            Matcher m = HEX_ID.matcher(n instanceof String text ? text : "");
            return m.matches() ? Long.parseUnsignedLong(m.group(1), 16) : null;
        });
    }

    static Type<String> host() {
        return scalar("an IP address or host name",
                n -> n instanceof String text && !text.isBlank() && text.chars().noneMatch(Character::isWhitespace)
                        ? text : null);
    }

    static Type<String> path(String allowed) {
        return scalar(allowed, n -> n instanceof String text && !text.isBlank() ? text : null);
    }

    /** A metrics endpoint as written: host and port, or {@link #NONE} for the empty string. */
    record HostAndPort(String host, int port) {
        static final HostAndPort NONE = new HostAndPort(null, 0);
    }

    /** "host:port" or "[v6]:port", port 0..65535; "" is no endpoint. */
    static Type<HostAndPort> endpoint() {
        return scalar("\"\" (no endpoint), or \"host:port\" such as \"127.0.0.1:9464\", \"[::1]:9464\"; port 0"
                + " takes any free one", n -> {
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
            int port = Integer.parseInt(m.group(3));
            return port <= 65535 ? new HostAndPort(m.group(1) != null ? m.group(1) : m.group(2), port) : null;
        });
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

    private static InitiatorPortId initiatorPortId(Object n) {
        try {
            return n instanceof String text ? InitiatorPortId.parse(text) : null;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /** Whether {@code n} is a TOML integer from {@code min} to {@code max}. */
    private static boolean inRange(Object n, long min, long max) {
        return n instanceof Long l && l >= min && l <= max;
    }

    /** A TOML integer that {@link #inRange} found within int's range. */
    private static int intValue(Object n) {
        return Math.toIntExact((Long) n);
    }

    /** "a", "a or b", "a, b or c". */
    static String orList(Collection<String> names) {
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

package org.rdmablock.target.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.rdmablock.target.config.LunConfig.BackendKind;
import org.rdmablock.target.config.LunConfig.WriteCachePolicy;
import org.rdmablock.target.config.PipelineConfig.CompletionMode;
import org.rdmablock.target.config.PipelineConfig.ReceiveQueueMode;
import org.rdmablock.protocol.scsi.TargetPortGroups;
import org.rdmablock.protocol.scsi.TargetPortGroups.AccessState;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The reader's defaults, value forms and every rule that refuses a config, with the messages they give. */
class TargetConfigReaderTest {
    private static final Path BASE = Path.of("/srv/rdmablock");
    private static final String LUN0 = """
            [[lun]]
            number = 0
            path = "lun0.img"
            size = "1GiB"
            """;

    static TargetConfig read(String toml) throws ConfigException {
        return TargetConfigReader.read(toml, "test.toml", BASE);
    }

    /** The one problem {@code toml} has. */
    static ConfigException.Problem problem(String toml) {
        ConfigException e = assertThrows(ConfigException.class, () -> read(toml));
        assertEquals(1, e.problems().size(), e.getMessage());
        return e.problems().getFirst();
    }

    static String message(String toml) {
        return problem(toml).toString();
    }

    // ---- defaults

    @Test
    void anEmptyFileTakesEveryDefault() throws ConfigException {
        TargetConfig c = read("");
        assertEquals("test.toml", c.source());
        assertEquals(new ListenConfig("soft", "127.0.0.1", 5555), c.listen());
        assertEquals(new ChannelConfig(128, 8276, 1 << 20, true, 8192, 64), c.channel());
        assertEquals(new PipelineConfig(64 * 130 * 4, 1024, PipelineConfig.AUTO_BACKEND_THREADS,
                ReceiveQueueMode.PER_CHANNEL, CompletionMode.POLL, PipelineConfig.AUTO_BACKEND_THREADS), c.pipeline());
        assertTrue(c.pipeline().automatic());
        assertEquals(new TimeoutConfig(Duration.ZERO, Duration.ofSeconds(30)), c.timeouts());
        assertEquals(List.of(), c.luns());
    }

    @Test
    void metricsAreServedOnlyWhereTheConfigSaysAndSummarisedEveryMinute() throws ConfigException {
        assertEquals(MetricsConfig.DEFAULT, read("").metrics());
        assertFalse(read("").metrics().served());
        assertEquals(new MetricsConfig(null, 0, Duration.ofMinutes(1)), read("[metrics]\naddress = \"\"\n").metrics());
        assertEquals(new MetricsConfig("127.0.0.1", 9464, Duration.ofSeconds(10)),
                read("[metrics]\naddress = \"127.0.0.1:9464\"\nsummary_interval = \"10s\"\n").metrics());
        assertEquals(new MetricsConfig("::1", 0, Duration.ZERO),
                read("[metrics]\naddress = \"[::1]:0\"\nsummary_interval = \"0\"\n").metrics());
        assertEquals(new MetricsConfig("metrics.example", 80, Duration.ofMinutes(1)),
                read("[metrics]\naddress = \"metrics.example:80\"\n").metrics());
        assertTrue(read("[metrics]\naddress = \"0.0.0.0:9464\"\n").metrics().served());
    }

    @ParameterizedTest
    @ValueSource(strings = {"\"127.0.0.1\"", "\"::1:9464\"", "\"127.0.0.1:65536\"", "\"127.0.0.1:\"", "9464", "\":9464\""})
    void aMetricsAddressIsHostColonPort(String value) {
        ConfigException.Problem p = problem("[metrics]\naddress = " + value + "\n");
        assertEquals(2, p.line());
        assertEquals("metrics.address", p.key());
        assertTrue(p.toString().startsWith("test.toml:2: key 'metrics.address': " + value + " is not allowed (\"\" (no"
                + " endpoint), or \"host:port\""), p.toString());
    }

    @Test
    void aSummaryIntervalIsZeroOrAtLeastASecond() {
        assertEquals("test.toml:3: key 'metrics.summary_interval': \"500ms\" is not allowed (\"0\" (never) or at least"
                        + " \"1s\"; a string such as \"250ms\", \"30s\", \"1.5s\", \"5m\", \"1h\" (a bare number is"
                        + " seconds); \"0\": never)",
                message("[metrics]\naddress = \"\"\nsummary_interval = \"500ms\"\n"));
        assertEquals("metrics.summary_interval", problem("[metrics]\nsummary_interval = 60\n").key());
    }

    @Test
    void nvmeIsOffUntilASubsystemIsNamed() throws ConfigException {
        assertEquals(NvmeConfig.NONE, read("").nvme());
        assertFalse(read("[nvme]\nport = 4421\n").nvme().enabled());
        NvmeConfig nvme = read("[nvme]\nsubsystem = \"nqn.2026-12.org.example:disks\"\n").nvme();
        assertEquals(NvmeConfig.DEFAULT_PORT, nvme.port());
        NvmeConfig.Subsystem subsystem = nvme.subsystems().getFirst();
        assertEquals("nqn.2026-12.org.example:disks", subsystem.nqn());
        assertEquals("027215b3d7b7e7a8", subsystem.serial(), "target.id_ext's digits");
        assertTrue(subsystem.allows("nqn.2014-08.org.nvmexpress:uuid:any"));
        assertFalse(read("[nvme]\nsubsystem = \"nqn.a:b\"\nallowed_hosts = [\"nqn.h:1\"]\n").nvme().subsystems()
                .getFirst().allows("nqn.h:2"));
    }

    @Test
    void anNvmeSubsystemIsAnNqn() {
        String m = message("[nvme]\nsubsystem = \"disks\"\n");
        assertTrue(m.contains("nvme.subsystem") && m.contains("starting \"nqn.\""), m);
        assertTrue(message("[nvme]\nsubsystem = \"nqn." + "x".repeat(220) + "\"\n").contains("at most 223"));
        assertTrue(message("[nvme]\nserial = \"" + "9".repeat(21) + "\"\n").contains("nvme.serial"));
    }

    @Test
    void subsystemTablesServeChosenLunsToChosenHosts() throws ConfigException {
        NvmeConfig nvme = read("""
                [nvme]
                subsystem = "nqn.2026-12.org.example:all"
                port = 4421
                [[subsystem]]
                nqn = "nqn.2026-12.org.example:db"
                model = "db disks"
                namespaces = [1]
                allowed_hosts = ["nqn.2014-08.org.nvmexpress:uuid:db"]
                [[subsystem]]
                nqn = "nqn.2026-12.org.example:scratch"
                [[lun]]
                number = 0
                backend = "memory"
                size = "1MiB"
                [[lun]]
                number = 1
                backend = "memory"
                size = "1MiB"
                """).nvme();
        assertEquals(4421, nvme.port());
        assertEquals(List.of("nqn.2026-12.org.example:all", "nqn.2026-12.org.example:db", "nqn.2026-12.org.example:scratch"),
                nvme.subsystems().stream().map(NvmeConfig.Subsystem::nqn).toList(), "[nvme]'s first, then in file order");
        NvmeConfig.Subsystem db = nvme.subsystems().get(1);
        assertEquals("db disks", db.model());
        assertTrue(db.serves(1) && !db.serves(0));
        assertTrue(db.allows("nqn.2014-08.org.nvmexpress:uuid:db") && !db.allows("nqn.2014-08.org.nvmexpress:uuid:x"));
        NvmeConfig.Subsystem scratch = nvme.subsystems().get(2);
        assertEquals("rdmablock", scratch.model());
        assertTrue(scratch.serves(0) && scratch.serves(1), "no namespaces: every open LUN");
        assertEquals("027215b3d7b7e7a8", scratch.serial().substring(0, 16), "target.id_ext's digits first");
        assertFalse(scratch.serial().equals(db.serial()), "two subsystems, two serials");
        assertTrue(read("[[subsystem]]\nnqn = \"nqn.a:b\"\n").nvme().enabled(), "a [[subsystem]] alone turns NVMe on");
    }

    @Test
    void aSubsystemTableIsRefusedWithItsLineAndKey() {
        String lun = "[[lun]]\nnumber = 0\nbackend = \"memory\"\nsize = \"1MiB\"\n";
        String missing = message("[[subsystem]]\nmodel = \"m\"\n");
        assertTrue(missing.contains(":1: key 'subsystem[0].nqn' is missing"), missing);
        String twice = message("[nvme]\nsubsystem = \"nqn.a:b\"\n[[subsystem]]\nnqn = \"nqn.a:b\"\n");
        assertTrue(twice.contains("each NQN once") && twice.contains("nvme.subsystem"), twice);
        String unknown = message(lun + "[[subsystem]]\nnqn = \"nqn.a:b\"\nnamespaces = [0, 7]\n");
        assertTrue(unknown.contains("subsystem[0].namespaces") && unknown.contains("no [[lun]] has number 7"), unknown);
        String restricted = message("[[lun]]\nnumber = 0\nbackend = \"memory\"\nsize = \"1MiB\"\n"
                + "allowed_initiators = [\"0x" + "0".repeat(31) + "1\"]\n[[subsystem]]\nnqn = \"nqn.a:b\"\nnamespaces = [0]\n");
        assertTrue(restricted.contains("allowed_initiators"), restricted);
        String typo = message("[[subsystem]]\nnqn = \"nqn.a:b\"\nnamespace = [0]\n");
        assertTrue(typo.contains("namespace") && typo.contains("namespaces"), typo);
        assertTrue(message("[[subsystem]]\nnqn = \"nqn.a:b\"\nmodel = \"" + "m".repeat(41) + "\"\n")
                .contains("subsystem[0].model"));
    }

    @Test
    void portsAndPortGroupsAreReadInFileOrder() throws ConfigException {
        assertEquals(PortsConfig.NONE, read("").ports(), "none given: [listen] alone, as before");
        PortsConfig ports = read("""
                [listen]
                address = "10.0.0.1"
                group = 3
                [[port]]
                id = 2
                address = "10.0.1.1"
                group = 2
                [[port]]
                id = 3
                port = 5556
                [[port_group]]
                id = 2
                state = "standby"
                [[port_group]]
                id = 1
                state = "active/non-optimized"
                """).ports();
        assertEquals(new PortsConfig(3, List.of(new PortsConfig.Port(2, "10.0.1.1", 5555, 2),
                        new PortsConfig.Port(3, "10.0.0.1", 5556, 1)),
                List.of(new PortsConfig.Group(2, AccessState.STANDBY), new PortsConfig.Group(1, AccessState.ACTIVE_NON_OPTIMIZED))),
                ports, "address and port default to [listen]'s, group to 1");
        assertEquals(List.of(new TargetPortGroups.Group(2, AccessState.STANDBY, List.of(2)),
                        new TargetPortGroups.Group(1, AccessState.ACTIVE_NON_OPTIMIZED, List.of(3)),
                        new TargetPortGroups.Group(3, AccessState.ACTIVE_OPTIMIZED, List.of(1))),
                ports.portGroups().groups(), "group 3, named by [listen] and declared by none, is active/optimized");
    }

    @Test
    void aPortOrGroupIdTwiceIsRefused() {
        assertEquals("test.toml:5: key 'port[1].id': 2 is not allowed (each id once: port[0] at line 1 is port 2)",
                message("[[port]]\nid = 2\nport = 5556\n[[port]]\nid = 2\nport = 5557\n"));
        assertEquals("test.toml:4: key 'port_group[1].id': 2 is not allowed (each id once: port_group[0] at line 1"
                + " is group 2)", message("[[port_group]]\nid = 2\n[[port_group]]\nid = 2\nstate = \"standby\"\n"));
    }

    @Test
    void eachAddressAndPortOnce() throws ConfigException {
        assertEquals("test.toml:1: key 'port[0].port': 5555 is not allowed (each address and port once: [listen] has"
                + " 127.0.0.1:5555)", message("[[port]]\nid = 2\n"));
        assertEquals("test.toml:6: key 'port[0].port': 6000 is not allowed (each address and port once: [listen] at"
                + " line 1 has 127.0.0.1:6000)",
                message("[listen]\nport = 6000\n[[port]]\nid = 2\naddress = \"127.0.0.1\"\nport = 6000\n"));
        assertEquals("test.toml:8: key 'port[1].port': 5556 is not allowed (each address and port once: port[0] at"
                + " line 1 has [::1]:5556)",
                message("[[port]]\nid = 2\naddress = \"::1\"\nport = 5556\n[[port]]\nid = 3\naddress = \"::1\"\n"
                        + "port = 5556\n"));
        assertEquals(2, read("[[port]]\nid = 2\naddress = \"10.0.0.1\"\n[[port]]\nid = 3\naddress = \"10.0.0.2\"\n")
                .ports().ports().size(), "one port number at two addresses");
    }

    @Test
    void aPortOnTheNvmePortIsRefusedWhenNvmeServes() throws ConfigException {
        String port = "[[port]]\nid = 2\nport = 4420\n";
        assertEquals("test.toml:7: key 'port[0].port': 4420 is not allowed (each address and port once: [nvme] at"
                + " line 1 serves NVMe at 127.0.0.1:4420)",
                message("[nvme]\nport = 4420\n[[subsystem]]\nnqn = \"nqn.a:b\"\n" + port));
        assertEquals(4420, read("[nvme]\nport = 4420\n" + port).ports().ports().getFirst().port(), "no NVMe served");
        assertEquals(4420, read("[[subsystem]]\nnqn = \"nqn.a:b\"\n[[port]]\nid = 2\naddress = \"10.0.0.1\"\n"
                + "port = 4420\n").ports().ports().getFirst().port(), "NVMe listens at listen.address only");
    }

    @Test
    void portKeysAreCheckedByTheTable() {
        assertEquals("test.toml:1: key 'port[0].id' is missing (2 to 65535; [listen] is port 1)",
                message("[[port]]\nport = 5556\n"));
        assertEquals("test.toml:2: key 'port[0].id': 1 is not allowed (an integer from 2 to 65535)",
                message("[[port]]\nid = 1\nport = 5556\n"));
        assertEquals("test.toml:2: key 'listen.group': 0 is not allowed (an integer from 1 to 65535)",
                message("[listen]\ngroup = 0\n"));
        assertEquals("test.toml:3: key 'port_group[0].state': \"passive\" is not allowed (active/optimized,"
                + " active/non-optimized, standby or unavailable)",
                message("[[port_group]]\nid = 1\nstate = \"passive\"\n"));
        String typo = message("[[port]]\nid = 2\nport = 5556\ngruop = 2\n");
        assertTrue(typo.contains("'port[0].gruop' is not known; did you mean 'group'?"), typo);
    }

    @Test
    void theDefaultIdentityIsDerivedFromWhereTheTargetListens() throws ConfigException {
        assertEquals(new IdentityConfig(0x027215b3d7b7e7a8L, 0x027215b3d7b7e7a8L), read("").identity());
        IdentityConfig other = read("[listen]\nport = 5556\n").identity();
        assertEquals(0x027215b4d7b7e7a8L, other.idExt());
        assertEquals(other.idExt(), other.iocGuid());
    }

    @Test
    void iocGuidDefaultsToAGivenIdExt() throws ConfigException {
        assertEquals(new IdentityConfig(0x0002c903000ab1e0L, 0x0002c903000ab1e0L),
                read("[target]\nid_ext = \"0x0002c903000ab1e0\"\n").identity());
        assertEquals(new IdentityConfig(0x8002c903000ab1e0L, 0x1L),
                read("[target]\nid_ext = \"8002C903000AB1E0\"\nioc_guid = \"0x0000000000000001\"\n").identity());
    }

    @Test
    void aLunTakesItsDefaults() throws ConfigException {
        LunConfig lun = read(LUN0).luns().getFirst();
        assertEquals(new LunConfig(0, BackendKind.FILE, BASE.resolve("lun0.img"), 1L << 30, 512, false,
                WriteCachePolicy.WRITE_THROUGH, false, 0, List.of(), false, false), lun);
        LunConfig rocks = read("[[lun]]\nnumber = 3\nbackend = \"rocksdb\"\npath = \"db\"\nsize = 4096\n")
                .luns().getFirst();
        assertEquals(64L << 20, rocks.blockCacheBytes());
        assertEquals(BASE.resolve("db"), rocks.path());
    }

    @Test
    void immediateDataSizeDefaultsToWhatTheIuHolds() throws ConfigException {
        assertEquals(4096 - 68, read("[channel]\nmax_iu_length = 4096\n").channel().immediateDataSize());
        assertEquals(8192, read("[channel]\nmax_iu_length = 9000\n").channel().immediateDataSize());
    }

    @Test
    void cqSizeDefaultsToWhatTheChannelsCanCompleteAtOnce() throws ConfigException {
        assertEquals(2 * 18 * 4, read("[channel]\nmax_channels = 2\ncredits = 16\n").pipeline().cqSize());
    }

    // ---- values

    @Test
    void everyKeyIsRead() throws ConfigException {
        TargetConfig c = read("""
                [listen]
                provider = "native"
                address = "192.0.2.15"
                port = 1
                [channel]
                credits = 4096
                max_iu_length = 2116
                max_io_size = "4KiB"
                immediate_data = false
                immediate_data_size = 100000
                max_channels = 1
                [pipeline]
                cq_size = 20000
                ring_size = 2
                backend_threads = 1
                blocking_threads = 0
                receive_queue = "srq"
                completions = "event"
                [timeouts]
                idle = "5m"
                command = "250ms"
                [[lun]]
                number = 16383
                backend = "file"
                path = "/abs/lun.img"
                size = 8192
                block_size = 4096
                read_only = true
                write_cache = "write-back"
                direct_io = true
                allowed_initiators = ["0x00000000000000000002c90300a1b2c3", "fe800000000000000002c90300a1b2c4"]
                """);
        assertEquals(new ListenConfig("native", "192.0.2.15", 1), c.listen());
        assertEquals(new ChannelConfig(4096, 2116, 4096, false, 100000, 1), c.channel());
        assertEquals(new PipelineConfig(20000, 2, 1, ReceiveQueueMode.SHARED, CompletionMode.EVENT, 0), c.pipeline());
        assertEquals(new TimeoutConfig(Duration.ofMinutes(5), Duration.ofMillis(250)), c.timeouts());
        assertEquals(new LunConfig(16383, BackendKind.FILE, Path.of("/abs/lun.img"), 8192, 4096, true,
                WriteCachePolicy.WRITE_BACK, true, 0, List.of(new InitiatorPortId(0, 0x0002c90300a1b2c3L),
                new InitiatorPortId(0xfe80000000000000L, 0x0002c90300a1b2c4L)), false, false), c.luns().getFirst());
    }

    @Test
    void sizeAndDurationKeysTakeBothForms() throws ConfigException {
        assertEquals(1L << 30, read(LUN0.replace("\"1GiB\"", "1073741824")).luns().getFirst().sizeBytes());
        assertEquals(Duration.ZERO, read("[timeouts]\ncommand = 0\n").timeouts().command());
        assertEquals("test.toml:2: key 'timeouts.command': 30 is not allowed (a string such as \"250ms\", \"30s\","
                + " \"1.5s\", \"5m\", \"1h\" (a bare number is seconds); \"0\": never)",
                message("[timeouts]\ncommand = 30\n"));
        assertEquals(2, problem("[channel]\nmax_io_size = \"1 MiB B\"\n").line());
    }

    @Test
    void sizeAndDurationKeysTakeTheToolsFormsToo() throws ConfigException {
        TargetConfig c = read(LUN0.replace("\"1GiB\"", "\"2g\"") + "block_cache = \"1m\"\nbackend = \"rocksdb\"\n"
                + "[timeouts]\nidle = \"90\"\ncommand = \"1.5s\"\n[channel]\nmax_io_size = \"64KB\"\n");
        assertEquals(2L << 30, c.luns().getFirst().sizeBytes());
        assertEquals(1L << 20, c.luns().getFirst().blockCacheBytes());
        assertEquals(new TimeoutConfig(Duration.ofSeconds(90), Duration.ofMillis(1500)), c.timeouts());
        assertEquals(64 << 10, c.channel().maxIoSize());
        assertEquals("lun[0].size", problem(LUN0.replace("\"1GiB\"", "\"1.5g\"")).key());
        assertEquals("timeouts.idle", problem("[timeouts]\nidle = \"1d\"\n").key());
    }

    @Test
    void relativePathsResolveAgainstTheBaseDirectory() throws ConfigException {
        assertEquals(BASE.resolve("data/x.img"),
                read(LUN0.replace("lun0.img", "./data/../data/x.img")).luns().getFirst().path());
        assertEquals(Path.of("/var/lib/x.img"), read(LUN0.replace("lun0.img", "/var/lib/x.img")).luns().getFirst().path());
    }

    @Test
    void lunsAreSortedByNumber() throws ConfigException {
        List<LunConfig> luns = read("""
                [[lun]]
                number = 7
                backend = "null"
                size = 512
                [[lun]]
                number = 2
                backend = "memory"
                size = 512
                """).luns();
        assertEquals(List.of(2, 7), luns.stream().map(LunConfig::number).toList());
        assertNull(luns.getFirst().path());
    }

    @Test
    void readingAFileNamesItAndResolvesAgainstItsDirectory(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("conf/target.toml");
        Files.createDirectories(file.getParent());
        Files.writeString(file, LUN0);
        TargetConfig c = TargetConfigReader.read(file, TargetConfigReader.Storage.NOT_CHECKED);
        assertEquals(file.toString(), c.source());
        assertEquals(dir.resolve("conf/lun0.img"), c.luns().getFirst().path());

        Files.writeString(file, "\n[channel]\ncredits = 0\n");
        assertEquals(file + ":3: key 'channel.credits': 0 is not allowed (an integer from 1 to 4096)",
                assertThrows(ConfigException.class, () -> TargetConfigReader.read(file)).getMessage());
    }

    @Test
    void aMissingFileIsAConfigException(@TempDir Path dir) {
        Path file = dir.resolve("absent.toml");
        ConfigException e = assertThrows(ConfigException.class, () -> TargetConfigReader.read(file));
        assertTrue(e.getMessage().startsWith(file + ": cannot be read: java.nio.file.NoSuchFileException"),
                e.getMessage());
    }

    // ---- messages: file, line, key, value, what is allowed

    @Test
    void aBadValueNamesFileLineKeyValueAndWhatIsAllowed() {
        String toml = LUN0 + """
                [[lun]]
                number = 1
                path = "lun1.img"
                size = "1GiB"

                block_size = 1024
                """;
        ConfigException.Problem p = problem(toml);
        assertEquals(10, p.line());
        assertEquals("lun[1].block_size", p.key());
        assertEquals("test.toml:10: key 'lun[1].block_size': 1024 is not allowed (512 or 4096)", p.toString());
    }

    @Test
    void anUnknownKeyIsRefusedWithASuggestion() {
        assertEquals("test.toml:5: key 'lun[0].blocksize' is not known; did you mean 'block_size'?",
                message(LUN0 + "blocksize = 4096\n"));
        assertEquals("test.toml:3: key 'channel.credit' is not known; did you mean 'credits'?",
                message("[listen]\n[channel]\ncredit = 3\n"));
        assertEquals("test.toml:1: key 'listn' is not known; did you mean 'listen'?", message("[listn]\nport = 1\n"));
        assertEquals("test.toml:2: key 'timeouts.idel' is not known; did you mean 'idle'?",
                message("[timeouts]\nidel = \"1s\"\n"));
        assertEquals("test.toml:2: key 'listen.max-channels' is not known (keys in [listen]: provider, address,"
                + " port, group)", message("[listen]\nmax-channels = 3\n"));
    }

    @Test
    void keysAreNotSuggestedAcrossMoreThanTwoEdits() {
        assertEquals("block_size", TargetConfigReader.closest("Block-Size", KeysOfLun.ALL));
        assertEquals("block_size", TargetConfigReader.closest("blcok_size", KeysOfLun.ALL));
        assertEquals("read_only", TargetConfigReader.closest("readonly", KeysOfLun.ALL));
        assertNull(TargetConfigReader.closest("blk_sz", KeysOfLun.ALL));
        assertEquals("path", TargetConfigReader.closest("pth", KeysOfLun.ALL));
        assertNull(TargetConfigReader.closest("pt", KeysOfLun.ALL));      // two edits, but 'path' is short
        assertNull(TargetConfigReader.closest("size_bytes", KeysOfLun.ALL));
    }

    private static final class KeysOfLun {
        static final List<String> ALL = TargetConfigReader.knownKeys().stream()
                .filter(k -> k.startsWith("lun.")).map(k -> k.substring(4)).toList();
    }

    @Test
    void everyProblemIsReportedAtOnce() {
        ConfigException e = assertThrows(ConfigException.class, () -> read("""
                [listen]
                port = 0
                prot = 1
                [pipeline]
                ring_size = 1000
                """));
        assertEquals(List.of(2, 3, 5), e.problems().stream().map(ConfigException.Problem::line).toList());
        assertEquals(3, e.getMessage().lines().count());
    }

    @Test
    void syntaxErrorsCarryTheirLine() {
        ConfigException.Problem p = problem("[listen]\n\nport = \n");
        assertEquals(3, p.line());
        assertNull(p.key());
        assertTrue(p.message().startsWith("not TOML: "), p.message());
    }

    @Test
    void aRepeatedKeyIsNamedOnItsOwnLine() {
        assertEquals("test.toml:4: key 'listen.port' is given twice (first at line 2)",
                message("[listen]\nport = 1\naddress = \"::1\"\nport = 2\n\n[channel]\n"));
    }

    @Test
    void aRepeatedKeyOrTableIsNamedInFull() {
        assertEquals("test.toml:8: key 'lun[1].number' is given twice (first at line 6)",
                message(LUN0 + LUN0.replace("size", "number = 1\nsize")));
        assertEquals("test.toml:3: key 'listen' is given twice (first at line 1)",
                message("[listen]\nport = 1\n[listen]\naddress = \"::1\"\n"));
        assertEquals("test.toml:2: key 'listen.port' is given twice (first at line 1)",
                message("listen.port = 1\nlisten.port = 2\n"));
        assertEquals("test.toml:2: key 'listen' is given twice (first at line 1)",
                message("listen.port = 1\n[listen]\naddress = \"::1\"\n"));
    }

    @Test
    void everySyntaxErrorIsReportedWithItsLine() {
        ConfigException e = assertThrows(ConfigException.class, () -> read("[listen]\naddress = \"x\"y\nport = \n"));
        assertEquals(List.of(2, 3), e.problems().stream().map(ConfigException.Problem::line).toList());
        assertTrue(e.problems().stream().allMatch(p -> p.key() == null && p.message().startsWith("not TOML: ")),
                e.getMessage());
    }

    @Test
    void anArrayElementIsFoundPastBlankLinesAndComments() {
        ConfigException e = assertThrows(ConfigException.class, () -> read(LUN0 + """
                allowed_initiators = [   # the hosts
                    "0x00000000000000000002c90300a1b2c3",   # a, 1

                    # b, [2]
                    "x", 5,
                ]
                """));
        assertEquals(List.of("lun[0].allowed_initiators[1]", "lun[0].allowed_initiators[2]"),
                e.problems().stream().map(ConfigException.Problem::key).toList());
        assertEquals(List.of(9, 9), e.problems().stream().map(ConfigException.Problem::line).toList());
        assertEquals("test.toml:7: key 'lun[0].allowed_initiators[0]': 7 is not allowed (an initiator port id: a"
                + " string of 32 hex digits, e.g. \"0x00000000000000000000000000000001\")",
                message(LUN0 + "allowed_initiators = [ # c\n\n7]\n"));
    }

    @Test
    void sectionsAndLunsMustBeTables() {
        assertEquals("test.toml:1: key 'listen': 5 is not allowed (a table: a [listen] header and its keys)",
                message("listen = 5\n"));
        assertEquals("test.toml:1: key 'lun': {number = 0} is not allowed (an array of tables: each LUN under"
                + " a [[lun]] header)", message("[lun]\nnumber = 0\n"));
    }

    // ---- [listen] and [target]

    @ParameterizedTest
    @ValueSource(strings = {"0", "65536", "-1", "\"5555\"", "5555.0"})
    void portsOutsideOneTo65535AreRefused(String port) {
        ConfigException.Problem p = problem("[listen]\nport = " + port + "\n");
        assertEquals("listen.port", p.key());
        assertEquals("key 'listen.port': " + port + " is not allowed (an integer from 1 to 65535)", p.message());
    }

    @Test
    void portBoundsAreAccepted() throws ConfigException {
        assertEquals(65535, read("[listen]\nport = 65535\n").listen().port());
        assertEquals(1, read("[listen]\nport = 1\n").listen().port());
    }

    @Test
    void anUnknownProviderIsRefused() {
        assertEquals("test.toml:2: key 'listen.provider': \"rdma\" is not allowed (soft, native or auto)",
                message("[listen]\nprovider = \"rdma\"\n"));
        assertEquals("listen.address", problem("[listen]\naddress = \"\"\n").key());
    }

    @ParameterizedTest
    @ValueSource(strings = {"\"0x123\"", "\"0x0002c903000ab1e00\"", "\"0x0002c903000ab1eg\"", "123",
            "0x0002c903000ab1e0", "\"0x 002c903000ab1e0\""})
    void badHexIdsAreRefused(String id) {
        ConfigException.Problem p = problem("[target]\nioc_guid = " + id + "\n");
        assertEquals("key 'target.ioc_guid': " + (id.startsWith("0x") ? Long.decode(id) : id)
                + " is not allowed (a string of 16 hex digits, e.g. \"0x0272000000000001\")", p.message());
        assertEquals(2, p.line());
    }

    // ---- [channel]

    @ParameterizedTest
    @ValueSource(ints = {0, 4097})
    void creditsOutsideOneTo4096AreRefused(int credits) {
        assertEquals("channel.credits", problem("[channel]\ncredits = " + credits + "\n").key());
    }

    @Test
    void maxIuLengthBelow64IsRefused() throws ConfigException {
        assertEquals("key 'channel.max_iu_length': 63 is not allowed (an integer from 64 to 1048576)",
                problem("[channel]\nmax_iu_length = 63\nimmediate_data = false\n").message());
        assertEquals(64, read("[channel]\nmax_iu_length = 64\nimmediate_data = false\n").channel().maxIuLength());
        assertEquals("key 'channel.max_iu_length': 68 is not allowed (more than 68 while immediate_data is true:"
                + " immediate data starts at byte 68 of an SRP_CMD)",
                problem("[channel]\nmax_iu_length = 68\n").message());
    }

    @Test
    void immediateDataMustFitBehindTheCommandInTheIu() throws ConfigException {
        assertEquals(8208, read("[channel]\nimmediate_data_size = 8208\n").channel().immediateDataSize());
        ConfigException.Problem p = problem("[channel]\nimmediate_data_size = 8209\n");
        assertEquals("test.toml:2: key 'channel.immediate_data_size': 8209 is not allowed (1 to max_iu_length - 68"
                + " = 8208: immediate data starts at byte 68 of an SRP_CMD; bytes, or a string such as \"64MiB\" or"
                + " \"4k\" (units B, KiB, MiB, GiB, TiB in any case; K, M, G, T or KB, MB, GB, TB: the same))",
                p.toString());
        // without immediate data the size is not used, so only its own range applies
        assertEquals(9000, read("[channel]\nimmediate_data = false\nimmediate_data_size = 9000\n")
                .channel().immediateDataSize());
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "\"6KiB\"", "\"2GiB\"", "\"1.5MiB\""})
    void maxIoSizeMustBeWhole4KiBUpTo1GiB(String size) {
        assertEquals("channel.max_io_size", problem("[channel]\nmax_io_size = " + size + "\n").key());
    }

    @Test
    void maxChannelsOutsideItsRangeAreRefused() {
        assertEquals("channel.max_channels", problem("[channel]\nmax_channels = 0\n").key());
        assertEquals("channel.max_channels", problem("[channel]\nmax_channels = 4097\n").key());
    }

    // ---- [pipeline] and [timeouts]

    @Test
    void aCqSmallerThanTheChannelsCanFillIsRefused() throws ConfigException {
        assertEquals(33280, read("[pipeline]\ncq_size = 33280\n").pipeline().cqSize());
        assertEquals("test.toml:4: key 'pipeline.cq_size': 33279 is not allowed (at least max_channels × (credits + 2) × 4"
                + " = 33280)", message("[channel]\ncredits = 128\n[pipeline]\ncq_size = 33279\n"));
        assertEquals("key 'pipeline.cq_size': 143 is not allowed (at least max_channels × (credits + 2) × 4 = 144)",
                problem("[channel]\nmax_channels = 2\ncredits = 16\n[pipeline]\ncq_size = 143\n").message());
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1000, 1023, 1025, 1 << 25})
    void ringSizesThatAreNotPowersOfTwoAreRefused(int ring) {
        assertEquals("key 'pipeline.ring_size': " + ring + " is not allowed (a power of two from 1 to 16777216)",
                problem("[pipeline]\nring_size = " + ring + "\n").message());
    }

    @Test
    void modesMustBeNamed() {
        assertEquals("key 'pipeline.receive_queue': \"shared\" is not allowed (srq or per-channel)",
                problem("[pipeline]\nreceive_queue = \"shared\"\n").message());
        assertEquals("key 'pipeline.completions': \"busy\" is not allowed (poll or event)",
                problem("[pipeline]\ncompletions = \"busy\"\n").message());
        assertEquals("key 'pipeline.backend_threads': -1 is not allowed (an integer from 0 to 1024 or \"auto\")",
                problem("[pipeline]\nbackend_threads = -1\n").message());
        assertEquals("key 'pipeline.backend_threads': \"Auto\" is not allowed (an integer from 0 to 1024 or \"auto\")",
                problem("[pipeline]\nbackend_threads = \"Auto\"\n").message());
    }

    @Test
    void autoIsReadAsAuto() throws ConfigException {
        assertEquals(PipelineConfig.AUTO_BACKEND_THREADS,
                read("[pipeline]\nbackend_threads = \"auto\"\n").pipeline().backendThreads());
        assertFalse(read("[pipeline]\nbackend_threads = 2\n").pipeline().automatic());
    }

    private static final String MEMORY_AND_NULL = """
            [[lun]]
            number = 0
            backend = "memory"
            size = 512
            [[lun]]
            number = 1
            backend = "null"
            size = 512
            """;

    @Test
    void autoRunsCommandsOnThePollerThreadWhenNoLunBlocks() throws ConfigException {
        TargetConfig c = read(MEMORY_AND_NULL);
        assertEquals(0, c.pipeline().resolve(c.luns()).backendThreads());
        assertEquals(0, c.pipeline().resolve(c.luns()).blockingThreads());
        assertEquals(0, c.pipeline().resolve(List.of()).backendThreads());
        assertEquals(0, c.withPipelineResolved().pipeline().backendThreads());
        assertEquals(0, c.withPipelineResolved().pipeline().blockingThreads());
    }

    @Test
    void autoGivesBlockingCallThreadsWhenAnyLunCanBlock() throws ConfigException {
        TargetConfig c = read(MEMORY_AND_NULL + LUN0.replace("number = 0", "number = 2"));
        assertEquals(BackendKind.FILE, c.luns().getLast().backend());
        assertEquals(0, c.pipeline().resolve(c.luns()).backendThreads(), "the poller runs the commands");
        assertEquals(4, c.pipeline().resolve(c.luns()).blockingThreads(), "calls that would wait go to four threads");
        TargetConfig rocks = read(LUN0.replace("size", "backend = \"rocksdb\"\nsize"));
        assertEquals(BackendKind.ROCKSDB, rocks.luns().getFirst().backend());
        assertEquals(4, rocks.withPipelineResolved().pipeline().blockingThreads());
    }

    @Test
    void blockingThreadsAreReadKeptAndOnlyForAPollerRunPipeline() throws ConfigException {
        assertEquals(PipelineConfig.AUTO_BACKEND_THREADS, read("").pipeline().blockingThreads(), "auto by default");
        TargetConfig none = read("[pipeline]\nblocking_threads = 0\n" + LUN0);
        assertEquals(0, none.pipeline().resolve(none.luns()).blockingThreads(), "0: the poller makes every call");
        TargetConfig two = read("[pipeline]\nblocking_threads = 2\n" + MEMORY_AND_NULL);
        assertEquals(2, two.pipeline().resolve(two.luns()).blockingThreads());
        TargetConfig ring = read("[pipeline]\nbackend_threads = 3\n" + LUN0);
        assertEquals(0, ring.pipeline().resolve(ring.luns()).blockingThreads(), "auto is none beside backend threads");
        assertEquals("key 'pipeline.blocking_threads': 2 is not allowed (blocking-call threads serve a pipeline the poller"
                + " runs: only with backend_threads = 0 or \"auto\", not 3)",
                problem("[pipeline]\nbackend_threads = 3\nblocking_threads = 2\n").message());
        assertEquals("key 'pipeline.blocking_threads': -1 is not allowed (an integer from 0 to 1024 or \"auto\")",
                problem("[pipeline]\nblocking_threads = -1\n").message());
    }

    @Test
    void onlyAutoIsBelowZero() {
        assertThrows(IllegalArgumentException.class,
                () -> new PipelineConfig(4096, 1024, -2, ReceiveQueueMode.PER_CHANNEL, CompletionMode.POLL));
    }

    @Test
    void explicitBackendThreadsAreKept() throws ConfigException {
        TargetConfig c = read("[pipeline]\nbackend_threads = 3\n" + MEMORY_AND_NULL);
        assertEquals(3, c.pipeline().resolve(c.luns()).backendThreads());
        TargetConfig inline = read("[pipeline]\nbackend_threads = 0\n" + LUN0);
        assertEquals(0, inline.pipeline().resolve(inline.luns()).backendThreads());
        assertEquals(4, inline.pipeline().resolve(inline.luns()).blockingThreads(), "a file LUN's waiting calls");
    }

    @Test
    void zeroBackendThreadsRunCommandsInline() throws ConfigException {
        assertEquals(0, read("[pipeline]\nbackend_threads = 0\n").pipeline().backendThreads());
    }

    @Test
    void badDurationsAreRefused() {
        assertEquals("timeouts.idle", problem("[timeouts]\nidle = \"-5s\"\n").key());
        assertEquals("timeouts.idle", problem("[timeouts]\nidle = \"5 minutes\"\n").key());
    }

    // ---- [[lun]]

    @ParameterizedTest
    @ValueSource(ints = {-1, 16384})
    void lunNumbersOutside0To16383AreRefused(int number) {
        assertEquals("key 'lun[0].number': " + number + " is not allowed (an integer from 0 to 16383)",
                problem(LUN0.replace("number = 0", "number = " + number)).message());
    }

    @Test
    void aLunWithoutNumberOrSizeIsRefused() {
        assertEquals("test.toml:1: key 'lun[0].number' is missing (0 to 16383)",
                message(LUN0.replace("number = 0\n", "")));
        assertEquals("test.toml:1: key 'lun[0].size' is missing (the capacity, e.g. \"1GiB\")",
                message(LUN0.replace("size = \"1GiB\"\n", "")));
    }

    @Test
    void duplicateLunNumbersAreRefused() {
        ConfigException.Problem p = problem(LUN0 + LUN0.replace("lun0", "other"));
        assertEquals("test.toml:6: key 'lun[1].number': 0 is not allowed (each number once: lun[0] at line 1 is"
                + " LUN 0)", p.toString());
    }

    @Test
    void twoLunsOnOnePathAreRefused() {
        ConfigException.Problem p = problem(LUN0 + LUN0.replace("number = 0", "number = 1")
                .replace("\"lun0.img\"", "\"./x/../lun0.img\""));
        assertEquals("lun[1].path", p.key());
        assertEquals(7, p.line());
        assertEquals("key 'lun[1].path': \"./x/../lun0.img\" is not allowed (each path once: lun[0] at line 1 uses "
                + BASE.resolve("lun0.img") + ")", p.message());
    }

    @Test
    void sizesMustBeWholeBlocks() throws ConfigException {
        assertEquals("test.toml:4: key 'lun[0].size': \"1000\" is not allowed (a positive multiple of block_size"
                + " 512; bytes, or a string such as \"64MiB\" or \"4k\" (units B, KiB, MiB, GiB, TiB in any case;"
                + " K, M, G, T or KB, MB, GB, TB: the same))",
                message(LUN0.replace("\"1GiB\"", "\"1000\"")));
        assertEquals("lun[0].size", problem(LUN0.replace("\"1GiB\"", "0")).key());
        assertEquals("lun[0].size", problem(LUN0.replace("\"1GiB\"", "\"6KiB\"") + "block_size = 4096\n").key());
        assertEquals(8192, read(LUN0.replace("\"1GiB\"", "\"8KiB\"") + "block_size = 4096\n")
                .luns().getFirst().sizeBytes());
    }

    @ParameterizedTest
    @ValueSource(strings = {"file", "rocksdb"})
    void fileAndRocksdbLunsNeedAPath(String backend) {
        assertEquals("test.toml:1: key 'lun[0].path' is missing (a " + backend + " LUN needs one)",
                message("[[lun]]\nnumber = 0\nbackend = \"" + backend + "\"\nsize = 512\n"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"memory", "null"})
    void memoryAndNullLunsHaveNoPath(String backend) {
        assertEquals("test.toml:5: key 'lun[0].path': \"x\" is not allowed (none: a " + backend
                + " LUN keeps no file)",
                message("[[lun]]\nnumber = 0\nbackend = \"" + backend + "\"\nsize = 512\npath = \"x\"\n"));
    }

    @Test
    void backendsAndTheirOwnKeysAreChecked() {
        assertEquals("key 'lun[0].backend': \"nbd\" is not allowed (file, rocksdb, memory or null)",
                problem(LUN0 + "backend = \"nbd\"\n").message());
        assertEquals("key 'lun[0].block_cache': \"1MiB\" is not allowed (only for rocksdb LUNs, not file)",
                problem(LUN0 + "block_cache = \"1MiB\"\n").message());
        ConfigException.Problem directIo = problem(LUN0 + "backend = \"rocksdb\"\ndirect_io = false\n");
        assertEquals("key 'lun[0].direct_io': false is not allowed (only for file LUNs, not rocksdb)",
                directIo.message());
    }

    @Test
    void aBlockSizeThatWrapsToAnIntIsStillRefused() {
        assertEquals("lun[0].block_size", problem(LUN0 + "block_size = " + ((1L << 32) + 512) + "\n").key());
    }

    @Test
    void anUnknownWriteCacheIsRefused() {
        assertEquals("key 'lun[0].write_cache': \"writeback\" is not allowed (write-through or write-back)",
                problem(LUN0 + "write_cache = \"writeback\"\n").message());
    }

    @Test
    void aBadInitiatorIdIsNamedByItsIndex() {
        ConfigException.Problem p = problem(LUN0 + """
                allowed_initiators = [
                    "0x00000000000000000002c90300a1b2c3",
                    "0x0002c90300a1b2c3",
                ]
                """);
        assertEquals("lun[0].allowed_initiators[1]", p.key());
        assertEquals(7, p.line());   // the element's own line
        assertEquals("key 'lun[0].allowed_initiators[1]': \"0x0002c90300a1b2c3\" is not allowed (an initiator port"
                + " id: a string of 32 hex digits, e.g. \"0x00000000000000000000000000000001\")", p.message());
        assertEquals("lun[0].allowed_initiators", problem(LUN0 + "allowed_initiators = \"any\"\n").key());
        ConfigException e = assertThrows(ConfigException.class, () -> read(LUN0 + "allowed_initiators = [1, \"x\"]"));
        assertEquals(List.of("lun[0].allowed_initiators[0]", "lun[0].allowed_initiators[1]"),
                e.problems().stream().map(ConfigException.Problem::key).toList());
    }

    @Test
    void problemsAreCollectedButAValidLunIsNotReportedTwice() {
        ConfigException e = assertThrows(ConfigException.class, () -> read(LUN0 + """
                [[lun]]
                number = 1
                block_size = 1000
                size = "1GiB"
                path = "b.img"
                """));
        assertEquals(List.of("lun[1].block_size"), e.problems().stream().map(ConfigException.Problem::key).toList());
        assertFalse(e.getMessage().contains("lun[0]"));
    }

    @Test
    void channelsPerInitiatorDefaultToSixteenOrAllAndNeverExceedAll() throws ConfigException {
        assertEquals(16, read("").channel().maxChannelsPerInitiator());
        assertEquals(8, read("[channel]\nmax_channels = 8\n").channel().maxChannelsPerInitiator());
        assertEquals(3, read("[channel]\nmax_channels_per_initiator = 3\n").channel().maxChannelsPerInitiator());
        ConfigException.Problem p = problem("[channel]\nmax_channels = 8\nmax_channels_per_initiator = 9\n");
        assertEquals("test.toml:3: key 'channel.max_channels_per_initiator': 9 is not allowed (an integer from 1 to"
                + " max_channels = 8)", p.toString());
    }
}

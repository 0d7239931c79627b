package org.rdmablock.target.config;

import org.junit.jupiter.api.Test;
import org.rdmablock.target.config.LunConfig.BackendKind;
import org.rdmablock.target.config.ConfigKeys.Absent;
import org.rdmablock.target.config.ConfigKeys.Key;
import org.rdmablock.target.config.LunConfig.WriteCachePolicy;
import org.tomlj.Toml;
import org.tomlj.TomlArray;
import org.tomlj.TomlParseResult;
import org.tomlj.TomlTable;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The sample deploy/rdmablock.toml and the embedded default: both load, and the sample holds every key of
 * {@link ConfigKeys}, each with a comment and, where the table gives a fixed default, showing it.
 */
class ShippedConfigTest {
    /** Surefire runs in the module directory (target/); the sample is in the repository's deploy/. */
    static final Path SAMPLE = Path.of(System.getProperty("basedir", ".")).resolve("../deploy/rdmablock.toml")
            .normalize();

    @Test
    void theSampleLoads() throws ConfigException {
        TargetConfig c = TargetConfigReader.read(SAMPLE, TargetConfigReader.Storage.NOT_CHECKED);
        Path deploy = SAMPLE.toAbsolutePath().getParent();
        assertEquals(List.of(
                new LunConfig(0, BackendKind.FILE, deploy.resolve("data/lun0.img"), 1L << 30, 512, false,
                        WriteCachePolicy.WRITE_THROUGH, false, 0, List.of(), false, false),
                new LunConfig(1, BackendKind.ROCKSDB, deploy.resolve("data/lun1.rocksdb"), 16L << 30, 4096, false,
                        WriteCachePolicy.WRITE_THROUGH, false, 64L << 20, List.of(), false, false)), c.luns());
        assertEquals(new NvmeConfig(4420, List.of(new NvmeConfig.Subsystem("nqn.2026-12.org.example:disks",
                "027215b3d7b7e7a842f0", "rdmablock", List.of(), java.util.Set.of()))), c.nvme(),
                "the sample serves its LUNs over NVMe too, at the derived serial it shows");
        assertEquals(new PortsConfig(1, List.of(new PortsConfig.Port(2, "127.0.0.1", 5556, 1)),
                List.of(new PortsConfig.Group(1, PortsConfig.DEFAULT_STATE))), c.ports(),
                "and through a second SRP port, both in group 1, active/optimized");
    }

    @Test
    void theSampleShowsTheDefaults() throws Exception {
        TargetConfig sample = TargetConfigReader.read(SAMPLE, TargetConfigReader.Storage.NOT_CHECKED);
        TargetConfig defaults = TargetConfigReader.read("", "defaults", Path.of("/"));
        assertEquals(defaults.listen(), sample.listen());
        assertEquals(defaults.identity(), sample.identity());
        assertEquals(defaults.channel(), sample.channel());
        assertEquals(defaults.pipeline(), sample.pipeline());
        assertEquals(defaults.timeouts(), sample.timeouts());
        // lun 0 leaves nothing to default: each optional key it gives holds its default
        LunConfig given = sample.luns().getFirst();
        LunConfig defaulted = TargetConfigReader.read("[[lun]]\nnumber = 0\npath = \"data/lun0.img\"\nsize = \"1GiB\"\n",
                "defaults", SAMPLE.toAbsolutePath().getParent()).luns().getFirst();
        assertEquals(defaulted, given);
        // so does the [[subsystem]], its serial the derived one
        assertEquals(TargetConfigReader.read("[[subsystem]]\nnqn = \"nqn.2026-12.org.example:disks\"\n", "defaults",
                Path.of("/")).nvme().subsystems(), sample.nvme().subsystems());
        // and the [[port]] and [[port_group]], the port's address the derived one
        assertEquals(TargetConfigReader.read("[[port]]\nid = 2\nport = 5556\n[[port_group]]\nid = 1\n", "defaults",
                Path.of("/")).ports(), sample.ports());
    }

    /** Each key of the table where the sample first gives it: its table ([listen], or the first [[lun]] with it). */
    private static Map<Key<?>, TomlTable> sampleKeys() throws IOException {
        TomlParseResult sample = Toml.parse(Files.readString(SAMPLE));
        assertEquals(List.of(), sample.errors());
        Map<Key<?>, TomlTable> where = new LinkedHashMap<>();
        for (Key<?> key : ConfigKeys.ALL) {
            Object value = sample.get(List.of(key.table()));
            List<Object> tables = value instanceof TomlArray array ? array.toList() : List.of(value);
            tables.stream().map(TomlTable.class::cast).filter(t -> t.contains(List.of(key.name()))).findFirst()
                    .ifPresent(table -> where.put(key, table));
        }
        return where;
    }

    @Test
    void theSampleHoldsEveryKeyOfTheTableAndNoOther() throws Exception {
        assertEquals(ConfigKeys.ALL, List.copyOf(sampleKeys().keySet()), "keys the sample leaves out");
        TomlParseResult sample = Toml.parse(Files.readString(SAMPLE));
        Set<String> present = new TreeSet<>();
        for (String table : sample.keySet()) {
            Object value = sample.get(List.of(table));
            List<Object> entries = value instanceof TomlArray array ? array.toList() : List.of(value);
            entries.forEach(entry -> ((TomlTable) entry).keySet().forEach(k -> present.add(table + "." + k)));
        }
        assertEquals(new TreeSet<>(ConfigKeys.ALL.stream().map(Key::fullName).toList()), present);
    }

    @Test
    void theSampleShowsEveryFixedDefaultOfTheTable() throws Exception {
        Map<Key<?>, TomlTable> sample = sampleKeys();
        int fixed = 0;
        for (Key<?> key : ConfigKeys.ALL) {
            if (key.absent() instanceof Absent.Value<?> given) {
                Object shown = key.type().read(sample.get(key).get(List.of(key.name())));
                assertEquals(given.value(), shown, key + " = " + sample.get(key).get(List.of(key.name())));
                fixed++;
            }
        }
        assertEquals(36, fixed, "keys with a fixed default");   // the others: derived (8) or required (port.id,
                                                                // port_group.id, subsystem.nqn, number, path, size)
    }

    @Test
    void theSampleDocumentsEveryKeyAsTheTableDoes() throws Exception {
        List<String> lines = Files.readAllLines(SAMPLE);
        for (Map.Entry<Key<?>, TomlTable> e : sampleKeys().entrySet()) {
            Key<?> key = e.getKey();
            assertFalse(key.doc().isBlank(), key + " has no doc in the table");
            int line = e.getValue().inputPositionOf(List.of(key.name())).line();
            boolean commented = lines.get(line - 1).contains("#") || lines.get(line - 2).startsWith("#");
            assertTrue(commented, key + " at line " + line + " of the sample has no comment on or above it");
        }
    }

    @Test
    void theEmbeddedDefaultServesOneFileLunFromTheWorkingDirectory() {
        TargetConfig c = TargetConfigReader.embeddedDefault();
        assertEquals(TargetConfigReader.EMBEDDED_SOURCE, c.source());
        assertEquals(new ListenConfig("soft", "127.0.0.1", 5555), c.listen());
        assertEquals(List.of(new LunConfig(0, BackendKind.FILE, Path.of("").toAbsolutePath().resolve("data/lun0.img"),
                1L << 30, 512, false, WriteCachePolicy.WRITE_THROUGH, false, 0, List.of(), true, false)), c.luns());
    }
}

package org.rdmablock.target.config;

import org.junit.jupiter.api.Test;
import org.rdmablock.protocol.scsi.TargetPortGroups.AccessState;
import org.rdmablock.target.config.ConfigChange.LunChange;
import org.rdmablock.target.config.ConfigChange.PortStateChange;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What a reload (SIGHUP) would change, and what it must refuse. */
class ConfigChangeTest {
    private static final String A = "\"0x00000000000000000002c90300a1b2c3\"";
    private static final String B = "\"0x00000000000000000002c90300a1b2c4\"";
    private static final String RUNNING = """
            [timeouts]
            command = "30s"
            [[lun]]
            number = 0
            path = "a.img"
            size = "1GiB"
            allowed_initiators = [%s, %s]
            [[lun]]
            number = 1
            backend = "memory"
            size = "1MiB"
            """.formatted(A, B);

    private static TargetConfig config(String toml) throws ConfigException {
        return TargetConfigReader.read(toml, "test.toml", Path.of("/srv"));
    }

    private static ConfigChange change(String reread) throws ConfigException {
        return ConfigChange.between(config(RUNNING), config(reread));
    }

    @Test
    void theSameConfigChangesNothing() throws ConfigException {
        ConfigChange same = change(RUNNING);
        assertTrue(same.isEmpty());
        assertFalse(same.needsRestart());
        assertEquals("no change", same.summary());
        assertThrows(IllegalStateException.class, same::restartMessage);
    }

    @Test
    void reorderingTheAllowedInitiatorsChangesNothing() throws ConfigException {
        assertTrue(change(RUNNING.replace(A + ", " + B, B + ", " + A)).isEmpty());
    }

    @Test
    void lunsAddedRemovedAndChangedAreListedByNumber() throws ConfigException {
        ConfigChange c = change("""
                [[lun]]
                number = 5
                backend = "null"
                size = 512
                [[lun]]
                number = 0
                path = "b.img"
                size = "2GiB"
                read_only = true
                allowed_initiators = [%s, %s]
                """.formatted(A, B));
        assertEquals(List.of(5), c.added().stream().map(LunConfig::number).toList());
        assertEquals(List.of(1), c.removed().stream().map(LunConfig::number).toList());
        assertEquals(1, c.changed().size());
        LunChange lun0 = c.changed().getFirst();
        assertEquals(0, lun0.number());
        assertEquals(List.of("path", "size", "read_only"), lun0.changedKeys());
        assertFalse(lun0.accessOnly());
        assertEquals(List.of(), c.accessChanged());
        assertFalse(c.needsRestart());
        assertEquals("LUN 5 added; LUN 1 removed; LUN 0 changed (path, size, read_only)", c.summary());
    }

    @Test
    void anAccessListChangeIsSeenOnItsOwn() throws ConfigException {
        ConfigChange c = change(RUNNING.replace(A + ", " + B, A));
        LunChange lun0 = c.changed().getFirst();
        assertEquals(List.of("allowed_initiators"), lun0.changedKeys());
        assertTrue(lun0.accessOnly());
        assertEquals(List.of(lun0), c.accessChanged());

        ConfigChange both = change(RUNNING.replace(A + ", " + B, A).replace("\"1GiB\"", "\"2GiB\""));
        assertEquals(List.of("size", "allowed_initiators"), both.changed().getFirst().changedKeys());
        assertEquals(1, both.accessChanged().size());
        assertFalse(both.changed().getFirst().accessOnly());
    }

    @Test
    void everyLunFieldCountsAsAChange() throws ConfigException {
        String rocks = "[[lun]]\nnumber = 0\nbackend = \"rocksdb\"\npath = \"d\"\nsize = 4096\n";
        assertEquals(List.of("block_cache"), ConfigChange.between(config(rocks),
                config(rocks + "block_cache = \"1MiB\"\n")).changed().getFirst().changedKeys());
        String file = "[[lun]]\nnumber = 0\npath = \"d\"\nsize = 4096\n";
        assertEquals(List.of("backend", "block_cache"), ConfigChange.between(config(file), config(rocks))
                .changed().getFirst().changedKeys());
        assertEquals(List.of("block_size", "write_cache", "direct_io"), ConfigChange.between(config(file),
                config(file + "block_size = 4096\nwrite_cache = \"write-back\"\ndirect_io = true\n"))
                .changed().getFirst().changedKeys());
    }

    @Test
    void changedKeysAreKeysOfTheFile() throws ConfigException {
        LunChange everything = ConfigChange.between(
                config("[[lun]]\nnumber = 0\npath = \"a\"\nsize = 4096\n"),
                config("[[lun]]\nnumber = 0\nbackend = \"rocksdb\"\npath = \"b\"\nsize = 8192\nblock_size = 4096\n"
                        + "read_only = true\nwrite_cache = \"write-back\"\nallowed_initiators = [" + A + "]\n"))
                .changed().getFirst();
        List<String> lunKeys = TargetConfigReader.knownKeys().stream()
                .filter(k -> k.startsWith("lun.")).map(k -> k.substring(4)).toList();
        assertTrue(lunKeys.containsAll(everything.changedKeys()), everything.changedKeys().toString());
        assertEquals(8, everything.changedKeys().size());   // all but number and direct_io
    }

    @Test
    void timeoutsChangeWithoutARestart() throws ConfigException {
        ConfigChange c = change(RUNNING.replace("\"30s\"", "\"10s\""));
        assertTrue(c.timeoutsChanged());
        assertFalse(c.needsRestart());
        assertFalse(c.isEmpty());
        assertEquals("timeouts changed", c.summary());
    }

    @Test
    void listenTargetChannelAndPipelineNeedARestart() throws ConfigException {
        assertEquals(List.of("listen", "target"), change("[listen]\nport = 6000\n" + RUNNING).restartNeeded());
        assertEquals(List.of("target"),
                change("[target]\nid_ext = \"0x0000000000000001\"\n" + RUNNING).restartNeeded());
        assertEquals(List.of("channel", "pipeline"), change("[channel]\ncredits = 64\n" + RUNNING).restartNeeded());
        ConfigChange c = change("[pipeline]\ncompletions = \"event\"\n[channel]\nmax_io_size = \"2MiB\"\n" + RUNNING);
        assertEquals(List.of("channel", "pipeline"), c.restartNeeded());
        assertTrue(c.needsRestart());
        assertEquals("[channel], [pipeline] changed: a restart is needed to apply them (a reload applies only"
                + " [[lun]], [timeouts] and [[port_group]] states); the running config stays", c.restartMessage());
    }

    @Test
    void theMetricsEndpointNeedsARestart() throws ConfigException {
        assertEquals(List.of("metrics"), change("[metrics]\naddress = \"127.0.0.1:9464\"\n" + RUNNING).restartNeeded());
        assertEquals(List.of("metrics"), change("[metrics]\nsummary_interval = \"5s\"\n" + RUNNING).restartNeeded());
    }

    private static final String PORTS = """
            [[port]]
            id = 2
            port = 5556
            group = 2
            [[port_group]]
            id = 1
            [[port_group]]
            id = 2
            state = "standby"
            """;

    @Test
    void portGroupStatesChangeWithoutARestart() throws ConfigException {
        ConfigChange c = ConfigChange.between(config(PORTS + RUNNING),
                config(PORTS.replace("\"standby\"", "\"active/optimized\"") + RUNNING));
        assertTrue(c.portStatesChanged());
        assertFalse(c.needsRestart());
        assertFalse(c.isEmpty());
        assertEquals(List.of(new PortStateChange(2, AccessState.STANDBY, AccessState.ACTIVE_OPTIMIZED)),
                c.portStateChanges());
        assertEquals("port group 2: standby -> active/optimized", c.summary());
        assertTrue(ConfigChange.between(config(PORTS + RUNNING), config(PORTS + RUNNING)).isEmpty());
    }

    @Test
    void portsAddedMovedOrRegroupedNeedARestart() throws ConfigException {
        ConfigChange added = change(PORTS + RUNNING);
        assertEquals(List.of("port"), added.restartNeeded());
        assertFalse(added.portStatesChanged());
        assertEquals(List.of(), added.portStateChanges());
        assertEquals("[port] changed: a restart is needed to apply it (a reload applies only [[lun]], [timeouts] and [[port_group]] states);"
                + " the running config stays", added.restartMessage());
        assertEquals("port changed (needs a restart)", added.summary());
        TargetConfig running = config(PORTS + RUNNING);
        for (String reread : List.of(PORTS.replace("port = 5556", "port = 5557"), PORTS.replace("group = 2", "group = 1"),
                "[listen]\ngroup = 2\n" + PORTS, PORTS + "[[port_group]]\nid = 3\n",
                PORTS.replace("\"standby\"", "\"unavailable\"") + "[[port]]\nid = 3\nport = 5557\n")) {
            ConfigChange c = ConfigChange.between(running, config(reread + RUNNING));
            assertEquals(List.of("port"), c.restartNeeded(), reread);
            assertFalse(c.portStatesChanged(), "a state changed beside the layout is not applied alone: " + reread);
        }
    }
}

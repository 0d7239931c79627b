package org.rdmablock.target.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What {@code admin save} writes reads back as the configuration it was written from, every key of it. */
class TargetConfigWriterTest {
    @TempDir
    Path dir;

    @Test
    void everyKeyChangedFromItsDefaultReadsBackTheSame() throws Exception {
        final TargetConfig original = TargetConfigReader.read("""
                [listen]
                provider = "native"
                address = "::1"
                port = 4420
                group = 4
                [[port]]
                id = 3
                address = "::2"
                group = 5
                [[port]]
                id = 2
                port = 4422
                [[port_group]]
                id = 5
                state = "unavailable"
                [[port_group]]
                id = 4
                state = "active/non-optimized"
                [target]
                id_ext = "0x0002c90300a1b2c3"
                ioc_guid = "0x0002c90300ffffff"
                [channel]
                credits = 64
                max_iu_length = 4096
                max_io_size = "256KiB"
                immediate_data = false
                immediate_data_size = 100
                max_channels = 8
                max_channels_per_initiator = 2
                [pipeline]
                cq_size = 4096
                ring_size = 256
                backend_threads = 0
                blocking_threads = 3
                receive_queue = "srq"
                completions = "event"
                [timeouts]
                idle = "0.5ms"
                command = "1.0005s"
                [metrics]
                address = "[::1]:9464"
                summary_interval = "0"
                [admin]
                socket = "run/admin \\"quoted\\".sock"
                [nvme]
                subsystem = "nqn.2026-12.org.example:disks"
                port = 4421
                serial = "SN 12"
                allowed_hosts = ["nqn.2014-08.org.nvmexpress:uuid:1", "nqn.2014-08.org.nvmexpress:uuid:2"]
                [[subsystem]]
                nqn = "nqn.2026-12.org.example:db"
                model = "db volumes"
                namespaces = [9, 7]
                allowed_hosts = ["nqn.2014-08.org.nvmexpress:uuid:3"]
                [[lun]]
                number = 3
                path = "a.img"
                create = true
                grow = true
                size = "8MiB"
                block_size = 4096
                read_only = false
                write_cache = "write-back"
                direct_io = true
                allowed_initiators = ["0x0000000000000001000000000000000a", "0x0000000000000002000000000000000b"]
                [[lun]]
                number = 7
                backend = "rocksdb"
                path = "db"
                size = "1GiB"
                block_cache = "1MiB"
                read_only = true
                [[lun]]
                number = 9
                backend = "null"
                size = 1048576
                """, "original.toml", dir, TargetConfigReader.Storage.NOT_CHECKED);
        final String written = TargetConfigWriter.write(original, List.of("written by a test"));
        final TargetConfig back = TargetConfigReader.read(written, "back.toml", dir.resolve("elsewhere"),
                TargetConfigReader.Storage.NOT_CHECKED);
        assertTrue(written.startsWith("# written by a test\n"), written);
        assertEquals(original.listen(), back.listen());
        assertEquals(original.identity(), back.identity());
        assertEquals(original.channel(), back.channel());
        assertEquals(original.pipeline(), back.pipeline());
        assertEquals(original.timeouts(), back.timeouts());
        assertEquals(original.metrics(), back.metrics());
        assertEquals(original.admin(), back.admin(), "absolute: read from another folder, the same socket");
        assertEquals(original.luns(), back.luns(), "every LUN, its paths absolute");
        assertEquals(original.nvme(), back.nvme(), "[nvme]'s subsystem and the [[subsystem]], in order");
        assertEquals(2, back.nvme().subsystems().size());
        assertEquals(List.of(9, 7), back.nvme().subsystems().get(1).namespaces());
        assertEquals(4421, back.nvme().port());
        assertEquals(original.ports(), back.ports(), "[listen] group, the [[port]]s and [[port_group]]s, in order");
        assertEquals(new PortsConfig.Port(2, "::1", 4422, 1), back.ports().ports().get(1), "defaults written out");
        assertEquals(4, back.ports().listenGroup());
    }

    @Test
    void aDerivedImmediateDataSizeOfNoneReadsBack() throws Exception {
        final TargetConfig original = TargetConfigReader.read("[channel]\nimmediate_data = false\nmax_iu_length = 64\n",
                "i.toml", dir, TargetConfigReader.Storage.NOT_CHECKED);
        assertEquals(0, original.channel().immediateDataSize(), "derived: no room for any");
        assertEquals(original.channel(), TargetConfigReader.read(TargetConfigWriter.write(original, List.of()), "back.toml",
                dir, TargetConfigReader.Storage.NOT_CHECKED).channel());
    }

    @Test
    void theDefaultsReadBackAsDefaultsAndAChangeShows() throws Exception {
        final TargetConfig defaults = TargetConfigReader.read("[[lun]]\nnumber = 0\nbackend = \"memory\"\nsize = \"4MiB\"\n",
                "d.toml", dir, TargetConfigReader.Storage.NOT_CHECKED);
        final TargetConfig back = TargetConfigReader.read(TargetConfigWriter.write(defaults, List.of()), "back.toml", dir,
                TargetConfigReader.Storage.NOT_CHECKED);
        assertEquals(defaults.luns(), back.luns());
        assertEquals(defaults.pipeline(), back.pipeline(), "\"auto\" stays auto");
        assertEquals(defaults.metrics(), back.metrics(), "no endpoint stays none");
        assertEquals(defaults.admin(), back.admin());
        assertEquals(PortsConfig.NONE, back.ports(), "[listen] alone stays alone");
        final TargetConfig grown = TargetConfigReader.read(TargetConfigWriter.write(defaults, List.of())
                .replace("size = 4194304", "size = 8388608"), "g.toml", dir, TargetConfigReader.Storage.NOT_CHECKED);
        assertNotEquals(defaults.luns(), grown.luns(), "the size is the one written");
    }
}

package org.rdmablock.target.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rdmablock.target.config.TargetConfigReader.Storage;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The reader's look at the LUNs' files ({@link Storage#CHECKED}, as the daemon reads its config): a folder that does
 * not exist, a file or database that does not unless {@code create = true}, a file where a directory belongs and the
 * reverse: each refused on the path's line and key, and nothing made on disk.
 */
class LunStorageCheckTest {
    @TempDir
    Path dir;

    private TargetConfig read(String lun) throws ConfigException {
        return TargetConfigReader.read("[[lun]]\nnumber = 0\n" + lun, "test.toml", dir, Storage.CHECKED);
    }

    /** The one problem of {@code lun}: on its path's line (the third, after [[lun]] and number, or below). */
    private ConfigException.Problem refused(String lun) {
        ConfigException e = assertThrows(ConfigException.class, () -> read(lun));
        assertEquals(1, e.problems().size(), e.getMessage());
        ConfigException.Problem p = e.problems().getFirst();
        assertEquals("lun[0].path", p.key(), e.getMessage());
        assertEquals(3 + lun.lines().takeWhile(l -> !l.startsWith("path")).count(), p.line(), e.getMessage());
        return p;
    }

    @Test
    void aFolderThatDoesNotExistIsRefusedEvenWithCreate() throws ConfigException {
        ConfigException.Problem p = refused("path = \"mnt/data/lun0.img\"\ncreate = true\nsize = \"1MiB\"\n");
        assertTrue(p.message().contains("a path in an existing folder: " + dir.resolve("mnt/data") + " is not one; the"
                + " target makes no folder (a typo, or a disk not mounted yet?)"), p.message());
        assertFalse(Files.exists(dir.resolve("mnt")));
        refused("backend = \"rocksdb\"\npath = \"mnt/lun.rocksdb\"\ncreate = true\nsize = \"1MiB\"\n");
        // the text alone is a valid config: the other machine it is written for may have the folder
        TargetConfigReader.read("[[lun]]\nnumber = 0\npath = \"mnt/data/lun0.img\"\nsize = \"1MiB\"\n", "t", dir,
                Storage.NOT_CHECKED);
    }

    @Test
    void aMissingFileOrDatabaseIsRefusedUnlessCreateAsksForIt() throws ConfigException {
        ConfigException.Problem p = refused("path = \"lun0.img\"\nsize = \"1MiB\"\n");
        assertTrue(p.message().contains("an existing file: " + dir.resolve("lun0.img") + " does not exist (create = true"
                + " makes it, a new empty disk)"), p.message());
        p = refused("backend = \"rocksdb\"\npath = \"lun0.rocksdb\"\nsize = \"1MiB\"\n");
        assertTrue(p.message().contains("an existing database directory"), p.message());
        assertEquals(dir.resolve("lun0.img"), read("path = \"lun0.img\"\ncreate = true\nsize = \"1MiB\"\n").luns().getFirst()
                .path());
        assertFalse(Files.exists(dir.resolve("lun0.img")), "the reader makes nothing");
    }

    @Test
    void aReadOnlyLunIsNeverCreated() {
        ConfigException.Problem p = refused("path = \"lun0.img\"\ncreate = true\nread_only = true\nsize = \"1MiB\"\n");
        assertTrue(p.message().contains("does not exist (a read-only LUN is never created)"), p.message());
    }

    @Test
    void aFileLunIsAFileAndARocksDbLunADirectory() throws IOException, ConfigException {
        Files.createDirectory(dir.resolve("folder"));
        Files.writeString(dir.resolve("plain"), "x");
        ConfigException.Problem p = refused("path = \"folder\"\nsize = \"1MiB\"\n");
        assertTrue(p.message().contains("a file, not a directory"), p.message());
        p = refused("backend = \"rocksdb\"\npath = \"plain\"\nsize = \"1MiB\"\n");
        assertTrue(p.message().contains("a directory, not a file"), p.message());
        assertEquals(dir.resolve("folder"), read("backend = \"rocksdb\"\npath = \"folder\"\nsize = \"1MiB\"\n").luns()
                .getFirst().path());
    }

    @Test
    void createAndGrowAreOnlyForTheBackendsWithFiles() {
        ConfigException e = assertThrows(ConfigException.class, () -> read("backend = \"memory\"\ncreate = true\n"
                + "size = \"1MiB\"\n"));
        assertTrue(e.getMessage().contains("key 'lun[0].create'"), e.getMessage());
        e = assertThrows(ConfigException.class, () -> read("backend = \"rocksdb\"\npath = \"db\"\ncreate = true\n"
                + "grow = true\nsize = \"1MiB\"\n"));
        assertTrue(e.getMessage().contains("key 'lun[0].grow'") && e.getMessage().contains("only for file LUNs"),
                e.getMessage());
    }
}

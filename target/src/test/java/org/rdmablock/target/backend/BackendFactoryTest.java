package org.rdmablock.target.backend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rdmablock.target.config.LunConfig;
import org.rdmablock.target.config.LunConfig.BackendKind;
import org.rdmablock.target.config.LunConfig.WriteCachePolicy;

/**
 * Opening backends: each kind from its configuration, and every refusal with a message that names the LUN, its path
 * and the cause (the daemon prints it as it is).
 */
class BackendFactoryTest {
    private static final long SIZE = 1 << 20;

    @Test
    void eachKindOpensAsItsBackend(@TempDir Path dir) {
        try (LunBackend file = BackendFactory.open(TestLuns.lun(BackendKind.FILE, dir.resolve("f"), SIZE, 512));
             LunBackend rocksdb = BackendFactory.open(TestLuns.lun(BackendKind.ROCKSDB, dir.resolve("r"), SIZE, 512));
             LunBackend memory = BackendFactory.open(TestLuns.lun(BackendKind.MEMORY, null, SIZE, 512));
             LunBackend nothing = BackendFactory.open(TestLuns.lun(BackendKind.NULL, null, SIZE, 512))) {
            assertInstanceOf(FileBackend.class, file);
            assertInstanceOf(RocksDbBackend.class, rocksdb);
            assertInstanceOf(MemoryBackend.class, memory);
            assertInstanceOf(NullBackend.class, nothing);
            assertTrue(file.toString().contains(dir.resolve("f").toString()), file.toString());
        }
    }

    @Test
    void aMissingFolderIsNeverMadeEvenWithCreate(@TempDir Path dir) {
        Path folder = dir.resolve("not-mounted-yet");
        Path file = folder.resolve("lun.img");
        refused(TestLuns.lun(BackendKind.FILE, file, SIZE, 512), file, "ENOENT");
        Path db = folder.resolve("lun.rocksdb");
        refused(TestLuns.lun(BackendKind.ROCKSDB, db, SIZE, 512), db, "cannot open the RocksDB database");
        assertTrue(Files.notExists(folder), "no folder is made: a typo or a disk not mounted must not become a blank disk");
    }

    @Test
    void aMissingFileOrDatabaseIsMadeOnlyWhenAsked(@TempDir Path dir) {
        Path file = dir.resolve("lun.img");
        BackendOpenException e = refused(TestLuns.existing(TestLuns.lun(BackendKind.FILE, file, SIZE, 512)), file, "ENOENT");
        assertTrue(e.getMessage().contains("create = true makes a missing file"), e.getMessage());
        Path db = dir.resolve("lun.rocksdb");
        e = refused(TestLuns.existing(TestLuns.lun(BackendKind.ROCKSDB, db, SIZE, 512)), db, "no database directory there");
        assertTrue(e.getMessage().contains("create = true makes a new, empty one"), e.getMessage());
        assertTrue(Files.notExists(file) && Files.notExists(db), "nothing made");
        try (LunBackend made = BackendFactory.open(TestLuns.lun(BackendKind.FILE, file, SIZE, 512))) {
            assertEquals(SIZE, made.sizeBytes());
        }
        try (LunBackend again = BackendFactory.open(TestLuns.existing(TestLuns.lun(BackendKind.FILE, file, SIZE, 512)))) {
            assertEquals(SIZE, again.sizeBytes(), "once made, it opens without create");
        }
    }

    @Test
    void aPathUnderAFileIsRefusedWithTheCause(@TempDir Path dir) throws java.io.IOException {
        Path blocker = Files.writeString(dir.resolve("a-file"), "not a folder");
        Path path = blocker.resolve("lun.img");
        refused(TestLuns.lun(BackendKind.FILE, path, SIZE, 512), path, "ENOTDIR");
    }

    @Test
    void aDirectoryIsNotAFile(@TempDir Path dir) {
        refused(TestLuns.lun(BackendKind.FILE, dir, SIZE, 512), dir, "EISDIR");
    }

    @Test
    void aFileInAnUnwritableDirectoryIsRefused(@TempDir Path dir) throws Exception {
        assumeFalse("root".equals(System.getProperty("user.name")), "root writes anywhere");
        Path locked = Files.createDirectory(dir.resolve("locked"), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("r-xr-xr-x")));
        Path path = locked.resolve("lun.img");
        refused(TestLuns.lun(BackendKind.FILE, path, SIZE, 512), path, "EACCES");
    }

    @Test
    void anExistingFileSmallerThanConfiguredIsRefusedAndLeftAloneUnlessToldToGrow(@TempDir Path dir) throws Exception {
        Path path = dir.resolve("small.img");
        try (RandomAccessFile file = new RandomAccessFile(path.toFile(), "rw")) {
            file.setLength(SIZE / 2);
        }
        BackendOpenException e = refused(TestLuns.lun(BackendKind.FILE, path, SIZE, 512), path, "fewer than the configured " + SIZE);
        assertTrue(e.getMessage().contains(String.valueOf(SIZE / 2)) && e.getMessage().contains("grow = true"), e.getMessage());
        assertEquals(SIZE / 2, Files.size(path), "the refused file is not grown");
        refused(TestLuns.readOnly(TestLuns.growing(TestLuns.lun(BackendKind.FILE, path, SIZE, 512))), path, "fewer than");
        assertEquals(SIZE / 2, Files.size(path), "a read-only LUN's file is never grown");
        try (LunBackend grown = BackendFactory.open(TestLuns.growing(TestLuns.existing(TestLuns.lun(BackendKind.FILE, path,
                SIZE, 512))))) {
            assertEquals(SIZE, grown.sizeBytes());
        }
        assertEquals(SIZE, Files.size(path), "grow = true extends it");
    }

    @Test
    void anExistingFileLargerThanConfiguredIsRefusedAndLeftAlone(@TempDir Path dir) throws Exception {
        Path path = dir.resolve("large.img");
        try (RandomAccessFile file = new RandomAccessFile(path.toFile(), "rw")) {
            file.setLength(SIZE * 2);
        }
        BackendOpenException e = refused(TestLuns.growing(TestLuns.lun(BackendKind.FILE, path, SIZE, 512)), path,
                "more than the configured " + SIZE);
        assertTrue(e.getMessage().contains("size = " + SIZE * 2 + " serves all of it"), e.getMessage());
        assertEquals(SIZE * 2, Files.size(path), "the refused file is not cut");
    }

    @Test
    void anExistingEmptyFileIsSizedAsANewOneWhenCreateOrGrowSaysSo(@TempDir Path dir) throws Exception {
        Path path = Files.createFile(dir.resolve("empty.img"));
        refused(TestLuns.existing(TestLuns.lun(BackendKind.FILE, path, SIZE, 512)), path, "the file holds 0 bytes");
        try (LunBackend backend = BackendFactory.open(TestLuns.lun(BackendKind.FILE, path, SIZE, 512))) {
            assertEquals(SIZE, backend.sizeBytes());
        }
        assertEquals(SIZE, Files.size(path));
    }

    @Test
    void aReadOnlyLunIsNeverCreated(@TempDir Path dir) {
        Path file = dir.resolve("absent.img");
        refused(TestLuns.readOnly(TestLuns.lun(BackendKind.FILE, file, SIZE, 512)), file, "ENOENT");
        assertTrue(Files.notExists(file));
        Path db = dir.resolve("absent-db");
        refused(TestLuns.readOnly(TestLuns.lun(BackendKind.ROCKSDB, db, SIZE, 512)), db, "a read-only LUN is never created");
        assertTrue(Files.notExists(db));
    }

    @Test
    void directIoNeeds4096ByteBlocks(@TempDir Path dir) {
        Path path = dir.resolve("lun.img");
        refused(TestLuns.lun(BackendKind.FILE, path, SIZE, 512, false, WriteCachePolicy.WRITE_BACK, true), path,
                "directIo needs a block size of 4096");
    }

    @Test
    void aSizeThatIsNotWholeBlocksIsRefused(@TempDir Path dir) {
        Path path = dir.resolve("lun.img");
        refused(TestLuns.lun(BackendKind.FILE, path, SIZE + 100, 512), path, "not a positive multiple of the block size");
        BackendOpenException e = assertThrows(BackendOpenException.class,
                () -> BackendFactory.open(TestLuns.lun(BackendKind.MEMORY, null, 0, 4096)));
        assertTrue(e.getMessage().startsWith("LUN " + TestLuns.LUN + " (memory): "), e.getMessage());
    }

    @Test
    void aPathIsRequiredWhereTheDataLivesInOne() {
        BackendOpenException e = assertThrows(BackendOpenException.class,
                () -> BackendFactory.open(TestLuns.lun(BackendKind.ROCKSDB, null, SIZE, 512)));
        assertTrue(e.getMessage().contains("needs a path"), e.getMessage());
    }

    @Test
    void aRocksDbDirectoryInUseIsRefused(@TempDir Path dir) {
        Path db = dir.resolve("db");
        LunConfig config = TestLuns.lun(BackendKind.ROCKSDB, db, SIZE, 512);
        try (LunBackend first = BackendFactory.open(config)) {
            BackendOpenException e = refused(TestLuns.numbered(config, 9), db, "lock");
            assertTrue(e.getMessage().startsWith("LUN 9 (rocksdb "), e.getMessage());
        }
        BackendFactory.open(config).close(); // free again once the first is closed
    }

    @Test
    void aRocksDbDirectoryOfAnotherLunIsRefused(@TempDir Path dir) {
        Path db = dir.resolve("db");
        LunConfig config = TestLuns.lun(BackendKind.ROCKSDB, db, SIZE, 512);
        BackendFactory.open(config).close();
        refused(TestLuns.numbered(config, 4), db, "belongs to LUN " + TestLuns.LUN);
        try (LunBackend grown = BackendFactory.open(TestLuns.sized(config, 2 * SIZE))) {
            assertEquals(2 * SIZE, grown.sizeBytes(), "a thin LUN may grow");
        }
    }

    @Test
    void aRocksDbPathThatIsAFileIsRefused(@TempDir Path dir) throws Exception {
        Path file = Files.createFile(dir.resolve("not-a-dir"));
        refused(TestLuns.lun(BackendKind.ROCKSDB, file, SIZE, 512), file, "not a directory");
    }

    @Test
    void aMemoryLunLargerThanTheAddressSpaceIsRefused() {
        BackendOpenException e = assertThrows(BackendOpenException.class,
                () -> BackendFactory.open(TestLuns.lun(BackendKind.MEMORY, null, 1L << 60, 4096)));
        assertTrue(e.getMessage().contains("ENOMEM"), e.getMessage());
        assertTrue(e.getMessage().startsWith("LUN " + TestLuns.LUN + " (memory): "), e.getMessage());
    }

    /** Asserts that opening fails with a message naming the LUN, the path and {@code cause}. */
    private static BackendOpenException refused(LunConfig config, Path path, String cause) {
        BackendOpenException e = assertThrows(BackendOpenException.class, () -> BackendFactory.open(config).close());
        assertTrue(e.getMessage().startsWith("LUN " + config.number() + " ("), e.getMessage());
        assertTrue(e.getMessage().contains(path.toString()), e.getMessage());
        assertTrue(e.getMessage().contains(cause), e.getMessage());
        assertEquals(config.number(), e.lun());
        return e;
    }
}

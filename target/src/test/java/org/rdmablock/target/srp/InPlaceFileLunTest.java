package org.rdmablock.target.srp;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rdmablock.protocol.scsi.LogicalUnit;
import org.rdmablock.protocol.scsi.LogicalUnitConfig;
import org.rdmablock.protocol.scsi.LogicalUnitTable;
import org.rdmablock.protocol.scsi.LunAddress;
import org.rdmablock.protocol.scsi.ScsiStatus;
import org.rdmablock.target.backend.BackendFactory;
import org.rdmablock.target.backend.InPlaceStorage;
import org.rdmablock.target.backend.LunBackend;
import org.rdmablock.target.config.LunConfig;
import org.rdmablock.target.metrics.TargetStatistics;
import org.rdmablock.target.metrics.TargetStatistics.Count;

import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

/**
 * File LUNs on the soft provider send a READ's data straight from a read-only mapping of the file when the page
 * cache holds every page of it, and copy through pread otherwise; WRITEs always go through the data buffers and
 * pwrite. What must hold: pages not cached are not placed (the check is made, not assumed), WRITEs are not placed,
 * cached pages are, and a READ placed after a WRITE returns the written bytes (the mapping is shared with pwrite).
 */
class InPlaceFileLunTest {
    private static final int BLOCK = 512;
    private static final long SIZE = 8L << 20;
    private static final int MIB = 1 << 20;
    private final TargetStatistics statistics = new TargetStatistics();
    @TempDir
    Path dir;
    private LunBackend file;
    private SrpTarget target;

    @BeforeEach
    void start() {
        file = BackendFactory.open(new LunConfig(0, LunConfig.BackendKind.FILE, dir.resolve("lun0.img"), SIZE, BLOCK, false,
                LunConfig.WriteCachePolicy.WRITE_BACK, false, 0, List.of(), true, false));
        final LogicalUnitTable units = new LogicalUnitTable();
        units.add(new LogicalUnit(0, LogicalUnitConfig.builder().serialNumber("lun0").blockSize(BLOCK)
                .maxTransferBytes(MIB).build(), file));
        target = SrpTarget.start(SrpTargetTest.config(0), initiator -> units, statistics);
    }

    @AfterEach
    void stop() {
        if (target != null) {
            target.close();
        }
        file.close();
    }

    @Test
    void readsOfCachedPagesLeaveFromTheMappingAndWritesDoNot() {
        final InPlaceStorage storage = assertInstanceOf(InPlaceStorage.class, file, "the file backend offers its mapping");
        assertFalse(storage.placesWrites(), "but not for WRITEs");
        try (TestInitiator ini = TestInitiator.login(target.localAddress(), SrpTargetTest.ID_EXT, SrpTargetTest.IOC_GUID, 0x51, MIB)) {
            // blocks 4 MiB on: a hole of the new sparse file, never read, so not in the page cache
            ini.buffer().asSlice(0, MIB).fill((byte) 0x77);
            assertEquals(ScsiStatus.GOOD, ini.execute(lun(), TestInitiator.read16(8192, 2048), 0, MIB, 0, false).status());
            assertArrayEquals(new byte[MIB], TargetTestBase.bytesAt(ini, 0, MIB), "a hole reads as zeroes");
            assertEquals(0, statistics.count(Count.IN_PLACE), "pages not cached go through pread");

            final byte[] pattern = TargetTestBase.pattern(MIB, 5);
            ini.buffer().asSlice(0, MIB).copyFrom(MemorySegment.ofArray(pattern));
            assertEquals(ScsiStatus.GOOD, ini.execute(lun(), TestInitiator.write16(2048, 2048), MIB, 0, 0, false).status());
            assertEquals(0, statistics.count(Count.IN_PLACE), "a WRITE goes through the data buffers and pwrite");

            ini.buffer().asSlice(0, MIB).fill((byte) 0);
            assertEquals(ScsiStatus.GOOD, ini.execute(lun(), TestInitiator.read16(2048, 2048), 0, MIB, 0, false).status());
            assertArrayEquals(pattern, TargetTestBase.bytesAt(ini, 0, MIB), "the READ returns what was written");
            assertEquals(1, statistics.count(Count.IN_PLACE), "from the mapping: pwrite left the pages cached");

            final byte[] small = TargetTestBase.pattern(4096, 11);
            ini.buffer().asSlice(0, small.length).copyFrom(MemorySegment.ofArray(small));
            assertEquals(ScsiStatus.GOOD, ini.execute(lun(), TestInitiator.write16(2056, 8), 4096, 0, 0, true).status(),
                    "a WRITE with immediate data over part of it");
            assertEquals(ScsiStatus.GOOD, ini.execute(lun(), TestInitiator.read16(2052, 16), 0, 8192, 0, false).status());
            final byte[] expected = new byte[8192];
            System.arraycopy(pattern, 4 * BLOCK, expected, 0, 4 * BLOCK);
            System.arraycopy(small, 0, expected, 4 * BLOCK, 4096);
            System.arraycopy(pattern, 16 * BLOCK, expected, 12 * BLOCK, 4 * BLOCK);
            assertArrayEquals(expected, TargetTestBase.bytesAt(ini, 0, 8192), "the mapping shows the newer bytes");
            assertEquals(2, statistics.count(Count.IN_PLACE), "that READ was placed too");
            assertEquals(0, target.dataChunksInUse(), "no data buffer is held");
        }
    }

    private static long lun() {
        return LunAddress.encode(0);
    }
}

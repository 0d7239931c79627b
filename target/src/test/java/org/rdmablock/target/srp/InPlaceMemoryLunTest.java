package org.rdmablock.target.srp;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.rdmablock.protocol.scsi.BackendStatus;
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

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

/**
 * Memory LUNs on the soft provider are served in place: a WRITE's data-out lands by RDMA READ straight in the LUN's
 * memory and a READ's data-in leaves from it, with no copy through the data buffers. What must hold: the data is
 * right, the commands took that path (the in-place count), and a WRITE the unit refuses (read-only, past the end, data
 * offered beyond the blocks written) changes nothing, since its data would otherwise reach the LUN before the unit
 * looked at the command.
 */
class InPlaceMemoryLunTest {
    private static final int BLOCK = 512;
    private static final long SIZE = 4L << 20;
    private final TargetStatistics statistics = new TargetStatistics();
    private LunBackend writable;
    private LunBackend readOnly;
    private SrpTarget target;

    @BeforeEach
    void start() {
        writable = BackendFactory.open(memoryLun(0, false));
        readOnly = BackendFactory.open(memoryLun(1, true));
        final LogicalUnitTable units = new LogicalUnitTable();
        units.add(unit(0, writable, false));
        units.add(unit(1, readOnly, true));
        target = SrpTarget.start(SrpTargetTest.config(0), initiator -> units, statistics);
    }

    @AfterEach
    void stop() {
        if (target != null) {
            target.close();
        }
        writable.close();
        readOnly.close();
    }

    private static LunConfig memoryLun(final int number, final boolean readOnly) {
        return new LunConfig(number, LunConfig.BackendKind.MEMORY, null, SIZE, BLOCK, readOnly,
                LunConfig.WriteCachePolicy.WRITE_BACK, false, 0, List.of(), false, false);
    }

    private static LogicalUnit unit(final int number, final LunBackend backend, final boolean readOnly) {
        return new LogicalUnit(number, LogicalUnitConfig.builder().serialNumber("lun" + number).blockSize(BLOCK)
                .readOnly(readOnly).maxTransferBytes(1 << 20).build(), backend);
    }

    @Test
    void writesAndReadsMoveInPlaceWithTheRightBytes() {
        assertInstanceOf(InPlaceStorage.class, writable, "the memory backend offers its memory");
        try (TestInitiator ini = TestInitiator.login(target.localAddress(), SrpTargetTest.ID_EXT, SrpTargetTest.IOC_GUID, 0x41, 1 << 20)) {
            final byte[] pattern = TargetTestBase.pattern(1 << 20, 3);
            ini.buffer().asSlice(0, pattern.length).copyFrom(MemorySegment.ofArray(pattern));
            assertEquals(ScsiStatus.GOOD, ini.execute(lun(0), TestInitiator.write16(16, 2048), 1 << 20, 0, 0, false).status(),
                    "1 MiB WRITE by RDMA READ");
            assertArrayEquals(pattern, stored(writable, 16L * BLOCK, pattern.length), "the data is in the LUN's memory");
            final byte[] small = TargetTestBase.pattern(4096, 9);
            ini.buffer().asSlice(0, small.length).copyFrom(MemorySegment.ofArray(small));
            assertEquals(ScsiStatus.GOOD, ini.execute(lun(0), TestInitiator.write16(5000, 8), 4096, 0, 0, true).status(),
                    "WRITE with immediate data");
            assertArrayEquals(small, stored(writable, 5000L * BLOCK, small.length));
            assertEquals(2, statistics.count(Count.IN_PLACE), "both WRITEs moved in place");

            ini.buffer().asSlice(0, 1 << 20).fill((byte) 0);
            assertEquals(ScsiStatus.GOOD, ini.execute(lun(0), TestInitiator.read16(16, 2048), 0, 1 << 20, 0, false).status());
            assertArrayEquals(pattern, ini.buffer().asSlice(0, 1 << 20).toArray(ValueLayout.JAVA_BYTE), "READ returns what was written");
            assertEquals(3, statistics.count(Count.IN_PLACE), "so did the READ");
            assertEquals(0, target.dataChunksInUse(), "no data buffer was held");
        }
    }

    @Test
    void aWriteTheUnitRefusesLeavesTheLunUntouched() {
        try (TestInitiator ini = TestInitiator.login(target.localAddress(), SrpTargetTest.ID_EXT, SrpTargetTest.IOC_GUID, 0x42, 1 << 20)) {
            ini.buffer().asSlice(0, 1 << 20).fill((byte) 0x5A);
            final byte[] zeroes = new byte[65536];

            final TestInitiator.Response protectedWrite = ini.execute(lun(1), TestInitiator.write16(0, 128), 65536, 0, 0, false);
            assertEquals(ScsiStatus.CHECK_CONDITION, protectedWrite.status(), "a read-only LUN refuses the WRITE");
            assertEquals(0x27, Byte.toUnsignedInt(protectedWrite.sense()[12]), "WRITE PROTECTED");
            assertArrayEquals(zeroes, stored(readOnly, 0, zeroes.length), "and its memory is as it was");

            final long last = SIZE / BLOCK - 64;
            final TestInitiator.Response past = ini.execute(lun(0), TestInitiator.write16(last, 128), 65536, 0, 0, false);
            assertEquals(ScsiStatus.CHECK_CONDITION, past.status(), "a WRITE past the end is refused");
            assertEquals(0x21, Byte.toUnsignedInt(past.sense()[12]), "LBA OUT OF RANGE");
            assertArrayEquals(new byte[64 * BLOCK], stored(writable, last * BLOCK, 64 * BLOCK), "its first blocks were not written");

            // 64 KiB offered for a 32 KiB WRITE: the unit writes the 32 KiB, the rest must not land after them
            final TestInitiator.Response over = ini.execute(lun(0), TestInitiator.write16(1024, 64), 65536, 0, 0, false);
            assertEquals(ScsiStatus.GOOD, over.status());
            assertArrayEquals(new byte[32768], stored(writable, 1088L * BLOCK, 32768), "nothing beyond the blocks written");
            assertEquals((byte) 0x5A, stored(writable, 1024L * BLOCK, 1)[0], "the blocks written");
            assertEquals(0, statistics.count(Count.IN_PLACE), "none of these went in place");
        }
    }

    private static long lun(final int number) {
        return LunAddress.encode(number);
    }

    /** The LUN's bytes, read through the backend into a buffer of its own. */
    private static byte[] stored(final LunBackend backend, final long offset, final int length) {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment copy = arena.allocate(length);
            final AtomicReference<BackendStatus> status = new AtomicReference<>();
            backend.read(offset, copy, 0, length, status::set);
            assertEquals(BackendStatus.OK, status.get());
            return copy.toArray(ValueLayout.JAVA_BYTE);
        }
    }
}

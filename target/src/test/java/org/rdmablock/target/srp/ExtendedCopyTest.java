package org.rdmablock.target.srp;

import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.rdmablock.protocol.scsi.LogicalUnit;
import org.rdmablock.protocol.scsi.LogicalUnitConfig;
import org.rdmablock.protocol.scsi.LunAddress;
import org.rdmablock.protocol.scsi.ScsiStatus;
import org.rdmablock.target.backend.BackendFactory;
import org.rdmablock.target.backend.LunBackend;
import org.rdmablock.target.config.LunConfig;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.rdmablock.target.Waiting.waitUpTo;

/**
 * EXTENDED COPY through the target: the parameter list comes over the wire, the copy is made between the LUNs the
 * initiator sees (one of them served in place) without its data crossing the wire, and it is a write as COMPARE AND
 * WRITE's ordering counts writes: a copy onto blocks a COMPARE AND WRITE is between its read and its write waits for it.
 */
class ExtendedCopyTest extends TargetTestBase {
    private static final int BLOCK = 512;
    private static final long IN = 0x10_0000;
    private static final long IN_PLACE_LUN = LunAddress.encode(2);
    private LunBackend inPlace;

    @BeforeEach
    void addInPlaceLun() {
        inPlace = BackendFactory.open(new LunConfig(2, LunConfig.BackendKind.MEMORY, null, 4L << 20, BLOCK, false,
                LunConfig.WriteCachePolicy.WRITE_BACK, false, 0, List.of(), false, false));
        units.add(new LogicalUnit(2, LogicalUnitConfig.builder().serialNumber("lun2").blockSize(BLOCK)
                .maxTransferBytes(1 << 20).build(), inPlace));
    }

    @AfterEach
    void closeInPlaceLun() {
        inPlace.close();
    }

    /** The LUN's NAA designation descriptor, from its Device Identification page as the initiator reads it. */
    private static byte[] designation(final TestInitiator ini, final long lun) {
        final byte[] inquiry = ByteBuffer.allocate(6).put(0, (byte) 0x12).put(1, (byte) 1).put(2, (byte) 0x83)
                .putShort(3, (short) 255).array();
        assertEquals(ScsiStatus.GOOD, ini.execute(lun, inquiry, 0, 255, IN, false).status());
        final byte[] page = bytesAt(ini, IN, 255);
        return Arrays.copyOfRange(page, 4, 8 + page[7]);
    }

    /** EXTENDED COPY(LID1)'s list (SPC-4 6.4.3): header, two identification CSCDs, one block to block segment. */
    private static byte[] copyList(final byte[] source, final byte[] destination, final int blocks, final long sourceLba,
                                   final long destinationLba) {
        final ByteBuffer l = ByteBuffer.allocate(16 + 64 + 28).put(1, (byte) (3 << 3)).putShort(2, (short) 64).putInt(8, 28);
        l.put(16, (byte) 0xE4).put(20, source).putShort(46, (short) BLOCK);
        l.put(48, (byte) 0xE4).put(52, destination).putShort(78, (short) BLOCK);
        return l.put(80, (byte) 0x02).putShort(82, (short) 0x18).putShort(86, (short) 1).putShort(90, (short) blocks)
                .putLong(92, sourceLba).putLong(100, destinationLba).array();
    }

    private static byte[] extendedCopy(final int length) {
        return ByteBuffer.allocate(16).put(0, (byte) 0x83).putInt(10, length).array();
    }

    private static byte[] read(final TestInitiator ini, final long lun, final long lba, final int blocks) {
        assertEquals(ScsiStatus.GOOD, ini.execute(lun, TestInitiator.read16(lba, blocks), 0, blocks * BLOCK, IN, false).status());
        return bytesAt(ini, IN, blocks * BLOCK);
    }

    private static void write(final TestInitiator ini, final long lun, final long lba, final byte[] data) {
        fill(ini, IN, data);
        assertEquals(ScsiStatus.GOOD, ini.execute(lun, TestInitiator.write16(lba, data.length / BLOCK), data.length, 0, IN, false)
                .status());
    }

    @Test
    void copiesBetweenTheLunsTheInitiatorSeesInsideTheTarget() {
        final TestInitiator a = login(0xA);
        final byte[] data = pattern(600 * BLOCK, 3); // 300 KiB: two chunks of the copy buffer
        write(a, LUN0, 10, data);
        final byte[] list = copyList(designation(a, LUN0), designation(a, IN_PLACE_LUN), 600, 10, 1000);
        fill(a, 0, list);
        assertEquals(ScsiStatus.GOOD, a.execute(IN_PLACE_LUN, extendedCopy(list.length), list.length, 0, 0, false).status());
        assertArrayEquals(data, read(a, IN_PLACE_LUN, 1000, 600));

        // and back, sent to the destination this time
        final byte[] back = copyList(designation(a, IN_PLACE_LUN), designation(a, LUN0), 600, 1000, 5000);
        fill(a, 0, back);
        assertEquals(ScsiStatus.GOOD, a.execute(LUN0, extendedCopy(back.length), back.length, 0, 0, false).status());
        assertArrayEquals(data, read(a, LUN0, 5000, 600));
    }

    @Test
    void aCopyOntoBlocksACompareAndWriteHoldsWaitsForIt() {
        final TestInitiator a = login(0xA);
        final TestInitiator c = login(0xC);
        final long lba = 40;
        final byte[] start = pattern(BLOCK, 7);
        final byte[] fresh = pattern(BLOCK, 8);
        final byte[] copied = pattern(BLOCK, 9);
        write(a, LUN0, lba, start);
        write(a, IN_PLACE_LUN, 3, copied);
        final byte[] list = copyList(designation(c, IN_PLACE_LUN), designation(c, LUN0), 1, 3, lba);
        lun0Gate.hold();
        fill(a, 0, Arrays.copyOf(start, 2 * BLOCK));
        fill(a, BLOCK, fresh);
        a.submit(1, LUN0, ByteBuffer.allocate(16).put(0, (byte) 0x89).putLong(2, lba).put(13, (byte) 1).array(), 2 * BLOCK, 0, 0,
                false);
        waitUpTo(SETTLE, "the COMPARE AND WRITE's read waits in the backend").until(lun0Gate::heldCount, held -> held == 1);
        fill(c, 0, list);
        c.submit(2, IN_PLACE_LUN, extendedCopy(list.length), list.length, 0, 0, false); // sent to LUN 2, writing LUN 0
        assertThrows(ConditionTimeoutException.class, () -> waitUpTo(Duration.ofMillis(300), "the copy's write reaching LUN 0")
                .until(lun0Gate::heldCount, held -> held > 1), "the copy waits for the COMPARE AND WRITE");
        lun0Gate.release();
        assertEquals(ScsiStatus.GOOD, a.awaitResponse().status(), "the compare found what it read before the copy");
        assertEquals(ScsiStatus.GOOD, c.awaitResponse().status());
        assertArrayEquals(copied, read(a, LUN0, lba, 1), "the copy landed after the COMPARE AND WRITE");
    }
}

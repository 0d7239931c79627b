package org.rdmablock.protocol.scsi;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.rdmablock.protocol.scsi.LunHarness.assertCheckCondition;
import static org.rdmablock.protocol.scsi.LunHarness.assertGood;

/**
 * The commands Linux sends when it attaches a disk, in order, with the conclusions its code draws from
 * each answer (drivers/scsi/scsi_scan.c scsi_probe_lun and scsi_report_lun_scan, scsi.c scsi_attach_vpd
 * and scsi_report_opcode, sd.c sd_revalidate_disk: sd_spinup_disk, sd_read_capacity/read_capacity_16,
 * sd_read_block_provisioning, sd_read_block_limits, sd_read_block_characteristics,
 * sd_read_write_protect_flag, sd_read_cache_type, sd_read_io_hints, sd_read_write_same, then the
 * partition scan's READ of block 0).
 */
class SdAttachSequenceTest {

    @ParameterizedTest
    @ValueSource(ints = {512, 4096})
    void attachesAsAThinSolidStateWriteBackDiskWithUnmapAndWriteSame(int blockSize) {
        LunHarness h = new LunHarness(LunHarness.config(blockSize).build(), 1L << 26);

        // scsi_probe_lun: INQUIRY 36, then again with the length the additional length asks for.
        assertGood(h.run(Cdbs.inquiry(36), 36));
        int responseLength = (h.dataIn()[4] & 0xFF) + 5;
        assertEquals(0, h.dataIn()[0] & 0x1F, "TYPE_DISK");
        assertGood(h.run(Cdbs.inquiry(responseLength), responseLength));
        int scsiLevel = (h.dataIn()[2] & 0x07) + 1;
        assertTrue(scsiLevel > 4, "scsi_level > SCSI_SPC_2: READ CAPACITY(16) first, VPD pages, RSOC");

        // scsi_report_lun_scan.
        assertGood(h.run(Cdbs.reportLuns(8 * 512 + 8), 8 * 512 + 8));
        assertEquals(8, ByteBuffer.wrap(h.dataIn()).getInt(0));

        // scsi_attach_vpd: page 0, then the listed pages it knows.
        assertGood(h.run(Cdbs.inquiryVpd(0x00, 255), 255));
        byte[] pages = h.dataIn();
        for (int i = 4; i < 4 + pages[3]; i++) {
            assertGood(h.run(Cdbs.inquiryVpd(pages[i] & 0xFF, 255), 255));
        }

        // sd_spinup_disk.
        assertGood(h.run(Cdbs.testUnitReady(), 0));

        // read_capacity_16.
        assertGood(h.run(Cdbs.readCapacity16(32), 32));
        ByteBuffer rc = ByteBuffer.wrap(h.dataIn());
        assertEquals(blockSize, rc.getInt(8));
        boolean lbpme = (rc.get(14) & 0x80) != 0;
        boolean lbprz = (rc.get(14) & 0x40) != 0;
        assertTrue(lbpme && lbprz);

        // sd_read_block_provisioning / limits / characteristics.
        assertGood(h.run(Cdbs.inquiryVpd(0xB2, 255), 255));
        boolean lbpu = (h.dataIn()[5] & 0x80) != 0;
        boolean lbpws = (h.dataIn()[5] & 0x40) != 0;
        assertGood(h.run(Cdbs.inquiryVpd(0xB0, 255), 255));
        ByteBuffer limits = ByteBuffer.wrap(h.dataIn());
        long maxUnmapBlocks = limits.getInt(20) != 0 && limits.getInt(24) != 0 ? Integer.toUnsignedLong(limits.getInt(20)) : 0;
        assertTrue(lbpu && maxUnmapBlocks > 0, "sd_discard_mode: SD_LBP_UNMAP");
        assertTrue(limits.getInt(8) > 0, "max_xfer_blocks");
        assertGood(h.run(Cdbs.inquiryVpd(0xB1, 255), 255));
        assertEquals(1, ByteBuffer.wrap(h.dataIn()).getShort(4), "non-rotational");

        // sd_read_write_protect_flag: MODE SENSE(6) all pages, 4 bytes.
        assertGood(h.run(Cdbs.modeSense6(false, 0, 0x3F, 0, 4), 4));
        assertEquals(0, h.dataIn()[2] & 0x80, "Write Protect is off");

        // sd_read_cache_type: caching page, 4 bytes first, then the full length.
        assertGood(h.run(Cdbs.modeSense6(false, 0, 0x08, 0, 4), 4));
        int length = (h.dataIn()[0] & 0xFF) + 1;
        assertGood(h.run(Cdbs.modeSense6(false, 0, 0x08, 0, length), length));
        byte[] cache = h.dataIn();
        int offset = 4 + (cache[3] & 0xFF);
        assertEquals(0x08, cache[offset] & 0x3F);
        assertTrue((cache[offset + 2] & 0x04) != 0, "Write cache: enabled");
        assertTrue((cache[2] & 0x10) != 0, "supports DPO and FUA");

        // sd_read_io_hints: the IO advice hints grouping subpage is optional; an ILLEGAL REQUEST is fine.
        assertCheckCondition(h.run(Cdbs.modeSense10(false, true, 0, 0x0A, 0x05, 512), 512), SenseCode.INVALID_FIELD_IN_CDB);

        // sd_read_write_same: RSOC must work (else no_report_opcodes), WRITE SAME(16) and (10) supported.
        assertGood(h.run(Cdbs.reportOpcodes(1, false, 0x12, 0, 512), 512));
        assertGood(h.run(Cdbs.reportOpcodes(1, false, 0x93, 0, 512), 512));
        assertEquals(3, h.dataIn()[1] & 3, "ws16");
        assertGood(h.run(Cdbs.reportOpcodes(1, false, 0x41, 0, 512), 512));
        assertEquals(3, h.dataIn()[1] & 3, "ws10");
        assertTrue(lbprz && lbpws, "sd_config_write_same: SD_ZERO_WS16_UNMAP");

        // The partition scan reads the first blocks; discard and write-zeroes then use what was found.
        assertGood(h.run(Cdbs.rw10(false, 0, 8, false), 8 * blockSize));
        byte[] list = Cdbs.unmapList(0, 8);
        assertGood(h.run(Cdbs.unmap(list.length), list, 0));
        assertGood(h.run(Cdbs.writeSame16(8, 8, true, false), new byte[blockSize], 0));
        assertGood(h.run(Cdbs.synchronizeCache10(0, 0), 0));
    }
}

package org.rdmablock.protocol.scsi;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.rdmablock.protocol.scsi.LunHarness.assertCheckCondition;
import static org.rdmablock.protocol.scsi.LunHarness.assertGood;

/** Standard INQUIRY data and the VPD pages 0x00, 0x80, 0x83, 0xB0, 0xB1, 0xB2 (SPC-4 6.6, 7.8; SBC-3 6.6). */
class LogicalUnitInquiryTest {
    private static final byte[] NAA6 = {0x60, 0x01, 0x40, 0x50, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};

    private final LunHarness h = new LunHarness(LunHarness.config(512).vendor("ACME").product("BLOCK")
            .revision("1.2").serialNumber("abc123").naaIdentifier(NAA6).physicalBlockExponent(3)
            .maxTransferBytes(1 << 20).optimalTransferBytes(1 << 17).maxUnmapBlocks(1 << 20)
            .maxUnmapDescriptors(16).maxWriteSameBlocks(1 << 18).build(), 1 << 24);

    @Test
    void standardData() {
        ScsiCommand c = h.run(Cdbs.inquiry(96), 96);
        assertGood(c);
        byte[] d = h.dataIn();
        assertEquals(74, d.length);
        assertEquals(ResidualKind.UNDERFLOW, c.dataInResidualKind());
        assertEquals(22, c.dataInResidual());
        assertEquals(0x00, d[0], "direct-access block device, connected");
        assertEquals(0x00, d[1], "not removable");
        assertEquals(0x06, d[2], "SPC-4");
        assertEquals(0x12, d[3], "HISUP, response data format 2");
        assertEquals(69, d[4], "additional length");
        assertEquals(0x18, d[5], "TPGS 01b (implicit ALUA), 3PC (EXTENDED COPY)");
        assertEquals(0x02, d[7], "CMDQUE");
        assertEquals("ACME    ", ascii(d, 8, 8));
        assertEquals("BLOCK           ", ascii(d, 16, 16));
        assertEquals("1.2 ", ascii(d, 32, 4));
        ByteBuffer b = ByteBuffer.wrap(d);
        assertEquals(0x0460, b.getShort(60), "SPC-4 version descriptor");
        assertEquals(0x0940, b.getShort(64), "SRP version descriptor");
    }

    @Test
    void allocationLengthTruncatesAsLinuxFirstAsksFor36Bytes() {
        ScsiCommand c = h.run(Cdbs.inquiry(36), 36);
        assertGood(c);
        assertEquals(36, c.dataInLength());
        assertEquals(ResidualKind.NONE, c.dataInResidualKind());
        assertEquals(69, h.dataIn()[4], "the additional length still tells the full size");
    }

    @Test
    void supportedVpdPages() {
        assertGood(h.run(Cdbs.inquiryVpd(0x00, 255), 255));
        assertArrayEquals(new byte[]{0, 0, 0, 7, 0x00, (byte) 0x80, (byte) 0x83, (byte) 0x8F, (byte) 0xB0, (byte) 0xB1, (byte) 0xB2},
                h.dataIn());
    }

    @Test
    void unitSerialNumber() {
        assertGood(h.run(Cdbs.inquiryVpd(0x80, 255), 255));
        byte[] d = h.dataIn();
        assertEquals((byte) 0x80, d[1]);
        assertEquals(6, d[3]);
        assertEquals("abc123", ascii(d, 4, 6));
    }

    @Test
    void deviceIdentificationCarriesTheNaaDesignatorFirst() {
        assertGood(h.run(Cdbs.inquiryVpd(0x83, 255), 255));
        byte[] d = h.dataIn();
        assertEquals((byte) 0x83, d[1]);
        int pageLength = ByteBuffer.wrap(d).getShort(2);
        assertEquals(d.length - 4, pageLength);
        assertEquals(0x01, d[4], "binary code set");
        assertEquals(0x03, d[5], "logical unit association, NAA designator");
        assertEquals(16, d[7]);
        assertArrayEquals(NAA6, Arrays.copyOfRange(d, 8, 24));
        assertEquals(0x02, d[24], "ASCII code set");
        assertEquals(0x01, d[25], "T10 vendor ID designator");
        assertEquals(8 + 6, d[27]);
        assertEquals("ACME    abc123", ascii(d, 28, 14));
    }

    @Test
    void defaultNaaIsLocallyAssignedAndStable() {
        byte[] a = LogicalUnitConfig.builder().serialNumber("x1").build().naaIdentifier();
        byte[] b = LogicalUnitConfig.builder().serialNumber("x1").build().naaIdentifier();
        byte[] c = LogicalUnitConfig.builder().serialNumber("x2").build().naaIdentifier();
        assertEquals(8, a.length);
        assertEquals(0x30, a[0] & 0xF0, "NAA type 3, locally assigned");
        assertArrayEquals(a, b);
        assertEquals(false, Arrays.equals(a, c));
    }

    @Test
    void blockLimits() {
        assertGood(h.run(Cdbs.inquiryVpd(0xB0, 255), 255));
        ByteBuffer b = ByteBuffer.wrap(h.dataIn());
        assertEquals(64, b.capacity());
        assertEquals((byte) 0xB0, b.get(1));
        assertEquals(0x3C, b.getShort(2));
        assertEquals(0x01, b.get(4), "WSNZ");
        assertEquals(8, b.getShort(6), "optimal granularity = physical/logical");
        assertEquals(2048, b.getInt(8), "max transfer blocks");
        assertEquals(256, b.getInt(12), "optimal transfer blocks");
        assertEquals(1 << 20, b.getInt(20), "max unmap LBA count");
        assertEquals(16, b.getInt(24), "max unmap descriptors");
        assertEquals(8, b.getInt(28), "optimal unmap granularity");
        assertEquals(1 << 18, b.getLong(36), "max write same length");
    }

    @Test
    void blockDeviceCharacteristicsSaysSolidState() {
        assertGood(h.run(Cdbs.inquiryVpd(0xB1, 255), 255));
        ByteBuffer b = ByteBuffer.wrap(h.dataIn());
        assertEquals(64, b.capacity());
        assertEquals(1, b.getShort(4), "non-rotating");
        assertEquals(0, b.get(8) & 0x30, "not zoned");
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void logicalBlockProvisioning(boolean thin) {
        LunHarness unit = new LunHarness(LunHarness.config(4096).thinProvisioning(thin).build(), 1 << 24);
        assertGood(unit.run(Cdbs.inquiryVpd(0xB2, 255), 255));
        byte[] d = unit.dataIn();
        assertEquals(8, d.length);
        assertEquals(thin ? 0xE4 : 0, d[5] & 0xFF, "LBPU, LBPWS, LBPWS10, LBPRZ");
        assertEquals(thin ? 2 : 0, d[6] & 0x07, "provisioning type");
        assertGood(unit.run(Cdbs.inquiryVpd(0xB0, 255), 255));
        assertEquals(thin ? 256 : 0, ByteBuffer.wrap(unit.dataIn()).getInt(24), "unmap descriptors only when thin");
    }

    @Test
    void unsupportedPageAndObsoleteBitsAreInvalidFields() {
        ScsiCommand c = h.run(Cdbs.inquiryVpd(0x89, 255), 255);
        assertCheckCondition(c, SenseCode.INVALID_FIELD_IN_CDB);
        assertEquals(2, LunHarness.fieldPointer(c));
        byte[] pageWithoutEvpd = Cdbs.inquiry(36);
        pageWithoutEvpd[2] = (byte) 0x80;
        assertCheckCondition(h.run(pageWithoutEvpd, 36), SenseCode.INVALID_FIELD_IN_CDB);
        byte[] cmddt = Cdbs.inquiry(36);
        cmddt[1] = 0x02;
        assertCheckCondition(h.run(cmddt, 36), SenseCode.INVALID_FIELD_IN_CDB);
    }

    private static String ascii(byte[] d, int from, int length) {
        return new String(d, from, length, StandardCharsets.US_ASCII);
    }
}

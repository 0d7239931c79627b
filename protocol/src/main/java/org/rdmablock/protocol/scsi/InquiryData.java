package org.rdmablock.protocol.scsi;

import java.lang.foreign.MemorySegment;

import static org.rdmablock.protocol.scsi.BigEndian.put16;
import static org.rdmablock.protocol.scsi.BigEndian.put32;
import static org.rdmablock.protocol.scsi.BigEndian.put64;
import static org.rdmablock.protocol.scsi.BigEndian.put8;
import static org.rdmablock.protocol.scsi.BigEndian.putAscii;

/**
 * Builds INQUIRY data for a direct-access block device: the standard data (SPC-4 6.6.2: implicit ALUA, third-party
 * copy) and the VPD
 * pages this target offers (SPC-4 7.8, SBC-3 6.6): 0x00 supported pages, 0x80 unit serial number, 0x83
 * device identification, 0x8F third-party copy, 0xB0 block limits, 0xB1 block device characteristics, 0xB2 logical block
 * provisioning. These are the pages Linux's scsi_attach_vpd and sd fetch when a disk attaches.
 */
final class InquiryData {
    /** Length of the standard data built here: through the eight version descriptors. */
    static final int STANDARD_LENGTH = 74;
    /** Peripheral qualifier 011b, device type 0x1F: no logical unit at this LUN (SPC-4 6.6.2). */
    static final int NO_LOGICAL_UNIT = 0x7F;
    /** The VPD pages listed in page 0x00, in ascending order. */
    static final int[] SUPPORTED_PAGES = {0x00, 0x80, 0x83, 0x8F, 0xB0, 0xB1, 0xB2};

    private static final int VERSION_SPC4 = 0x06;
    /** Device Identification designator types of a target port (SPC-4 table 487). */
    private static final int DESIGNATOR_RELATIVE_TARGET_PORT = 0x4;
    private static final int DESIGNATOR_TARGET_PORT_GROUP = 0x5;
    /** Version descriptors: SAM-5, SPC-4, SBC-3, SRP (SPC-4 table 49, "no version claimed" codes). */
    private static final int[] VERSION_DESCRIPTORS = {0x00A0, 0x0460, 0x04C0, 0x0940};

    private InquiryData() {
    }

    /** Writes the standard INQUIRY data and returns its length. */
    static int standard(MemorySegment dst, LogicalUnitConfig config) {
        put8(dst, 0, 0x00);                  // peripheral qualifier 0, direct-access block device
        put8(dst, 1, 0x00);                  // not removable
        put8(dst, 2, VERSION_SPC4);
        put8(dst, 3, 0x12);                  // HISUP, response data format 2
        put8(dst, 4, STANDARD_LENGTH - 5);   // additional length
        put8(dst, 5, 0x18);                  // TPGS 01b: implicit ALUA; 3PC: EXTENDED COPY is served
        put8(dst, 7, 0x02);                  // CMDQUE: tagged command queuing
        putAscii(dst, 8, config.vendor(), 8);
        putAscii(dst, 16, config.product(), 16);
        putAscii(dst, 32, config.revision(), 4);
        for (int i = 0; i < VERSION_DESCRIPTORS.length; i++) {
            put16(dst, 58 + 2L * i, VERSION_DESCRIPTORS[i]);
        }
        return STANDARD_LENGTH;
    }

    /** Standard data for a LUN with no logical unit behind it (Linux then ignores the LUN). */
    static int absent(MemorySegment dst) {
        put8(dst, 0, NO_LOGICAL_UNIT);
        put8(dst, 2, VERSION_SPC4);
        put8(dst, 3, 0x12);
        put8(dst, 4, 31);
        return 36;
    }

    /** Writes VPD page {@code page} and returns its length, or -1 if the page is not offered. */
    static int vpd(MemorySegment dst, int page, LogicalUnit unit, Nexus nexus) {
        LogicalUnitConfig config = unit.config();
        put8(dst, 0, 0x00);
        put8(dst, 1, page);
        return switch (page) {
            case 0x00 -> {
                for (int i = 0; i < SUPPORTED_PAGES.length; i++) {
                    put8(dst, 4 + i, SUPPORTED_PAGES[i]);
                }
                yield withLength(dst, SUPPORTED_PAGES.length);
            }
            case 0x80 -> {
                putAscii(dst, 4, config.serialNumber(), config.serialNumber().length());
                yield withLength(dst, config.serialNumber().length());
            }
            case 0x83 -> withLength(dst, deviceIdentification(dst, config, nexus));
            case 0x8F -> withLength(dst, ThirdPartyCopyData.vpdPage(dst));
            case 0xB0 -> blockLimits(dst, unit);
            case 0xB1 -> {
                put16(dst, 4, 0x0001);       // medium rotation rate: non-rotating (solid state)
                yield withLength(dst, 0x3C);
            }
            case 0xB2 -> logicalBlockProvisioning(dst, unit);
            default -> -1;
        };
    }

    private static int withLength(MemorySegment dst, int pageLength) {
        put16(dst, 2, pageLength);
        return 4 + pageLength;
    }

    /**
     * An NAA designator (what udev and Linux's wwid use), then a T10 vendor ID designator, then, for a command that names
     * its I_T nexus, the relative target port and target port group designators of its target port (what Linux's ALUA
     * handler and multipath group paths by).
     */
    private static int deviceIdentification(MemorySegment dst, LogicalUnitConfig config, Nexus nexus) {
        int at = 4;
        put8(dst, at, 0x01);                 // code set: binary
        put8(dst, at + 1, 0x03);             // association: logical unit; designator type: NAA
        put8(dst, at + 3, config.naaLength());
        for (int i = 0; i < config.naaLength(); i++) {
            put8(dst, at + 4 + i, config.naaByte(i));
        }
        at += 4 + config.naaLength();
        String serial = config.serialNumber();
        put8(dst, at, 0x02);                 // code set: ASCII
        put8(dst, at + 1, 0x01);             // association: logical unit; designator type: T10 vendor ID
        put8(dst, at + 3, 8 + serial.length());
        putAscii(dst, at + 4, config.vendor(), 8);
        putAscii(dst, at + 12, serial, serial.length());
        at += 4 + 8 + serial.length();
        if (nexus != null) {
            int port = nexus.relativeTargetPort();
            at = targetPortDesignator(dst, at, nexus, DESIGNATOR_RELATIVE_TARGET_PORT, port);
            at = targetPortDesignator(dst, at, nexus, DESIGNATOR_TARGET_PORT_GROUP, nexus.registry().portGroups().groupOf(port));
        }
        return at - 4;
    }

    /**
     * A 4-byte designator of the nexus's target port (association 01b), its protocol identifier valid (PIV): a
     * relative target port (type 4h) or its target port group (5h), the value in the last two bytes.
     */
    private static int targetPortDesignator(MemorySegment dst, int at, Nexus nexus, int type, int value) {
        put8(dst, at, nexus.protocolIdentifier() << 4 | 0x01);    // protocol identifier; code set: binary
        put8(dst, at + 1, 0x80 | 0x10 | type);                    // PIV, association: target port, the type
        put8(dst, at + 3, 4);
        put16(dst, at + 6, value);
        return at + 8;
    }

    private static int blockLimits(MemorySegment dst, LogicalUnit unit) {
        LogicalUnitConfig config = unit.config();
        boolean thin = config.thinProvisioning();
        int physicalRatio = 1 << config.physicalBlockExponent();
        put8(dst, 4, 0x01);                                          // WSNZ: WRITE SAME of 0 blocks is refused
        put8(dst, 5, unit.maxCompareAndWriteBlocks());               // maximum compare and write length
        put16(dst, 6, physicalRatio);                                // optimal transfer length granularity
        put32(dst, 8, unit.maxTransferBlocks());                     // maximum transfer length
        put32(dst, 12, config.optimalTransferBytes() / config.blockSize());
        put32(dst, 20, thin ? config.maxUnmapBlocks() : 0);          // maximum unmap LBA count
        put32(dst, 24, thin ? config.maxUnmapDescriptors() : 0);     // maximum unmap block descriptor count
        put32(dst, 28, thin ? physicalRatio : 0);                    // optimal unmap granularity
        put64(dst, 36, config.maxWriteSameBlocks());                 // maximum write same length
        return withLength(dst, 0x3C);
    }

    private static int logicalBlockProvisioning(MemorySegment dst, LogicalUnit unit) {
        if (unit.config().thinProvisioning()) {
            // LBPU (UNMAP), LBPWS (WRITE SAME(16) UNMAP), LBPWS10, and LBPRZ when unmapped blocks read zero.
            put8(dst, 5, 0x80 | 0x40 | 0x20 | (unit.unmappedReadsZero() ? 0x04 : 0));
            put8(dst, 6, 0x02);              // provisioning type: thin
        }
        return withLength(dst, 4);
    }
}

package org.rdmablock.initiator;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Reads the fields discovery needs out of SCSI replies (pure functions, used on the connecting thread).
 *
 * <p>The data-in of REPORT LUNS (SPC-5 6.33), standard INQUIRY (SPC-5 6.6.2), the unit serial number VPD page (80h,
 * SPC-5 7.7.17), the block limits VPD page (B0h, SBC-4 6.6.4) and READ CAPACITY(16) (SBC-4 5.20.2), the way
 * {@link ScsiCdb} writes the CDBs. These allocate (the text fields): discovery only.
 */
final class DiscoveryReplies {
    private static final ValueLayout.OfLong BE_LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt BE_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /** REPORT LUNS: the LUN LIST LENGTH, then 4 reserved bytes, then 8 bytes per LUN. */
    static final int LUN_LIST_LENGTH_OFFSET = 0;
    static final int LUN_LIST_OFFSET = 8;
    static final int LUN_ENTRY_LENGTH = 8;
    /** Standard INQUIRY: the PERIPHERAL DEVICE TYPE (low 5 bits of byte 0); 0 is a direct-access block device. */
    static final int DIRECT_ACCESS_BLOCK_DEVICE = 0x00;
    private static final int PERIPHERAL_DEVICE_TYPE_MASK = 0x1F;
    private static final int VENDOR_OFFSET = 8;
    private static final int VENDOR_LENGTH = 8;
    private static final int PRODUCT_OFFSET = 16;
    private static final int PRODUCT_LENGTH = 16;
    private static final int REVISION_OFFSET = 32;
    private static final int REVISION_LENGTH = 4;
    /** VPD pages: the page length's low byte; the page's contents from byte 4. */
    private static final int VPD_PAGE_LENGTH_LOW_OFFSET = 3;
    private static final int VPD_HEADER_LENGTH = 4;
    /** Block limits VPD page: MAXIMUM TRANSFER LENGTH, in blocks (0: none reported). */
    private static final int MAXIMUM_TRANSFER_LENGTH_OFFSET = 8;
    /** READ CAPACITY(16): RETURNED LOGICAL BLOCK ADDRESS (the last LBA) and LOGICAL BLOCK LENGTH IN BYTES. */
    private static final int LAST_LBA_OFFSET = 0;
    private static final int BLOCK_LENGTH_OFFSET = 8;

    private DiscoveryReplies() {
    }

    /** REPORT LUNS: bytes of LUN entries the target has (more than were asked for, when the list was cut). */
    static int lunListLength(final byte[] report) {
        return MemorySegment.ofArray(report).get(BE_INT, LUN_LIST_LENGTH_OFFSET);
    }

    /** REPORT LUNS: the 8-byte LUN field at byte {@code at} of the reply. */
    static long lunEntry(final byte[] report, final int at) {
        return MemorySegment.ofArray(report).get(BE_LONG, at);
    }

    static int peripheralDeviceType(final byte[] inquiry) {
        return inquiry[0] & PERIPHERAL_DEVICE_TYPE_MASK;
    }

    static String vendor(final byte[] inquiry) {
        return text(inquiry, VENDOR_OFFSET, VENDOR_LENGTH);
    }

    static String product(final byte[] inquiry) {
        return text(inquiry, PRODUCT_OFFSET, PRODUCT_LENGTH);
    }

    static String revision(final byte[] inquiry) {
        return text(inquiry, REVISION_OFFSET, REVISION_LENGTH);
    }

    /** VPD 80h: the PRODUCT SERIAL NUMBER, as long as the page says (and the reply holds). */
    static String unitSerialNumber(final byte[] page) {
        final int length = Math.min(Byte.toUnsignedInt(page[VPD_PAGE_LENGTH_LOW_OFFSET]), page.length - VPD_HEADER_LENGTH);
        return text(page, VPD_HEADER_LENGTH, length);
    }

    /** VPD B0h: the MAXIMUM TRANSFER LENGTH in blocks (0: no limit reported). */
    static long maximumTransferBlocks(final byte[] page) {
        return Integer.toUnsignedLong(MemorySegment.ofArray(page).get(BE_INT, MAXIMUM_TRANSFER_LENGTH_OFFSET));
    }

    /** READ CAPACITY(16): the last LBA. */
    static long lastLba(final byte[] capacity) {
        return MemorySegment.ofArray(capacity).get(BE_LONG, LAST_LBA_OFFSET);
    }

    /** READ CAPACITY(16): bytes per block. */
    static int blockLength(final byte[] capacity) {
        return MemorySegment.ofArray(capacity).get(BE_INT, BLOCK_LENGTH_OFFSET);
    }

    /** ASCII text padded with spaces (SPC-5 4.3.1), trimmed; cut to what the reply holds. */
    private static String text(final byte[] data, final int at, final int length) {
        return new String(data, at, Math.max(0, Math.min(length, data.length - at)), StandardCharsets.US_ASCII).trim();
    }
}

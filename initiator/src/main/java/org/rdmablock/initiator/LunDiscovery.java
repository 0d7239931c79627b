package org.rdmablock.initiator;

import org.rdmablock.protocol.scsi.LunAddress;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Finds the target's logical units this initiator may see, once, on the connecting thread.
 *
 * <p>REPORT LUNS, then per LUN TEST UNIT READY (a unit attention is taken and cleared), standard INQUIRY
 * (direct-access block devices only), READ CAPACITY(16), the unit serial number and the block limits' maximum transfer
 * length. Each command goes through the channels like any request and is waited for.
 */
final class LunDiscovery {
    /** How long a discovery command may take. */
    static final long TIMEOUT_SECONDS = 30;
    /** Bytes one command carries when a LUN reports no maximum transfer length, and at most. */
    static final int DEFAULT_MAX_TRANSFER = 1 << 20;
    private static final int REPORT_LUNS_LENGTH = 4096;
    private static final int INQUIRY_LENGTH = 96;
    private static final int READ_CAPACITY_LENGTH = 32;
    private static final int SERIAL_PAGE = 0x80;
    private static final int SERIAL_PAGE_LENGTH = 255;
    private static final int BLOCK_LIMITS_PAGE = 0xB0;
    private static final int BLOCK_LIMITS_PAGE_LENGTH = 64;
    private static final int UNIT_ATTENTION = 0x06;

    private final RequestRouter router;
    private final CompletionWaiter waiter;

    LunDiscovery(final RequestRouter router, final CompletionWaiter waiter) {
        this.router = router;
        this.waiter = waiter;
    }

    /** What discovery found out about one LUN. */
    record Found(int number, long address, int blockSize, long blockCount, int maxTransferBytes, String vendor,
                 String product, String revision, String serial) {
    }

    /** Writes a CDB into {@code cdb}; returns its length. */
    @FunctionalInterface
    interface CdbWriter {
        int write(byte[] cdb);
    }

    /** The LUNs, in the order REPORT LUNS gives them. */
    List<Found> discover() throws SrpIoException {
        final byte[] report = run(0, cdb -> ScsiCdb.reportLuns(cdb, REPORT_LUNS_LENGTH), IoRequest.DATA_IN,
                REPORT_LUNS_LENGTH, "REPORT LUNS");
        final int listBytes = DiscoveryReplies.lunListLength(report);
        final List<Found> found = new ArrayList<>();
        for (int at = DiscoveryReplies.LUN_LIST_OFFSET; at < DiscoveryReplies.LUN_LIST_OFFSET + listBytes
                && at + DiscoveryReplies.LUN_ENTRY_LENGTH <= report.length; at += DiscoveryReplies.LUN_ENTRY_LENGTH) {
            final long field = DiscoveryReplies.lunEntry(report, at);
            try {
                run(field, ScsiCdb::testUnitReady, IoRequest.NO_DATA, 0, "TEST UNIT READY");
            } catch (ScsiStatusException e) {
                if (e.senseKey() != UNIT_ATTENTION) { // reported once and cleared: the next command goes on
                    throw e;
                }
            }
            final byte[] inquiry = run(field, cdb -> ScsiCdb.inquiry(cdb, false, 0, INQUIRY_LENGTH), IoRequest.DATA_IN,
                    INQUIRY_LENGTH, "INQUIRY");
            if (DiscoveryReplies.peripheralDeviceType(inquiry) != DiscoveryReplies.DIRECT_ACCESS_BLOCK_DEVICE) {
                continue;
            }
            final byte[] capacity = run(field, cdb -> ScsiCdb.readCapacity16(cdb, READ_CAPACITY_LENGTH),
                    IoRequest.DATA_IN, READ_CAPACITY_LENGTH, "READ CAPACITY(16)");
            final int blockSize = DiscoveryReplies.blockLength(capacity);
            final String serial = serial(field);
            final int maxTransfer = maxTransferBytes(field, blockSize);
            found.add(new Found(LunAddress.decode(field), field, blockSize, DiscoveryReplies.lastLba(capacity) + 1,
                    maxTransfer, DiscoveryReplies.vendor(inquiry), DiscoveryReplies.product(inquiry),
                    DiscoveryReplies.revision(inquiry), serial));
        }
        return Collections.unmodifiableList(found);
    }

    private String serial(final long field) throws SrpIoException {
        try {
            return DiscoveryReplies.unitSerialNumber(run(field, cdb -> ScsiCdb.inquiry(cdb, true, SERIAL_PAGE,
                    SERIAL_PAGE_LENGTH), IoRequest.DATA_IN, SERIAL_PAGE_LENGTH, "INQUIRY VPD 80h"));
        } catch (ScsiStatusException e) {
            return "";
        }
    }

    /** The block limits page's MAXIMUM TRANSFER LENGTH in bytes, capped at {@link #DEFAULT_MAX_TRANSFER} (also without one). */
    private int maxTransferBytes(final long field, final int blockSize) throws SrpIoException {
        try {
            final long blocks = DiscoveryReplies.maximumTransferBlocks(run(field, cdb -> ScsiCdb.inquiry(cdb, true,
                    BLOCK_LIMITS_PAGE, BLOCK_LIMITS_PAGE_LENGTH), IoRequest.DATA_IN, BLOCK_LIMITS_PAGE_LENGTH,
                    "INQUIRY VPD B0h"));
            if (blocks > 0 && blocks * blockSize < DEFAULT_MAX_TRANSFER) {
                return (int) (blocks * blockSize);
            }
        } catch (ScsiStatusException e) {
            // no block limits page: the default
        }
        return DEFAULT_MAX_TRANSFER;
    }

    /** Runs one CDB-given command and waits for it; returns its data-in (the whole buffer). */
    private byte[] run(final long lunField, final CdbWriter cdb, final int direction, final int length, final String what)
            throws SrpIoException {
        final byte[] data = new byte[Math.max(length, 1)];
        final CompletableFuture<Long> done = new CompletableFuture<>();
        router.submitRaw(lunField, r -> {
            r.cdbLength = cdb.write(r.cdb);
            r.rawDirection = direction;
            r.rawLength = length;
        }, direction == IoRequest.NO_DATA ? null : MemorySegment.ofArray(data), done, CompletionWaiter.COMPLETE_FUTURE);
        waiter.await(done, what, TIMEOUT_SECONDS);
        return data;
    }
}

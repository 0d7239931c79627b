package org.rdmablock.protocol.scsi;

import java.lang.foreign.MemorySegment;

import static org.rdmablock.protocol.scsi.BigEndian.put16;
import static org.rdmablock.protocol.scsi.BigEndian.put32;
import static org.rdmablock.protocol.scsi.BigEndian.put8;

/**
 * REPORT SUPPORTED OPERATION CODES (SPC-4 6.35): the command table with each command's CDB usage data,
 * the bits of the CDB the unit looks at. Linux's sd asks with the one-command format for INQUIRY, WRITE
 * SAME(16), WRITE SAME(10) and the security protocols when a disk attaches, and uses WRITE SAME only if
 * it is reported supported.
 */
final class SupportedOperationCodes {
    private static final int SUPPORTED = 0x03;
    private static final int NOT_SUPPORTED = 0x01;
    private static final int TIMEOUTS_LENGTH = 12;
    private static final int NO_SERVICE_ACTION = -1;

    /** One supported command: opcode, service action (or none) and CDB usage data (byte 0 is the opcode). */
    private record Entry(int opcode, int serviceAction, int[] usage) {
    }

    private static Entry entry(int opcode, int... usage) {
        return new Entry(opcode, NO_SERVICE_ACTION, usage);
    }

    private static Entry entryWithServiceAction(int opcode, int serviceAction, int... usage) {
        return new Entry(opcode, serviceAction, usage);
    }

    private static final Entry[] TABLE = {
            entry(ScsiOpcode.TEST_UNIT_READY, 0x00, 0, 0, 0, 0, 0x00),
            entry(ScsiOpcode.REQUEST_SENSE, 0x03, 0x01, 0, 0, 0xFF, 0x00),
            entry(ScsiOpcode.READ_6, 0x08, 0x1F, 0xFF, 0xFF, 0xFF, 0x00),
            entry(ScsiOpcode.WRITE_6, 0x0A, 0x1F, 0xFF, 0xFF, 0xFF, 0x00),
            entry(ScsiOpcode.INQUIRY, 0x12, 0x01, 0xFF, 0xFF, 0xFF, 0x00),
            entry(ScsiOpcode.MODE_SELECT_6, 0x15, 0x10, 0, 0, 0xFF, 0x00),
            entry(ScsiOpcode.MODE_SENSE_6, 0x1A, 0x08, 0xFF, 0xFF, 0xFF, 0x00),
            entry(ScsiOpcode.RESERVE_6, 0x16, 0, 0, 0, 0, 0x00),
            entry(ScsiOpcode.RELEASE_6, 0x17, 0, 0, 0, 0, 0x00),
            entry(ScsiOpcode.START_STOP_UNIT, 0x1B, 0x01, 0, 0x0F, 0xF7, 0x00),
            entry(ScsiOpcode.PREVENT_ALLOW_MEDIUM_REMOVAL, 0x1E, 0, 0, 0, 0x03, 0x00),
            entry(ScsiOpcode.READ_CAPACITY_10, 0x25, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0x01, 0x00),
            entry(ScsiOpcode.READ_10, 0x28, 0x18, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0xFF, 0xFF, 0x00),
            entry(ScsiOpcode.WRITE_10, 0x2A, 0x18, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0xFF, 0xFF, 0x00),
            entry(ScsiOpcode.VERIFY_10, 0x2F, 0x06, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0xFF, 0xFF, 0x00),
            entry(ScsiOpcode.SYNCHRONIZE_CACHE_10, 0x35, 0x02, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0xFF, 0xFF, 0x00),
            entry(ScsiOpcode.WRITE_SAME_10, 0x41, 0x08, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0xFF, 0xFF, 0x00),
            entry(ScsiOpcode.UNMAP, 0x42, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0x00),
            entry(ScsiOpcode.MODE_SELECT_10, 0x55, 0x10, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0x00),
            entry(ScsiOpcode.MODE_SENSE_10, 0x5A, 0x18, 0xFF, 0xFF, 0, 0, 0, 0xFF, 0xFF, 0x00),
            entryWithServiceAction(ScsiOpcode.PERSISTENT_RESERVE_IN, PersistentReserveData.READ_KEYS,
                    0x5E, 0x1F, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0x00),
            entryWithServiceAction(ScsiOpcode.PERSISTENT_RESERVE_IN, PersistentReserveData.READ_RESERVATION,
                    0x5E, 0x1F, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0x00),
            entryWithServiceAction(ScsiOpcode.PERSISTENT_RESERVE_IN, PersistentReserveData.REPORT_CAPABILITIES,
                    0x5E, 0x1F, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0x00),
            entryWithServiceAction(ScsiOpcode.PERSISTENT_RESERVE_IN, PersistentReserveData.READ_FULL_STATUS,
                    0x5E, 0x1F, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0x00),
            entryWithServiceAction(ScsiOpcode.PERSISTENT_RESERVE_OUT, PersistentReserveData.REGISTER,
                    0x5F, 0x1F, 0xFF, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0x00),
            entryWithServiceAction(ScsiOpcode.PERSISTENT_RESERVE_OUT, PersistentReserveData.RESERVE,
                    0x5F, 0x1F, 0xFF, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0x00),
            entryWithServiceAction(ScsiOpcode.PERSISTENT_RESERVE_OUT, PersistentReserveData.RELEASE,
                    0x5F, 0x1F, 0xFF, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0x00),
            entryWithServiceAction(ScsiOpcode.PERSISTENT_RESERVE_OUT, PersistentReserveData.CLEAR,
                    0x5F, 0x1F, 0xFF, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0x00),
            entryWithServiceAction(ScsiOpcode.PERSISTENT_RESERVE_OUT, PersistentReserveData.PREEMPT,
                    0x5F, 0x1F, 0xFF, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0x00),
            entryWithServiceAction(ScsiOpcode.PERSISTENT_RESERVE_OUT, PersistentReserveData.PREEMPT_AND_ABORT,
                    0x5F, 0x1F, 0xFF, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0x00),
            entryWithServiceAction(ScsiOpcode.PERSISTENT_RESERVE_OUT, PersistentReserveData.REGISTER_AND_IGNORE_EXISTING_KEY,
                    0x5F, 0x1F, 0xFF, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0x00),
            entryWithServiceAction(ScsiOpcode.PERSISTENT_RESERVE_OUT, PersistentReserveData.REGISTER_AND_MOVE,
                    0x5F, 0x1F, 0xFF, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0x00),
            entryWithServiceAction(ScsiOpcode.EXTENDED_COPY, ScsiOpcode.SA_EXTENDED_COPY_LID1,
                    0x83, 0x1F, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0x00),
            entryWithServiceAction(ScsiOpcode.RECEIVE_COPY_RESULTS, ScsiOpcode.SA_RECEIVE_COPY_OPERATING_PARAMETERS,
                    0x84, 0x1F, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0x00),
            entry(ScsiOpcode.READ_16, 0x88, 0x18, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                    0xFF, 0xFF, 0xFF, 0xFF, 0, 0x00),
            entry(ScsiOpcode.WRITE_16, 0x8A, 0x18, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                    0xFF, 0xFF, 0xFF, 0xFF, 0, 0x00),
            entry(ScsiOpcode.COMPARE_AND_WRITE, 0x89, 0x18, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                    0, 0, 0, 0xFF, 0, 0x00),
            entry(ScsiOpcode.VERIFY_16, 0x8F, 0x06, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                    0xFF, 0xFF, 0xFF, 0xFF, 0, 0x00),
            entry(ScsiOpcode.SYNCHRONIZE_CACHE_16, 0x91, 0x02, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                    0xFF, 0xFF, 0xFF, 0xFF, 0, 0x00),
            entry(ScsiOpcode.WRITE_SAME_16, 0x93, 0x09, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                    0xFF, 0xFF, 0xFF, 0xFF, 0, 0x00),
            entryWithServiceAction(ScsiOpcode.SERVICE_ACTION_IN_16, ScsiOpcode.SA_READ_CAPACITY_16,
                    0x9E, 0x1F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01, 0x00),
            entryWithServiceAction(ScsiOpcode.SERVICE_ACTION_IN_16, ScsiOpcode.SA_GET_LBA_STATUS,
                    0x9E, 0x1F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0x00),
            entry(ScsiOpcode.REPORT_LUNS, 0xA0, 0, 0xFF, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0x00),
            entryWithServiceAction(ScsiOpcode.MAINTENANCE_IN, ScsiOpcode.SA_REPORT_TARGET_PORT_GROUPS,
                    0xA3, 0xFF, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0x00),
            entryWithServiceAction(ScsiOpcode.MAINTENANCE_IN, ScsiOpcode.SA_REPORT_SUPPORTED_OPERATION_CODES,
                    0xA3, 0x1F, 0x87, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0x00),
            entry(ScsiOpcode.READ_12, 0xA8, 0x18, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0x00),
            entry(ScsiOpcode.WRITE_12, 0xAA, 0x18, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0x00),
    };

    private SupportedOperationCodes() {
    }

    /** Largest response: the all-commands format with command timeouts descriptors. */
    static int maxLength() {
        return 4 + TABLE.length * (8 + TIMEOUTS_LENGTH);
    }

    /**
     * Builds the response for the decoded request into {@code dst}; returns its length, or -1 when the
     * request is invalid for the opcode (wrong reporting option for a command with or without service
     * actions), which is INVALID FIELD IN CDB.
     */
    static int write(MemorySegment dst, CdbDecoder cdb) {
        boolean timeouts = cdb.has(CdbDecoder.RCTD);
        int options = cdb.reportingOptions();
        if (options == 0) {
            return writeAll(dst, timeouts);
        }
        int opcode = cdb.requestedOpcode();
        boolean hasServiceActions = hasServiceActions(opcode);
        Entry found;
        if (options == 1) {
            if (hasServiceActions) {
                return -1;
            }
            found = find(opcode, NO_SERVICE_ACTION);
        } else if (options == 2) {
            if (!hasServiceActions) {
                return -1;
            }
            found = find(opcode, cdb.requestedServiceAction());
        } else {
            int serviceAction = cdb.requestedServiceAction();
            found = hasServiceActions ? find(opcode, serviceAction)
                    : serviceAction == 0 ? find(opcode, NO_SERVICE_ACTION) : null;
        }
        if (found == null) {
            put8(dst, 1, NOT_SUPPORTED);
            return 4;
        }
        int cdbSize = found.usage().length;
        put8(dst, 0, timeouts ? 0x80 : 0);   // CTDP
        put8(dst, 1, SUPPORTED);
        put16(dst, 2, cdbSize);
        for (int i = 0; i < cdbSize; i++) {
            put8(dst, 4 + i, found.usage()[i]);
        }
        int length = 4 + cdbSize;
        if (timeouts) {
            length += timeoutsDescriptor(dst, length);
        }
        return length;
    }

    private static int writeAll(MemorySegment dst, boolean timeouts) {
        int at = 4;
        for (Entry e : TABLE) {
            put8(dst, at, e.opcode());
            put16(dst, at + 2, e.serviceAction() == NO_SERVICE_ACTION ? 0 : e.serviceAction());
            put8(dst, at + 5, (timeouts ? 0x02 : 0) | (e.serviceAction() == NO_SERVICE_ACTION ? 0 : 0x01));
            put16(dst, at + 6, e.usage().length);
            at += 8;
            if (timeouts) {
                at += timeoutsDescriptor(dst, at);
            }
        }
        put32(dst, 0, at - 4);
        return at;
    }

    /** A command timeouts descriptor with no timeouts specified (SPC-4 6.35.4). */
    private static int timeoutsDescriptor(MemorySegment dst, int at) {
        put16(dst, at, TIMEOUTS_LENGTH - 2);
        return TIMEOUTS_LENGTH;
    }

    private static boolean hasServiceActions(int opcode) {
        return opcode == ScsiOpcode.SERVICE_ACTION_IN_16 || opcode == ScsiOpcode.MAINTENANCE_IN
                || opcode == ScsiOpcode.PERSISTENT_RESERVE_IN || opcode == ScsiOpcode.PERSISTENT_RESERVE_OUT
                || opcode == ScsiOpcode.EXTENDED_COPY || opcode == ScsiOpcode.RECEIVE_COPY_RESULTS;
    }

    private static Entry find(int opcode, int serviceAction) {
        for (Entry e : TABLE) {
            if (e.opcode() == opcode && e.serviceAction() == serviceAction) {
                return e;
            }
        }
        return null;
    }
}

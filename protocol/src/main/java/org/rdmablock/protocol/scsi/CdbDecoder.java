package org.rdmablock.protocol.scsi;

import java.lang.foreign.MemorySegment;

/**
 * Decodes a CDB into its command kind and fields, or into the SCSI error it must be answered with
 * ({@link SenseCode#INVALID_COMMAND_OPERATION_CODE}, or {@link SenseCode#INVALID_FIELD_IN_CDB} with the
 * byte and bit of the offending field). Range checks that need the logical unit (LBA against capacity,
 * transfer length against limits) are left to {@link LogicalUnit}.
 *
 * <p>A reusable flyweight-style decoder: {@link #decode} overwrites the fields, allocates nothing and
 * never throws for any CDB content; it reads only the {@code length} bytes it is given.
 */
public final class CdbDecoder {
    /** NACA bit of the control byte (SAM-5 5.2): we implement no ACA, so it must be zero. */
    private static final int CONTROL_NACA = 0x04;

    private MemorySegment cdb;
    private long base;

    private CommandKind kind;
    private int opcode;
    private int cdbLength;
    private int serviceAction;
    private long lba;
    private long transferLength;
    private long allocationLength;
    private long parameterListLength;
    private int flags;
    private int pageCode;
    private int subpageCode;
    private int pageControl;
    private int selectReport;
    private int reportingOptions;
    private int requestedOpcode;
    private int requestedServiceAction;
    private int byteCheck;
    private int reservationScope;
    private int reservationType;

    private SenseCode error;
    private int errorField;
    private int errorBit;

    /** Flag bits set by {@link #decode}; test with {@link #has(int)}. */
    public static final int FUA = 1;
    public static final int DPO = 1 << 1;
    public static final int UNMAP_BIT = 1 << 2;
    public static final int NDOB = 1 << 3;
    public static final int IMMED = 1 << 4;
    public static final int PMI = 1 << 5;
    public static final int EVPD = 1 << 6;
    public static final int DBD = 1 << 7;
    public static final int LLBAA = 1 << 8;
    public static final int DESC = 1 << 9;
    public static final int PF = 1 << 10;
    public static final int SP = 1 << 11;
    public static final int RCTD = 1 << 12;
    /** START STOP UNIT's START bit, and a POWER CONDITION other than 0h (SBC-4 5.25). */
    public static final int START = 1 << 13;
    public static final int POWER_CONDITION = 1 << 14;
    /** PREVENT ALLOW MEDIUM REMOVAL with a PREVENT field other than 00b (SPC-4 6.13). */
    public static final int PREVENT = 1 << 15;
    /** REPORT TARGET PORT GROUPS with PARAMETER DATA FORMAT 001b: the extended header (SPC-4 6.36). */
    public static final int EXTENDED_HEADER = 1 << 16;

    /** The highest service action of PERSISTENT RESERVE IN and OUT (READ FULL STATUS, REGISTER AND MOVE). */
    private static final int PRIN_LAST_SERVICE_ACTION = 0x03;
    private static final int PROUT_LAST_SERVICE_ACTION = 0x07;
    /** RESERVE(6)/RELEASE(6) bits of byte 1 this target does not serve: third-party reservations and extents. */
    private static final int SPC2_UNSERVED_BITS = 0x1F;

    /** VERIFY's BYTCHK (SBC-4 5.29): the medium only; the data-out compared with it; one data-out block with each. */
    public static final int BYTCHK_NONE = 0;
    public static final int BYTCHK_DATA_OUT = 1;
    public static final int BYTCHK_ONE_BLOCK = 3;
    /** BYTCHK's place in byte 1 of VERIFY (10)/(12)/(16). */
    private static final int BYTCHK_SHIFT = 1;
    private static final int BYTCHK_MASK = 0x03;
    /** BYTCHK 10b is reserved. */
    private static final int BYTCHK_RESERVED = 2;

    /**
     * Decodes the {@code length} CDB bytes at {@code offset}. Returns true when the CDB is one this
     * module implements with valid fields; false with {@link #error()} set otherwise.
     */
    public boolean decode(MemorySegment segment, long offset, int length) {
        cdb = segment;
        base = offset;
        kind = null;
        serviceAction = 0;
        lba = 0;
        transferLength = 0;
        allocationLength = 0;
        parameterListLength = 0;
        flags = 0;
        pageCode = 0;
        subpageCode = 0;
        pageControl = 0;
        selectReport = 0;
        reportingOptions = 0;
        requestedOpcode = 0;
        requestedServiceAction = 0;
        byteCheck = BYTCHK_NONE;
        reservationScope = 0;
        reservationType = 0;
        error = null;
        errorField = SenseData.NO_FIELD;
        errorBit = -1;
        opcode = -1;
        cdbLength = 0;
        if (length < 1 || offset < 0 || offset > segment.byteSize() || length > segment.byteSize() - offset) {
            return fail(SenseCode.INVALID_COMMAND_OPERATION_CODE, 0, -1);
        }
        opcode = u8(0);
        cdbLength = groupLength(opcode);
        if (cdbLength == 0) {
            return fail(SenseCode.INVALID_COMMAND_OPERATION_CODE, 0, -1);
        }
        if (length < cdbLength) {
            return fail(SenseCode.INVALID_FIELD_IN_CDB, length - 1, -1);
        }
        if ((u8(cdbLength - 1) & CONTROL_NACA) != 0) {
            return fail(SenseCode.INVALID_FIELD_IN_CDB, cdbLength - 1, 2);
        }
        return switch (opcode) {
            case ScsiOpcode.TEST_UNIT_READY -> accept(CommandKind.TEST_UNIT_READY);
            case ScsiOpcode.REQUEST_SENSE -> requestSense();
            case ScsiOpcode.READ_6 -> readWrite6(CommandKind.READ);
            case ScsiOpcode.WRITE_6 -> readWrite6(CommandKind.WRITE);
            case ScsiOpcode.INQUIRY -> inquiry();
            case ScsiOpcode.MODE_SELECT_6 -> modeSelect(u8(4));
            case ScsiOpcode.MODE_SENSE_6 -> modeSense(u8(4));
            case ScsiOpcode.START_STOP_UNIT -> {
                flag(u8(1), 0x01, IMMED);
                flag(u8(4), 0x01, START);
                flag(u8(4), 0xF0, POWER_CONDITION);
                yield accept(CommandKind.START_STOP_UNIT);
            }
            case ScsiOpcode.PREVENT_ALLOW_MEDIUM_REMOVAL -> {
                flag(u8(4), 0x03, PREVENT);
                yield accept(CommandKind.PREVENT_ALLOW_MEDIUM_REMOVAL);
            }
            case ScsiOpcode.RESERVE_6 -> spc2Reservation(CommandKind.RESERVE);
            case ScsiOpcode.RELEASE_6 -> spc2Reservation(CommandKind.RELEASE);
            case ScsiOpcode.PERSISTENT_RESERVE_IN -> persistentReserveIn();
            case ScsiOpcode.PERSISTENT_RESERVE_OUT -> persistentReserveOut();
            case ScsiOpcode.READ_CAPACITY_10 -> readCapacity10();
            case ScsiOpcode.READ_10, ScsiOpcode.WRITE_10, ScsiOpcode.VERIFY_10 -> readWrite(u32(2), u16(7));
            case ScsiOpcode.READ_12, ScsiOpcode.WRITE_12 -> readWrite(u32(2), u32(6));
            case ScsiOpcode.READ_16, ScsiOpcode.WRITE_16, ScsiOpcode.VERIFY_16 -> readWrite(s64(2), u32(10));
            case ScsiOpcode.COMPARE_AND_WRITE -> compareAndWrite();
            case ScsiOpcode.EXTENDED_COPY -> extendedCopy();
            case ScsiOpcode.RECEIVE_COPY_RESULTS -> receiveCopyResults();
            case ScsiOpcode.SYNCHRONIZE_CACHE_10 -> synchronizeCache(u32(2), u16(7));
            case ScsiOpcode.SYNCHRONIZE_CACHE_16 -> synchronizeCache(s64(2), u32(10));
            case ScsiOpcode.WRITE_SAME_10 -> writeSame(u32(2), u16(7), false);
            case ScsiOpcode.WRITE_SAME_16 -> writeSame(s64(2), u32(10), true);
            case ScsiOpcode.UNMAP -> unmap();
            case ScsiOpcode.MODE_SELECT_10 -> modeSelect(u16(7));
            case ScsiOpcode.MODE_SENSE_10 -> modeSense(u16(7));
            case ScsiOpcode.SERVICE_ACTION_IN_16 -> serviceActionIn();
            case ScsiOpcode.REPORT_LUNS -> reportLuns();
            case ScsiOpcode.MAINTENANCE_IN -> maintenanceIn();
            default -> fail(SenseCode.INVALID_COMMAND_OPERATION_CODE, 0, -1);
        };
    }

    /** CDB size by group code (SPC-4 4.2.5.1); 0 for the variable-length and vendor-specific groups. */
    static int groupLength(int opcode) {
        return switch (opcode >>> 5) {
            case 0 -> 6;
            case 1, 2 -> 10;
            case 4 -> 16;
            case 5 -> 12;
            default -> 0;
        };
    }

    private boolean requestSense() {
        flag(u8(1), 0x01, DESC);
        allocationLength = u8(4);
        return accept(CommandKind.REQUEST_SENSE);
    }

    private boolean readWrite6(CommandKind readOrWrite) {
        lba = ((u8(1) & 0x1F) << 16) | u16(2);
        int blocks = u8(4);
        transferLength = blocks == 0 ? 256 : blocks;
        return accept(readOrWrite);
    }

    private boolean readWrite(long address, long blocks) {
        int byte1 = u8(1);
        if ((byte1 & 0xE0) != 0) {
            // RDPROTECT / WRPROTECT / VRPROTECT: no protection information on this target.
            return fail(SenseCode.INVALID_FIELD_IN_CDB, 1, 7);
        }
        CommandKind readWriteKind = switch (opcode) {
            case ScsiOpcode.READ_10, ScsiOpcode.READ_12, ScsiOpcode.READ_16 -> CommandKind.READ;
            case ScsiOpcode.WRITE_10, ScsiOpcode.WRITE_12, ScsiOpcode.WRITE_16 -> CommandKind.WRITE;
            default -> CommandKind.VERIFY;
        };
        if (readWriteKind == CommandKind.VERIFY) {
            byteCheck = (byte1 >>> BYTCHK_SHIFT) & BYTCHK_MASK;
            if (byteCheck == BYTCHK_RESERVED) {
                return fail(SenseCode.INVALID_FIELD_IN_CDB, 1, 2);
            }
        } else {
            flag(byte1, 0x08, FUA);
            flag(byte1, 0x10, DPO);
        }
        lba = address;
        transferLength = blocks;
        return accept(readWriteKind);
    }

    /** COMPARE AND WRITE (SBC-4 5.3): WRPROTECT, DPO, FUA in byte 1, the LBA in 2-9, NUMBER OF LOGICAL BLOCKS in 13. */
    private boolean compareAndWrite() {
        int byte1 = u8(1);
        if ((byte1 & 0xE0) != 0) {
            return fail(SenseCode.INVALID_FIELD_IN_CDB, 1, 7); // no protection information on this target
        }
        flag(byte1, 0x08, FUA);
        flag(byte1, 0x10, DPO);
        lba = s64(2);
        transferLength = u8(13);
        return accept(CommandKind.COMPARE_AND_WRITE);
    }

    /** EXTENDED COPY (SPC-4 6.4): the service action in byte 1 (only LID1), the parameter list length in bytes 10-13. */
    private boolean extendedCopy() {
        serviceAction = u8(1) & 0x1F;
        if (serviceAction != ScsiOpcode.SA_EXTENDED_COPY_LID1) {
            return fail(SenseCode.INVALID_FIELD_IN_CDB, 1, 4);
        }
        parameterListLength = u32(10);
        return accept(CommandKind.EXTENDED_COPY);
    }

    /**
     * RECEIVE COPY RESULTS (SPC-4 6.18): the service action in byte 1 (only OPERATING PARAMETERS: no copy's results are
     * held, the copy manager reports none), the allocation length in bytes 10-13.
     */
    private boolean receiveCopyResults() {
        serviceAction = u8(1) & 0x1F;
        if (serviceAction != ScsiOpcode.SA_RECEIVE_COPY_OPERATING_PARAMETERS) {
            return fail(SenseCode.INVALID_FIELD_IN_CDB, 1, 4);
        }
        allocationLength = u32(10);
        return accept(CommandKind.RECEIVE_COPY_RESULTS);
    }

    private boolean synchronizeCache(long address, long blocks) {
        flag(u8(1), 0x02, IMMED);
        lba = address;
        transferLength = blocks;
        return accept(CommandKind.SYNCHRONIZE_CACHE);
    }

    private boolean writeSame(long address, long blocks, boolean sixteen) {
        int byte1 = u8(1);
        if ((byte1 & 0xE0) != 0) {
            return fail(SenseCode.INVALID_FIELD_IN_CDB, 1, 7);
        }
        if ((byte1 & 0x10) != 0) {
            // ANCHOR: anchored (deallocated but reserved) blocks are not offered.
            return fail(SenseCode.INVALID_FIELD_IN_CDB, 1, 4);
        }
        flag(byte1, 0x08, UNMAP_BIT);
        if (sixteen) {
            flag(byte1, 0x01, NDOB);
        }
        lba = address;
        transferLength = blocks;
        return accept(CommandKind.WRITE_SAME);
    }

    private boolean unmap() {
        if ((u8(1) & 0x01) != 0) {
            return fail(SenseCode.INVALID_FIELD_IN_CDB, 1, 0);
        }
        parameterListLength = u16(7);
        return accept(CommandKind.UNMAP);
    }

    private boolean spc2Reservation(CommandKind reserveOrRelease) {
        if ((u8(1) & SPC2_UNSERVED_BITS) != 0) {
            return fail(SenseCode.INVALID_FIELD_IN_CDB, 1, -1);
        }
        return accept(reserveOrRelease);
    }

    /** PERSISTENT RESERVE IN (SPC-4 6.15): the service action in byte 1, the allocation length in bytes 7-8. */
    private boolean persistentReserveIn() {
        serviceAction = u8(1) & 0x1F;
        if (serviceAction > PRIN_LAST_SERVICE_ACTION) {
            return fail(SenseCode.INVALID_FIELD_IN_CDB, 1, 4);
        }
        allocationLength = u16(7);
        return accept(CommandKind.PERSISTENT_RESERVE_IN);
    }

    /**
     * PERSISTENT RESERVE OUT (SPC-4 6.16): the service action in byte 1, scope and type in byte 2, the parameter list
     * length in bytes 5-8. Scope and type are checked by the service actions that use them.
     */
    private boolean persistentReserveOut() {
        serviceAction = u8(1) & 0x1F;
        if (serviceAction > PROUT_LAST_SERVICE_ACTION) {
            return fail(SenseCode.INVALID_FIELD_IN_CDB, 1, 4);
        }
        reservationScope = u8(2) >>> 4;
        reservationType = u8(2) & 0x0F;
        parameterListLength = u32(5);
        return accept(CommandKind.PERSISTENT_RESERVE_OUT);
    }

    private boolean inquiry() {
        int byte1 = u8(1);
        if ((byte1 & 0x02) != 0) {
            // CMDDT is obsolete (SPC-3 onwards).
            return fail(SenseCode.INVALID_FIELD_IN_CDB, 1, 1);
        }
        flag(byte1, 0x01, EVPD);
        pageCode = u8(2);
        if (!has(EVPD) && pageCode != 0) {
            return fail(SenseCode.INVALID_FIELD_IN_CDB, 2, -1);
        }
        allocationLength = u16(3);
        return accept(CommandKind.INQUIRY);
    }

    private boolean modeSense(int allocation) {
        int byte1 = u8(1);
        flag(byte1, 0x08, DBD);
        if (opcode == ScsiOpcode.MODE_SENSE_10) {
            flag(byte1, 0x10, LLBAA);
        }
        pageControl = u8(2) >>> 6;
        pageCode = u8(2) & 0x3F;
        subpageCode = u8(3);
        allocationLength = allocation;
        return accept(CommandKind.MODE_SENSE);
    }

    private boolean modeSelect(int parameterLength) {
        int byte1 = u8(1);
        flag(byte1, 0x10, PF);
        flag(byte1, 0x01, SP);
        if (!has(PF)) {
            // Only the standard page format (PF=1) is understood.
            return fail(SenseCode.INVALID_FIELD_IN_CDB, 1, 4);
        }
        if (has(SP)) {
            return fail(SenseCode.INVALID_FIELD_IN_CDB, 1, 0);
        }
        parameterListLength = parameterLength;
        return accept(CommandKind.MODE_SELECT);
    }

    private boolean readCapacity10() {
        flag(u8(8), 0x01, PMI);
        lba = u32(2);
        if (!has(PMI) && lba != 0) {
            return fail(SenseCode.INVALID_FIELD_IN_CDB, 2, -1);
        }
        return accept(CommandKind.READ_CAPACITY_10);
    }

    private boolean serviceActionIn() {
        serviceAction = u8(1) & 0x1F;
        if (serviceAction == ScsiOpcode.SA_GET_LBA_STATUS) {
            return getLbaStatus();
        }
        if (serviceAction != ScsiOpcode.SA_READ_CAPACITY_16) {
            return fail(SenseCode.INVALID_FIELD_IN_CDB, 1, 4);
        }
        lba = s64(2);
        allocationLength = u32(10);
        flag(u8(14), 0x01, PMI);
        return accept(CommandKind.READ_CAPACITY_16);
    }

    /** GET LBA STATUS (SBC-4 5.8): the starting LBA in bytes 2-9, the allocation length in 10-13, REPORT TYPE in 14. */
    private boolean getLbaStatus() {
        lba = s64(2);
        allocationLength = u32(10);
        if ((u8(14) & 0x07) != 0) {
            return fail(SenseCode.INVALID_FIELD_IN_CDB, 14, 2); // only REPORT TYPE 0h: every LBA from the start
        }
        return accept(CommandKind.GET_LBA_STATUS);
    }

    private boolean reportLuns() {
        selectReport = u8(2);
        if (selectReport > 2) {
            return fail(SenseCode.INVALID_FIELD_IN_CDB, 2, -1);
        }
        allocationLength = u32(6);
        if (allocationLength < 16) {
            return fail(SenseCode.INVALID_FIELD_IN_CDB, 6, -1);
        }
        return accept(CommandKind.REPORT_LUNS);
    }

    private boolean maintenanceIn() {
        serviceAction = u8(1) & 0x1F;
        if (serviceAction == ScsiOpcode.SA_REPORT_TARGET_PORT_GROUPS) {
            return reportTargetPortGroups();
        }
        if (serviceAction != ScsiOpcode.SA_REPORT_SUPPORTED_OPERATION_CODES) {
            return fail(SenseCode.INVALID_FIELD_IN_CDB, 1, 4);
        }
        int byte2 = u8(2);
        flag(byte2, 0x80, RCTD);
        reportingOptions = byte2 & 0x07;
        if (reportingOptions > 3) {
            return fail(SenseCode.INVALID_FIELD_IN_CDB, 2, 2);
        }
        requestedOpcode = u8(3);
        requestedServiceAction = u16(4);
        allocationLength = u32(6);
        return accept(CommandKind.REPORT_SUPPORTED_OPERATION_CODES);
    }

    /** REPORT TARGET PORT GROUPS (SPC-4 6.36): PARAMETER DATA FORMAT in byte 1 bits 7-5, the allocation length in 6-9. */
    private boolean reportTargetPortGroups() {
        int format = u8(1) >>> 5;
        if (format > 1) {
            return fail(SenseCode.INVALID_FIELD_IN_CDB, 1, 7);
        }
        flag(format, 0x01, EXTENDED_HEADER);
        allocationLength = u32(6);
        return accept(CommandKind.REPORT_TARGET_PORT_GROUPS);
    }

    private boolean accept(CommandKind decoded) {
        kind = decoded;
        return true;
    }

    private boolean fail(SenseCode code, int field, int bit) {
        kind = null;
        error = code;
        errorField = field;
        errorBit = bit;
        return false;
    }

    private void flag(int value, int mask, int bit) {
        if ((value & mask) != 0) {
            flags |= bit;
        }
    }

    private int u8(int index) {
        return BigEndian.get8(cdb, base + index);
    }

    private int u16(int index) {
        return BigEndian.get16(cdb, base + index);
    }

    private long u32(int index) {
        return BigEndian.get32(cdb, base + index);
    }

    private long s64(int index) {
        return BigEndian.get64(cdb, base + index);
    }

    /** The decoded command, or null after a failed decode. */
    public CommandKind kind() {
        return kind;
    }

    /** The operation code, or -1 if there was no byte. */
    public int opcode() {
        return opcode;
    }

    /** The CDB size the operation code implies. */
    public int cdbLength() {
        return cdbLength;
    }

    public int serviceAction() {
        return serviceAction;
    }

    /** Whether a {@code FUA}, {@code DPO}, ... flag was set in the CDB. */
    public boolean has(int flag) {
        return (flags & flag) != 0;
    }

    /** The logical block address; 64-bit CDBs may set the sign bit (compare unsigned). */
    public long lba() {
        return lba;
    }

    /** Transfer length or number of logical blocks, in blocks (unsigned, up to 2^32-1). */
    public long transferLength() {
        return transferLength;
    }

    /** VERIFY's BYTCHK: {@link #BYTCHK_NONE}, {@link #BYTCHK_DATA_OUT} or {@link #BYTCHK_ONE_BLOCK}. */
    public int byteCheck() {
        return byteCheck;
    }

    /** PERSISTENT RESERVE OUT's SCOPE (0h: the logical unit). */
    public int reservationScope() {
        return reservationScope;
    }

    /** PERSISTENT RESERVE OUT's TYPE (1h Write Exclusive ... 8h Exclusive Access - All Registrants). */
    public int reservationType() {
        return reservationType;
    }

    /** Allocation length in bytes for data-in commands. */
    public long allocationLength() {
        return allocationLength;
    }

    /** Parameter list length in bytes for MODE SELECT, UNMAP, PERSISTENT RESERVE OUT and EXTENDED COPY. */
    public long parameterListLength() {
        return parameterListLength;
    }

    public int pageCode() {
        return pageCode;
    }

    public int subpageCode() {
        return subpageCode;
    }

    /** MODE SENSE page control: 0 current, 1 changeable, 2 default, 3 saved. */
    public int pageControl() {
        return pageControl;
    }

    public int selectReport() {
        return selectReport;
    }

    /** REPORT SUPPORTED OPERATION CODES reporting options (0..3). */
    public int reportingOptions() {
        return reportingOptions;
    }

    public int requestedOpcode() {
        return requestedOpcode;
    }

    public int requestedServiceAction() {
        return requestedServiceAction;
    }

    /** Why the last decode failed, or null. */
    public SenseCode error() {
        return error;
    }

    /** CDB byte of the offending field, or {@link SenseData#NO_FIELD}. */
    public int errorField() {
        return errorField;
    }

    /** Bit of the offending field within {@link #errorField()}, or -1. */
    public int errorBit() {
        return errorBit;
    }
}

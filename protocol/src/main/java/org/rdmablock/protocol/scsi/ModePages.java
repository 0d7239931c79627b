package org.rdmablock.protocol.scsi;

import java.lang.foreign.MemorySegment;

import static org.rdmablock.protocol.scsi.BigEndian.get16;
import static org.rdmablock.protocol.scsi.BigEndian.get32;
import static org.rdmablock.protocol.scsi.BigEndian.get8;
import static org.rdmablock.protocol.scsi.BigEndian.put16;
import static org.rdmablock.protocol.scsi.BigEndian.put32;
import static org.rdmablock.protocol.scsi.BigEndian.put64;
import static org.rdmablock.protocol.scsi.BigEndian.put8;

/**
 * MODE SENSE and MODE SELECT (6) and (10) over the two pages a block target needs (SPC-4 7.5, SBC-3 6.4):
 * the caching page 0x08 (WCE, what sd reads to choose write-back or write-through and whether to send
 * SYNCHRONIZE CACHE) and the control page 0x0A (D_SENSE, the sense format), plus "all pages" 0x3F.
 * WCE and D_SENSE are changeable; nothing can be saved.
 */
final class ModePages {
    static final int CACHING = 0x08;
    static final int CONTROL = 0x0A;
    static final int ALL_PAGES = 0x3F;
    static final int CACHING_LENGTH = 20;
    static final int CONTROL_LENGTH = 12;

    static final int PC_CURRENT = 0;
    static final int PC_CHANGEABLE = 1;
    static final int PC_DEFAULT = 2;
    static final int PC_SAVED = 3;

    private static final int WCE = 0x04;
    private static final int D_SENSE = 0x04;
    /** Device-specific parameter: DPOFUA (the unit honours DPO and FUA), WP (write protected). */
    private static final int DPOFUA = 0x10;
    private static final int WP = 0x80;

    /** Result of a failed MODE SENSE/SELECT: the sense code and the offending byte. */
    static final class Failure {
        SenseCode code;
        int field;
        int bit;
        boolean inCdb;

        boolean set(SenseCode senseCode, int fieldIndex, int bitIndex, boolean cdb) {
            code = senseCode;
            field = fieldIndex;
            bit = bitIndex;
            inCdb = cdb;
            return false;
        }
    }

    private ModePages() {
    }

    /**
     * Builds the MODE SENSE response into {@code dst} and returns its length, or -1 with {@code failure}
     * set. The mode data length in the header is the full length even when the allocation length will
     * truncate it (sd asks for 4 bytes first, then for what the header says).
     */
    static int sense(MemorySegment dst, CdbDecoder cdb, LogicalUnit unit, Failure failure) {
        boolean ten = cdb.opcode() == ScsiOpcode.MODE_SENSE_10;
        int pageControl = cdb.pageControl();
        int page = cdb.pageCode();
        int subpage = cdb.subpageCode();
        if (pageControl == PC_SAVED) {
            failure.set(SenseCode.SAVING_PARAMETERS_NOT_SUPPORTED, 2, 7, true);
            return -1;
        }
        if (page != CACHING && page != CONTROL && page != ALL_PAGES) {
            failure.set(SenseCode.INVALID_FIELD_IN_CDB, 2, 5, true);
            return -1;
        }
        // Subpage 0xFF with page 0x3F means "all pages and subpages": we have no subpages beyond 0.
        if (subpage != 0 && !(page == ALL_PAGES && subpage == 0xFF)) {
            failure.set(SenseCode.INVALID_FIELD_IN_CDB, 3, -1, true);
            return -1;
        }
        LogicalUnitConfig config = unit.config();
        boolean longLba = ten && cdb.has(CdbDecoder.LLBAA);
        int descriptorLength = cdb.has(CdbDecoder.DBD) ? 0 : longLba ? 16 : 8;
        int header = ten ? 8 : 4;
        int at = header;
        if (descriptorLength == 8) {
            put32(dst, at, Math.min(unit.blockCount(), 0xFFFF_FFFFL));
            put32(dst, at + 4, config.blockSize());      // density code 0, then a 3-byte block length
            at += 8;
        } else if (descriptorLength == 16) {
            put64(dst, at, unit.blockCount());
            put32(dst, at + 12, config.blockSize());
            at += 16;
        }
        if (page == CACHING || page == ALL_PAGES) {
            at += caching(dst, at, pageControl, unit);
        }
        if (page == CONTROL || page == ALL_PAGES) {
            at += control(dst, at, pageControl, unit);
        }
        int deviceSpecific = DPOFUA | (unit.writeProtected() ? WP : 0);
        if (ten) {
            put16(dst, 0, at - 2);
            put8(dst, 3, deviceSpecific);
            put8(dst, 4, longLba ? 0x01 : 0x00);
            put16(dst, 6, descriptorLength);
        } else {
            put8(dst, 0, at - 1);
            put8(dst, 2, deviceSpecific);
            put8(dst, 3, descriptorLength);
        }
        return at;
    }

    static int caching(MemorySegment dst, long at, int pageControl, LogicalUnit unit) {
        put8(dst, at, CACHING);
        put8(dst, at + 1, CACHING_LENGTH - 2);
        boolean wce = switch (pageControl) {
            case PC_CHANGEABLE -> true;
            case PC_DEFAULT -> unit.config().writeCacheEnabled();
            default -> unit.writeCacheEnabled();
        };
        put8(dst, at + 2, wce ? WCE : 0);
        return CACHING_LENGTH;
    }

    static int control(MemorySegment dst, long at, int pageControl, LogicalUnit unit) {
        put8(dst, at, CONTROL);
        put8(dst, at + 1, CONTROL_LENGTH - 2);
        if (pageControl == PC_CHANGEABLE) {
            put8(dst, at + 2, D_SENSE);
            return CONTROL_LENGTH;
        }
        boolean descriptor = pageControl == PC_DEFAULT ? unit.config().descriptorSense() : unit.descriptorSense();
        put8(dst, at + 2, descriptor ? D_SENSE : 0);
        put8(dst, at + 3, 0x10);             // queue algorithm modifier 1: unrestricted reordering
        put16(dst, at + 8, 0xFFFF);          // busy timeout period: unlimited
        return CONTROL_LENGTH;
    }

    /**
     * Applies a MODE SELECT parameter list of {@code length} bytes at {@code offset} in {@code src}.
     * Every page is checked before anything changes; only WCE and D_SENSE may differ from the current
     * values. Returns false with {@code failure} set (field pointers index the parameter list).
     */
    static boolean select(MemorySegment src, long offset, int length, boolean ten, LogicalUnit unit,
                          MemorySegment scratch, Failure failure) {
        if (length == 0) {
            return true;
        }
        int header = ten ? 8 : 4;
        if (length < header) {
            return failure.set(SenseCode.PARAMETER_LIST_LENGTH_ERROR, SenseData.NO_FIELD, -1, false);
        }
        int descriptorLength = ten ? get16(src, offset + 6) : get8(src, offset + 3);
        boolean longLba = ten && (get8(src, offset + 4) & 0x01) != 0;
        if (descriptorLength != 0 && descriptorLength != (longLba ? 16 : 8)) {
            return failure.set(SenseCode.INVALID_FIELD_IN_PARAMETER_LIST, ten ? 6 : 3, -1, false);
        }
        if (header + descriptorLength > length) {
            return failure.set(SenseCode.PARAMETER_LIST_LENGTH_ERROR, SenseData.NO_FIELD, -1, false);
        }
        if (descriptorLength > 0) {
            long blockLength = longLba ? get32(src, offset + header + 12) : get32(src, offset + header + 4) & 0xFF_FFFF;
            if (blockLength != unit.config().blockSize()) {
                return failure.set(SenseCode.INVALID_FIELD_IN_PARAMETER_LIST, header + (longLba ? 12 : 5), -1, false);
            }
        }
        boolean wce = unit.writeCacheEnabled();
        boolean descriptorSense = unit.descriptorSense();
        int at = header + descriptorLength;
        while (at < length) {
            if (at + 2 > length) {
                return failure.set(SenseCode.PARAMETER_LIST_LENGTH_ERROR, SenseData.NO_FIELD, -1, false);
            }
            int pageByte = get8(src, offset + at);
            int pageLength = get8(src, offset + at + 1);
            if ((pageByte & 0x40) != 0) {
                return failure.set(SenseCode.INVALID_FIELD_IN_PARAMETER_LIST, at, 6, false);
            }
            if (at + 2 + pageLength > length) {
                return failure.set(SenseCode.PARAMETER_LIST_LENGTH_ERROR, SenseData.NO_FIELD, -1, false);
            }
            int page = pageByte & 0x3F;
            int expected;
            if (page == CACHING) {
                expected = caching(scratch, 0, PC_CURRENT, unit);
                caching(scratch, 32, PC_CHANGEABLE, unit);
            } else if (page == CONTROL) {
                expected = control(scratch, 0, PC_CURRENT, unit);
                control(scratch, 32, PC_CHANGEABLE, unit);
            } else {
                return failure.set(SenseCode.INVALID_FIELD_IN_PARAMETER_LIST, at, 5, false);
            }
            if (pageLength != expected - 2) {
                return failure.set(SenseCode.INVALID_FIELD_IN_PARAMETER_LIST, at + 1, -1, false);
            }
            for (int i = 2; i < expected; i++) {
                int fixedBits = ~get8(scratch, 32 + i) & 0xFF;
                if (((get8(src, offset + at + i) ^ get8(scratch, i)) & fixedBits) != 0) {
                    return failure.set(SenseCode.INVALID_FIELD_IN_PARAMETER_LIST, at + i, -1, false);
                }
            }
            if (page == CACHING) {
                wce = (get8(src, offset + at + 2) & WCE) != 0;
            } else {
                descriptorSense = (get8(src, offset + at + 2) & D_SENSE) != 0;
            }
            at += 2 + pageLength;
        }
        unit.setWriteCacheEnabled(wce);
        unit.setDescriptorSense(descriptorSense);
        return true;
    }
}

package org.rdmablock.protocol.scsi;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.Objects;

import static org.rdmablock.protocol.scsi.BigEndian.put32;
import static org.rdmablock.protocol.scsi.BigEndian.put64;

/**
 * The logical units of one target, by LUN: routes each command to its {@link LogicalUnit}, answers
 * REPORT LUNS for all of them, and answers for LUNs with no unit as SPC-4 asks (INQUIRY with peripheral
 * qualifier 011b, REQUEST SENSE with LOGICAL UNIT NOT SUPPORTED as data, anything else CHECK CONDITION
 * with that sense). Lookups allocate nothing; adding or removing a unit copies the table.
 */
public final class LogicalUnitTable {
    private volatile LogicalUnit[] byLun = new LogicalUnit[0];

    /** Adds {@code unit} under its {@link LogicalUnit#lun()}; replaces nothing. */
    public synchronized void add(LogicalUnit unit) {
        int lun = unit.lun();
        if (lun < 0 || lun > LunAddress.MAX_LUN) {
            throw new IllegalArgumentException("LUN " + lun + " is outside 0.." + LunAddress.MAX_LUN);
        }
        LogicalUnit[] current = byLun;
        if (lun < current.length && current[lun] != null) {
            throw new IllegalStateException("LUN " + lun + " is already in use");
        }
        LogicalUnit[] next = Arrays.copyOf(current, Math.max(current.length, lun + 1));
        next[lun] = unit;
        unit.attach(this);
        byLun = next;
    }

    /** Removes the unit at {@code lun}, if any, and returns it. */
    public synchronized LogicalUnit remove(int lun) {
        LogicalUnit[] current = byLun;
        if (lun < 0 || lun >= current.length || current[lun] == null) {
            return null;
        }
        LogicalUnit removed = current[lun];
        LogicalUnit[] next = current.clone();
        next[lun] = null;
        byLun = next;
        return removed;
    }

    /** The unit at LUN number {@code lun}, or null. */
    public LogicalUnit get(int lun) {
        LogicalUnit[] current = byLun;
        return lun >= 0 && lun < current.length ? current[lun] : null;
    }

    /** Runs {@code action} on each unit, by LUN. */
    public void forEach(java.util.function.Consumer<LogicalUnit> action) {
        for (LogicalUnit unit : byLun) {
            if (unit != null) {
                action.accept(unit);
            }
        }
    }

    /**
     * The unit whose NAA designator the designation descriptor at {@code at} of {@code list} is, or null: how an
     * EXTENDED COPY names its copy targets, only ever among this table's units.
     */
    LogicalUnit withNaa(CopyParameterList list, long at) {
        for (LogicalUnit unit : byLun) {
            if (unit != null && unit.naaMatches(list, at)) {
                return unit;
            }
        }
        return null;
    }

    /** Number of units. */
    public int size() {
        int n = 0;
        for (LogicalUnit unit : byLun) {
            if (unit != null) {
                n++;
            }
        }
        return n;
    }

    /**
     * Executes {@code cmd} for the 8-byte SAM LUN field {@code lunField} (as SRP carries it: a
     * big-endian long). The completion runs exactly once.
     */
    public void execute(long lunField, ScsiCommand cmd) {
        LogicalUnit unit = get(LunAddress.decode(lunField));
        if (cmd.cdbLength() > 0 && Byte.toUnsignedInt(cmd.cdb().get(ValueLayout.JAVA_BYTE, 0)) == ScsiOpcode.REPORT_LUNS) {
            // The table answers for its own inventory: one unit may sit in several tables (per-initiator views).
            executeWithoutUnit(cmd);
        } else if (unit != null) {
            unit.execute(cmd, this);
        } else {
            executeWithoutUnit(cmd);
        }
    }

    private void executeWithoutUnit(ScsiCommand cmd) {
        cmd.begin(null);
        CdbDecoder d = cmd.decoder;
        if (!d.decode(cmd.cdb(), 0, cmd.cdbLength())) {
            cmd.checkCondition(SenseFormat.FIXED, d.error(), -1, d.errorField(), true, d.errorBit());
            return;
        }
        switch (d.kind()) {
            case INQUIRY -> {
                if (d.has(CdbDecoder.EVPD)) {
                    notSupported(cmd);
                } else {
                    MemorySegment out = cmd.scratch(64);
                    cmd.completeWithData(InquiryData.absent(out), d.allocationLength());
                }
            }
            case REQUEST_SENSE -> LogicalUnit.requestSense(cmd, d, SenseCode.LOGICAL_UNIT_NOT_SUPPORTED);
            case REPORT_LUNS -> reportLuns(cmd, d);
            default -> notSupported(cmd);
        }
    }

    private static void notSupported(ScsiCommand cmd) {
        cmd.checkCondition(SenseFormat.FIXED, SenseCode.LOGICAL_UNIT_NOT_SUPPORTED, -1, SenseData.NO_FIELD, false, -1);
    }

    /** REPORT LUNS (SPC-4 6.33): the LUN list length, 4 reserved bytes, then 8 bytes per LUN. */
    void reportLuns(ScsiCommand cmd, CdbDecoder d) {
        LogicalUnit[] current = byLun;
        int count = 0;
        for (LogicalUnit unit : current) {
            if (unit != null) {
                count++;
            }
        }
        int length = 8 + 8 * count;
        MemorySegment out = cmd.scratch(length);
        put32(out, 0, 8L * count);
        int at = 8;
        for (int lun = 0; lun < current.length; lun++) {
            if (current[lun] != null) {
                put64(out, at, LunAddress.encode(lun));
                at += 8;
            }
        }
        cmd.completeWithData(length, d.allocationLength());
    }

    @Override
    public String toString() {
        return "LogicalUnitTable" + Objects.toString(Arrays.stream(byLun).filter(Objects::nonNull).map(LogicalUnit::lun).toList());
    }
}

package org.rdmablock.target.core;

import org.rdmablock.protocol.scsi.CdbDecoder;
import org.rdmablock.protocol.scsi.CommandKind;
import org.rdmablock.protocol.scsi.LogicalUnit;
import org.rdmablock.protocol.scsi.LunAddress;
import org.rdmablock.protocol.scsi.ScsiOpcode;

import java.lang.foreign.ValueLayout;

/**
 * COMPARE AND WRITE's atomicity against every other write to its unit, from any channel, SRP or NVMe, placed in place
 * or through the data buffers, finished inline or on a blocking-call thread: the intake orders overlapping writes
 * around it, since every writer holds a slot from admission to its release on this one thread. A COMPARE AND WRITE
 * goes to its backend only once every overlapping write admitted before it has given its slot back; an overlapping
 * write admitted after it likewise waits for it, and is never placed in place (its data would reach the unit before
 * the compare). So earlier writes, then the COMPARE AND WRITE, then later ones: the read, compare and write are one
 * uninterrupted action as SBC-4 5.3 asks (LIO serialises only COMPARE AND WRITEs with each other, a plain WRITE may
 * land between its read and its write). Reads are not held: an overlapping READ sees the blocks before or after it.
 *
 * <p>Each waiting slot counts what it waits for ({@code gateWait}); each slot counted counts who waits on it
 * ({@code gateCount}), so a release walks the slots only when someone waits on it. A wait ends with the data phase done
 * or not: a slot whose data phase ended while it waited is parked, and goes to its backend on a later event.
 *
 * <p>Thread: the intake stage only; no locks, no atomics. With no COMPARE AND WRITE in flight a command costs one read
 * of its opcode and one of {@link #active}.
 */
final class WriteGates {
    /** The unit of an EXTENDED COPY: its destinations are in its data-out, so it overlaps every write to any unit. */
    private static final Object ANY_UNIT = new Object();

    private final CommandSlot[] all;
    private final CdbDecoder cdb = new CdbDecoder();
    /** COMPARE AND WRITEs holding a slot. */
    private int active;
    /** Admissions so far: a slot's place in the admission order. */
    private long admissions;
    /** Parked slots whose wait is over, to go to their backends one per event. */
    private CommandSlot readyHead;
    private CommandSlot readyTail;

    WriteGates(final CommandSlot[] all) {
        this.all = all;
    }

    /**
     * Reserve time: whether the command loaded in {@code slot} must not be placed in place, being a write that
     * overlaps a COMPARE AND WRITE in flight.
     */
    boolean holdsBackInPlace(final CommandSlot slot) {
        if (active == 0 || !classify(slot) || slot.gateCaw) {
            return false;
        }
        for (final CommandSlot other : all) {
            if (other.inUse && other.gateCaw && overlap(other, slot)) {
                return true;
            }
        }
        return false;
    }

    /** Admission (the command accepted): counts what it must wait for, if it writes and a COMPARE AND WRITE is about. */
    void admit(final CommandSlot slot) {
        slot.gateSeq = ++admissions;
        slot.gateClassified = false;
        final boolean compareAndWrite = opcode(slot) == ScsiOpcode.COMPARE_AND_WRITE;
        if (active == 0 && !compareAndWrite) {
            return; // the one read a command pays while no COMPARE AND WRITE is in flight
        }
        if (!classify(slot)) {
            return;
        }
        if (slot.gateCaw) {
            active++;
        }
        for (final CommandSlot other : all) {
            if (other != slot && other.inUse && other.gateSeq < slot.gateSeq && classify(other) && waitsOn(slot, other)
                    && overlap(other, slot)) {
                slot.gateWait++;
                other.gateCount++;
            }
        }
    }

    /** Whether {@code later} waits on {@code earlier}: a COMPARE AND WRITE on any write, a write on a COMPARE AND WRITE. */
    private static boolean waitsOn(final CommandSlot later, final CommandSlot earlier) {
        return later.gateCaw ? earlier.gateWrites : earlier.gateCaw;
    }

    /** Data phase done: false, the slot parked, while it waits; true when it may go to its backend now. */
    static boolean mayExecute(final CommandSlot slot) {
        if (slot.gateWait > 0) {
            slot.gateParked = true;
            return false;
        }
        return true;
    }

    /** The slot is given back: the slots that waited on it wait for one fewer; a COMPARE AND WRITE is done. */
    void released(final CommandSlot slot) {
        if (!slot.gateClassified) {
            return; // neither waited nor waited on
        }
        if (slot.gateCaw) {
            active--;
        }
        for (int i = 0; i < all.length && slot.gateCount > 0; i++) {
            final CommandSlot other = all[i];
            if (other.inUse && other.gateWait > 0 && other.gateSeq > slot.gateSeq && other.gateClassified
                    && waitsOn(other, slot) && overlap(slot, other)) {
                slot.gateCount--;
                if (--other.gateWait == 0 && other.gateParked) {
                    other.gateParked = false;
                    enqueueReady(other);
                }
            }
        }
        slot.gateCount = 0;
        slot.gateWait = 0;
        slot.gateParked = false;
        slot.gateCaw = false;
        slot.gateWrites = false;
        slot.gateClassified = false;
    }

    /** Whether parked slots whose wait is over are waiting for an event to ride on. */
    boolean hasReady() {
        return readyHead != null;
    }

    /** The next parked slot whose wait is over, or null. */
    CommandSlot takeReady() {
        final CommandSlot slot = readyHead;
        if (slot != null) {
            readyHead = slot.gateNext;
            if (readyHead == null) {
                readyTail = null;
            }
            slot.gateNext = null;
        }
        return slot;
    }

    private void enqueueReady(final CommandSlot slot) {
        if (readyTail == null) {
            readyHead = slot;
        } else {
            readyTail.gateNext = slot;
        }
        readyTail = slot;
    }

    /**
     * Reads the slot's command once: whether it writes, which unit and which blocks ({@code gateFirst} to
     * {@code gateEnd}; UNMAP's ranges are in its data-out, so it counts as the whole unit, and EXTENDED COPY's units
     * too, so it counts as every unit). False for a command that writes nothing, or one for no unit.
     */
    private boolean classify(final CommandSlot slot) {
        if (slot.gateClassified) {
            return slot.gateWrites;
        }
        slot.gateClassified = true;
        slot.gateWrites = false;
        slot.gateCaw = false;
        if (slot.channel == null || !cdb.decode(slot.command.cdb(), 0, slot.command.cdbLength())) {
            return false;
        }
        final CommandKind kind = cdb.kind();
        if (kind == CommandKind.EXTENDED_COPY) {
            slot.gateUnit = ANY_UNIT;
            slot.gateWrites = true;
            slot.gateFirst = 0;
            slot.gateEnd = Long.MAX_VALUE;
            return true;
        }
        if (kind != CommandKind.WRITE && kind != CommandKind.WRITE_SAME && kind != CommandKind.UNMAP
                && kind != CommandKind.COMPARE_AND_WRITE) {
            return false;
        }
        final LogicalUnit unit = slot.channel.units.get(LunAddress.decode(slot.lunField));
        if (unit == null) {
            return false;
        }
        slot.gateUnit = unit;
        slot.gateWrites = true;
        slot.gateCaw = kind == CommandKind.COMPARE_AND_WRITE;
        if (kind == CommandKind.UNMAP) {
            slot.gateFirst = 0;
            slot.gateEnd = Long.MAX_VALUE;
        } else {
            slot.gateFirst = cdb.lba();
            slot.gateEnd = cdb.lba() + Math.max(1, cdb.transferLength());
        }
        return true;
    }

    private static boolean overlap(final CommandSlot a, final CommandSlot b) {
        return (a.gateUnit == b.gateUnit || a.gateUnit == ANY_UNIT || b.gateUnit == ANY_UNIT) && Long.compareUnsigned(a.gateFirst, b.gateEnd) < 0
                && Long.compareUnsigned(b.gateFirst, a.gateEnd) < 0;
    }

    private static int opcode(final CommandSlot slot) {
        return slot.command.cdbLength() == 0 ? -1 : Byte.toUnsignedInt(slot.command.cdb().get(ValueLayout.JAVA_BYTE, 0));
    }
}

package org.rdmablock.protocol.scsi;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The unit attentions pending for one I_T nexus (an initiator port's channels to this target), each reported once by
 * the next command that may report one (SAM-5 5.14) and then cleared for every channel of the nexus: REPORTED LUNS
 * DATA HAS CHANGED on any LUN (its inventory changed), and per LUN the conditions of one unit (CAPACITY DATA HAS
 * CHANGED, MODE PARAMETERS CHANGED, a persistent reservation's RESERVATIONS PREEMPTED, RESERVATIONS RELEASED and
 * REGISTRATIONS PREEMPTED, and ASYMMETRIC ACCESS STATE CHANGED), reported on a command to that LUN. Kept by the nexus, not by its channels, so that what
 * is raised while the initiator is logged out waits for its next login (a fenced node learns it was fenced).
 *
 * <p>Threads: raised by the thread that applies a configuration or runs a PERSISTENT RESERVE OUT; taken by the
 * intake (the poller). A command with nothing pending reads one volatile counter; taking allocates nothing, raising
 * may (a rare event).
 */
public final class UnitAttentions {
    /** Conditions one unit reports, by bit, in the order they are taken when several are pending for it. */
    private static final SenseCode[] PER_UNIT = {SenseCode.CAPACITY_DATA_HAS_CHANGED, SenseCode.MODE_PARAMETERS_CHANGED,
        SenseCode.RESERVATIONS_PREEMPTED, SenseCode.RESERVATIONS_RELEASED, SenseCode.REGISTRATIONS_PREEMPTED,
        SenseCode.ASYMMETRIC_ACCESS_STATE_CHANGED};

    /** How many conditions are pending: the one read a command makes when there are none. */
    private final AtomicInteger pending = new AtomicInteger();
    /** 1 while REPORTED LUNS DATA HAS CHANGED is pending. */
    private final AtomicInteger lunsChanged = new AtomicInteger();
    /** The units that have had a condition raised, each with the bits of {@link #PER_UNIT} pending; copied on add. */
    private volatile Unit[] units = new Unit[0];

    /** One LUN's pending conditions; kept once made (a nexus sees at most a few thousand units). */
    private static final class Unit {
        final int lun;
        final AtomicInteger conditions = new AtomicInteger();

        Unit(final int lun) {
            this.lun = lun;
        }
    }

    /** The nexus's LUN inventory changed: REPORTED LUNS DATA HAS CHANGED, on the next command to any LUN. */
    public void lunsChanged() {
        if (lunsChanged.getAndSet(1) == 0) {
            pending.incrementAndGet();
        }
    }

    /** Unit {@code lun} changed: {@code condition} (one of the per-unit ones) on the next command to that LUN. */
    public void unitChanged(final int lun, final SenseCode condition) {
        int bit = 0;
        for (int i = 0; i < PER_UNIT.length; i++) {
            bit |= PER_UNIT[i] == condition ? 1 << i : 0;
        }
        if (bit == 0) {
            throw new IllegalArgumentException(condition + " is not a condition of one unit");
        }
        final int raised = bit;
        if ((unit(lun).conditions.getAndUpdate(c -> c | raised) & raised) == 0) {
            pending.incrementAndGet();
        }
    }

    private synchronized Unit unit(final int lun) {
        for (final Unit u : units) {
            if (u.lun == lun) {
                return u;
            }
        }
        final Unit added = new Unit(lun);
        final Unit[] next = java.util.Arrays.copyOf(units, units.length + 1);
        next[units.length] = added;
        units = next;
        return added;
    }

    /** The unit attention a command to {@code lun} reports now (and clears for the nexus), or null. Allocates nothing. */
    public SenseCode take(final int lun) {
        if (pending.get() == 0) {
            return null;
        }
        if (lunsChanged.compareAndSet(1, 0)) {
            pending.decrementAndGet();
            return SenseCode.REPORTED_LUNS_DATA_HAS_CHANGED;
        }
        for (final Unit u : units) {
            if (u.lun != lun) {
                continue;
            }
            for (int c = u.conditions.get(); c != 0; c = u.conditions.get()) {
                final int lowest = Integer.lowestOneBit(c);
                if (u.conditions.compareAndSet(c, c & ~lowest)) {
                    pending.decrementAndGet();
                    return PER_UNIT[Integer.numberOfTrailingZeros(lowest)];
                }
            }
        }
        return null;
    }

    /**
     * {@code condition} pending: REPORTED LUNS DATA HAS CHANGED for the whole nexus ({@code lun} unused), a unit's own
     * for {@code lun}. What a change raises, and what a command answered BUSY puts back after taking it.
     */
    public void raise(final int lun, final SenseCode condition) {
        if (condition == SenseCode.REPORTED_LUNS_DATA_HAS_CHANGED) {
            lunsChanged();
        } else {
            unitChanged(lun, condition);
        }
    }

    /** How many conditions are pending. */
    public int pendingCount() {
        return pending.get();
    }
}

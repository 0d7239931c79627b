package org.rdmablock.initiator;

/**
 * A channel's preallocated command slots, free, in flight or quarantined, on the agent thread ({@link #inFlight} a
 * snapshot any thread may take).
 *
 * <p>One slot per unit of queue depth. A quarantined slot held an aborted command: it waits for a late answer, since
 * the target may still move data for it.
 */
final class CommandTable {
    private final OutstandingCommand[] commands;
    private final int[] free;
    private int freeCount;
    /** Slots held out of use after an abort (agent thread; read by {@link #inFlight} as a snapshot). */
    private volatile int quarantinedCount;

    CommandTable(final int depth) {
        commands = new OutstandingCommand[depth];
        free = new int[depth];
        for (int i = 0; i < depth; i++) {
            commands[i] = new OutstandingCommand(i);
            free[i] = depth - 1 - i;
        }
        freeCount = depth;
    }

    /** Slots: the queue depth. */
    int size() {
        return commands.length;
    }

    /** The command of {@code slot}, free or not. */
    OutstandingCommand get(final int slot) {
        return commands[slot];
    }

    boolean hasFree() {
        return freeCount > 0;
    }

    /** Whether every slot is free: no command in flight, none quarantined. */
    boolean allFree() {
        return freeCount == commands.length;
    }

    /** Takes a free slot's command; the caller checked {@link #hasFree}. */
    OutstandingCommand acquire() {
        return commands[free[--freeCount]];
    }

    /** The command ended: its parts cleared, its slot free. */
    void release(final OutstandingCommand c) {
        c.clear();
        free[freeCount++] = c.index;
    }

    /** The command was aborted: its parts are cleared, its slot stays out of use until {@link #releaseQuarantined}. */
    void quarantine(final OutstandingCommand c) {
        c.clear();
        c.aborting = false;
        c.quarantined = true;
        quarantinedCount++;
    }

    /** A quarantined slot's late answer came, or the connection it was on is gone: the slot is free. */
    void releaseQuarantined(final OutstandingCommand c) {
        c.quarantined = false;
        quarantinedCount--;
        free[freeCount++] = c.index;
    }

    /** Commands in flight now (a snapshot, any thread). */
    int inFlight() {
        return commands.length - freeCount - quarantinedCount;
    }
}

package org.rdmablock.target.core;

/**
 * The command slots free to take, a stack: what the intake stage takes for each request it admits and puts back when
 * the request's response has gone. A front end takes slots from here for its commands and its own IUs; the core puts
 * them back.
 *
 * <p>Thread: the intake stage's alone; {@link #freeCount} may be read anywhere as a snapshot.
 */
public final class SlotPool {
    private final CommandSlot[] slots;
    private final int[] free;
    private int freeCount;
    /** The intake stage's poster, given to every slot it takes. */
    private final SendPoster posts;

    SlotPool(final CommandSlot[] slots, final SendPoster posts) {
        this.slots = slots;
        this.posts = posts;
        this.free = new int[slots.length];
        for (int i = 0; i < slots.length; i++) {
            free[i] = slots.length - 1 - i;
        }
        this.freeCount = slots.length;
    }

    public boolean hasFree() {
        return freeCount > 0;
    }

    /** Slots free now (any thread: a snapshot). */
    int freeCount() {
        return freeCount;
    }

    /** The slot {@link #take} gives next, not taken yet: a front end loads a request into it before it knows it can be served. */
    public CommandSlot next() {
        return slots[free[freeCount - 1]];
    }

    /** Takes the next free slot, cleared of its last command's state; there must be one ({@link #hasFree}). */
    public CommandSlot take() {
        final CommandSlot slot = slots[free[--freeCount]];
        slot.inUse = true;
        slot.postsThrough(posts);
        slot.aborted = false;
        slot.phase = CommandSlot.IDLE;
        slot.disconnectAfter = false;
        slot.tracked = false;
        // No residual from the slot's last command: one failed or refused before attachData offers nothing.
        slot.command.setExpectedLengths(0, 0);
        return slot;
    }

    /** Puts a slot whose work is done back. */
    void put(final CommandSlot slot) {
        slot.inUse = false;
        free[freeCount++] = slot.index;
    }

    /** Every slot, free or not, by index (task management and the command timeout look at them all). */
    public CommandSlot[] all() {
        return slots;
    }
}

package org.rdmablock.initiator;

import org.rdmablock.verbs.MemoryRegion;
import org.rdmablock.verbs.SendFlags;
import org.rdmablock.verbs.SendOpcode;
import org.rdmablock.verbs.SendWorkRequest;

/**
 * Counts the channel's send queue, signals SENDs and chains a duty cycle's command SENDs for one post, on the agent
 * thread.
 *
 * <p>A SEND's entry may outlive its command (the response can be faster than the SEND's completion). One command SEND
 * in {@link #SIGNAL_INTERVAL} is signaled: RC completes in order, so its completion retires those before it. Entries
 * are kept for the control IUs, so that an answer to the target or a task management request can always go.
 */
final class SendQueue {
    /** Entries kept free of commands: one per control IU buffer. */
    static final int CONTROL_ENTRIES = 4;
    /** A command SEND is signaled at least this often, so that the send queue's entries come back. */
    static final int SIGNAL_INTERVAL = 16;

    private final ChannelState state;
    private final int size;
    private final int signalInterval;
    /** SENDs posted and not completed yet. */
    private int outstanding;
    /** Command SENDs posted unsignaled since the last signaled one, which retires them all. */
    private int unsignaled;
    /** The SENDs of the commands built in this duty cycle, chained for one post; null when none waits. */
    private SendWorkRequest chained;
    private SendWorkRequest lastChained;

    SendQueue(final ChannelState state, final int size) {
        this.state = state;
        this.size = size;
        // half the entries commands may use, so that a signaled SEND always comes before they run out
        this.signalInterval = Math.max(1, Math.min(SIGNAL_INTERVAL, (size - CONTROL_ENTRIES) / 2));
    }

    /** Whether a command's SEND fits beside the entries kept for control IUs. */
    boolean hasRoomForCommand() {
        return outstanding < size - CONTROL_ENTRIES;
    }

    /**
     * Prepares {@code send} to carry {@code length} bytes of {@code ius} at {@code offset} for command slot
     * {@code slot} and chains it for {@link #postChained}.
     */
    void chainCommand(final SendWorkRequest send, final MemoryRegion ius, final long offset, final int length, final int slot) {
        if (++unsignaled >= signalInterval) {
            unsignaled--; // counted again by retired()
            send.opcode(SendOpcode.SEND).flags(SendFlags.SIGNALED).next(null)
                    .wrId(WorkRequestIds.send(WorkRequestIds.SEND, retired(), slot));
        } else {
            send.opcode(SendOpcode.SEND).flags(0).next(null).wrId(WorkRequestIds.send(WorkRequestIds.SEND, 0, slot));
        }
        send.sgl().clear().add(ius, offset, length);
        outstanding++;
        if (lastChained == null) {
            chained = send;
        } else {
            lastChained.next(send);
        }
        lastChained = send;
    }

    /**
     * Posts the SENDs chained in this duty cycle, if any, as one chain: one post (on the soft provider one socket
     * write, on hardware one doorbell) for every command of the cycle.
     */
    void postChained() {
        final SendWorkRequest first = chained;
        if (first == null) {
            return;
        }
        chained = null;
        lastChained = null;
        try {
            state.queuePair().postSend(first);
        } catch (RuntimeException e) {
            state.lost("post failed: " + e.getMessage());
        }
    }

    /**
     * Forgets SENDs chained but not posted: they belong to commands failing now, and posting them later would let the
     * target move data to or from buffers their callers already took back.
     */
    void discardChained() {
        chained = null;
        lastChained = null;
    }

    /** Posts {@code send}, signaled, with {@code length} bytes of {@code ius} at {@code offset} (control IU {@code slot}). */
    void postControl(final SendWorkRequest send, final MemoryRegion ius, final long offset, final int length, final int slot) {
        send.opcode(SendOpcode.SEND).flags(SendFlags.SIGNALED).next(null)
                .wrId(WorkRequestIds.send(WorkRequestIds.CONTROL, retired(), slot));
        send.sgl().clear().add(ius, offset, length);
        outstanding++;
        try {
            state.queuePair().postSend(send);
        } catch (RuntimeException e) {
            state.lost("post failed: " + e.getMessage());
        }
    }

    /** A signaled SEND completed: it and the unsignaled ones before it left the send queue. */
    void completed(final long id) {
        outstanding -= WorkRequestIds.retired(id);
    }

    /** A new connection: its send queue is empty. */
    void reset() {
        outstanding = 0;
        unsignaled = 0;
    }

    /** For a signaled SEND about to go: how many SENDs its completion retires (itself and the unsignaled before it). */
    private long retired() {
        final long count = unsignaled + 1L;
        unsignaled = 0;
        return count;
    }
}

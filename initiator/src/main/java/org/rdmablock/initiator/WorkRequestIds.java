package org.rdmablock.initiator;

/**
 * Encodes and decodes a channel's work request ids, so that a completion tells what ended (pure functions, any thread):
 * the kind in the high 32 bits; below, a SEND's slot in the low 16 bits and, for a signaled SEND, how many SENDs its
 * completion retires in bits 16 to 31; a receive's index in the low 32 bits.
 */
final class WorkRequestIds {
    /** A command's SEND (SRP_CMD). */
    static final long SEND = 1L << 32;
    /** A receive buffer posted for the target's IUs. */
    static final long RECEIVE = 2L << 32;
    /** A control IU's SEND (SRP_CRED_RSP, SRP_AER_RSP, SRP_TSK_MGMT, SRP_I_LOGOUT). */
    static final long CONTROL = 3L << 32;
    private static final long KIND_MASK = 0xFFFF_FFFF_0000_0000L;

    private WorkRequestIds() {
    }

    static long kind(final long id) {
        return id & KIND_MASK;
    }

    /** A SEND of {@code kind} from buffer {@code slot} that retires {@code retired} SENDs (0: unsignaled). */
    static long send(final long kind, final long retired, final int slot) {
        return kind | retired << 16 | slot;
    }

    /** The SENDs a completed SEND retires: itself and the unsignaled ones posted before it. */
    static int retired(final long id) {
        return (int) (id >>> 16) & 0xFFFF;
    }

    static long receive(final int index) {
        return RECEIVE | index;
    }

    static int receiveIndex(final long id) {
        return (int) id;
    }
}

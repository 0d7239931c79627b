package org.rdmablock.initiator;

/**
 * The target's request limit as the initiator counts it (SRP r16a 5.4.1), on the agent thread.
 *
 * <p>Granted at login, taken by each SRP_CMD and SRP_TSK_MGMT, given back by the request limit delta of each SRP_RSP,
 * SRP_CRED_REQ and SRP_AER_REQ. Commands leave one credit unused, as Linux's ib_srp does, so that task management
 * always has one.
 */
final class Credits {
    /** Credits held back from commands for task management. */
    static final int TASK_MANAGEMENT_RESERVE = 1;
    private int available;

    Credits(final int granted) {
        this.available = granted;
    }

    /** A new login's grant replaces what was left of the old one. */
    void reset(final int granted) {
        available = granted;
    }

    /** The target gave {@code delta} credits back (or more, or fewer: a delta may be negative). */
    void grant(final int delta) {
        available += delta;
    }

    /** Whether a command may go: a credit left beyond the task management reserve. */
    boolean allowCommand() {
        return available > TASK_MANAGEMENT_RESERVE;
    }

    /** An SRP_CMD or SRP_TSK_MGMT goes: it holds a credit until its response. */
    void take() {
        available--;
    }

    int available() {
        return available;
    }
}

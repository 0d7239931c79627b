package org.rdmablock.initiator;

/**
 * The commands the target takes now, as the initiator counts them, on the agent thread: SRP's request limit (SRP r16a
 * 5.4.1), or the free entries of an NVMe submission queue.
 *
 * <p>SRP: granted at login, taken by each SRP_CMD and SRP_TSK_MGMT, given back by the request limit delta of each
 * SRP_RSP, SRP_CRED_REQ and SRP_AER_REQ; commands leave one credit unused, as Linux's ib_srp does, so that task
 * management always has one. NVMe: the queue's entries less one, one back per completion, none held back (no task
 * management on an I/O queue).
 */
final class Credits {
    /** Credits held back from commands for task management. */
    static final int TASK_MANAGEMENT_RESERVE = 1;
    private final int reserve;
    private int available;

    /** {@code granted} credits; commands leave {@code reserve} of them for task management. */
    Credits(final int granted, final int reserve) {
        this.available = granted;
        this.reserve = reserve;
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
        return available > reserve;
    }

    /** An SRP_CMD or SRP_TSK_MGMT goes: it holds a credit until its response. */
    void take() {
        available--;
    }

    int available() {
        return available;
    }
}

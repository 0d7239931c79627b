package org.rdmablock.target.backend;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.rdmablock.protocol.scsi.BackendCallback;
import org.rdmablock.protocol.scsi.BackendStatus;
import org.rdmablock.protocol.scsi.CallDeferral;

/**
 * A reusable callback that records how an operation ended and how often it was called, so that a test can check the
 * backend's contract: one call per operation, made before the operation method returns.
 */
final class Completion implements BackendCallback {
    private BackendStatus status;
    private int calls;
    /** What this caller says of waiting: null when it may wait (the default), else where a call that would goes. */
    private CallDeferral deferral;

    @Override
    public void completed(BackendStatus status) {
        this.status = status;
        calls++;
    }

    @Override
    public CallDeferral deferral() {
        return deferral;
    }

    /** From now on the caller must not wait ({@code deferral} not null: the poller with blocking-call threads) or may. */
    Completion deferringTo(CallDeferral deferral) {
        this.deferral = deferral;
        return this;
    }

    /** Callbacks since the last {@link #reset()}. */
    int calls() {
        return calls;
    }

    /** Forgets the last operation, before the next one. */
    Completion reset() {
        status = null;
        calls = 0;
        return this;
    }

    /** The status of the operation just issued, asserting that it completed exactly once, inline. */
    BackendStatus status() {
        assertEquals(1, calls, "callbacks of one operation, before it returned");
        return status;
    }

    /** Asserts the operation just issued completed once with {@code expected}. */
    void assertStatus(BackendStatus expected, String what) {
        assertEquals(1, calls, what + ": callbacks before the operation returned");
        assertEquals(expected, status, what);
    }
}

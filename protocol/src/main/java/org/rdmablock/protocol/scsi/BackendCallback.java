package org.rdmablock.protocol.scsi;

/**
 * Completion of one {@link BlockBackend} operation. Called exactly once per operation, on any thread
 * (possibly the caller's, before the operation method returns). Implementations should be preallocated
 * objects, not per-I/O lambdas, to keep the I/O path allocation-free.
 */
@FunctionalInterface
public interface BackendCallback {
    void completed(BackendStatus status);

    /**
     * The caller's word on waiting, asked by a backend whose call may wait on a device: null (the default) when the
     * calling thread may wait; otherwise where the backend leaves such a call instead of making it.
     */
    default CallDeferral deferral() {
        return null;
    }
}

package org.rdmablock.initiator;

/**
 * Where a {@link Lun}'s asynchronous operation reports its end: called once per operation, on the thread of the
 * channel that carried it, so it must not block (hand long work to another thread). It may submit the next operation;
 * when that channel's ring is full, the submission throws {@link IllegalStateException} instead of waiting for room
 * only this thread could make. The library allocates nothing to call it: {@code attachment} is whatever object the
 * caller passed with the operation.
 */
@FunctionalInterface
public interface IoCallback {
    /**
     * @param attachment the caller's object given with the operation (may be null)
     * @param bytes      bytes transferred (reads: placed in the caller's buffer; writes: written), 0 for flush and
     *                   unmap; when {@code failure} is not null, what was transferred before it
     * @param failure    null on success, else why the operation failed
     */
    void completed(Object attachment, long bytes, SrpIoException failure);
}

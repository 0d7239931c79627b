package org.rdmablock.target.backend;

import org.rdmablock.protocol.scsi.BlockBackend;

/**
 * The storage of one configured LUN, opened by {@link BackendFactory#open}: a {@link BlockBackend} that owns a
 * resource (a file descriptor, a RocksDB database, a memory mapping) released by {@link #close()}.
 *
 * <p>Threads: the target's backend threads call the operations, several at once; the file, memory and null backends
 * (and RocksDB) do the work on the calling thread and call the callback before returning. {@link #close()} is called
 * once, by the thread that shuts the LUN down, after every operation has completed; an operation that still arrives
 * completes with {@code INTERNAL_ERROR}.
 */
public interface LunBackend extends BlockBackend, AutoCloseable {
    /** Whether writes and unmaps are refused (the LUN is read-only); they complete with {@code INTERNAL_ERROR}. */
    boolean readOnly();

    /**
     * Why {@link #resize} cannot make this backend {@code sizeBytes} long while it serves, or null when it can: what
     * a resize is checked against before anything changes (and all a dry run says).
     */
    String whyNotResizable(long sizeBytes);

    /**
     * Makes the device {@code sizeBytes} long while it serves: a file is extended or cut (ftruncate), a null LUN
     * answers the new size. Growing comes before the logical unit reports the new capacity; shrinking after the
     * commands that could reach the cut-off blocks are done (the caller's order). Operations beyond the new end then
     * complete with {@code INTERNAL_ERROR}.
     *
     * @throws IllegalStateException why it could not ({@link #whyNotResizable}, or the system call's error); the
     *                               size is then unchanged
     */
    void resize(long sizeBytes);

    /** Releases the backend's resources. Idempotent; throws nothing (a failed close is logged). */
    @Override
    void close();
}

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

    /** Releases the backend's resources. Idempotent; throws nothing (a failed close is logged). */
    @Override
    void close();
}

package org.rdmablock.protocol.scsi;

import java.lang.foreign.MemorySegment;

/**
 * Where a {@link BlockBackend} leaves a call that would wait on a device when its caller must not wait (a completion
 * poller that runs commands itself): the backend records the call here and returns without calling back, and the
 * caller has it made later on a thread that may wait, with the same callback. The caller says which it is with each
 * call, through {@link BackendCallback#deferral()}; a backend that never waits (memory, null) never asks.
 *
 * <p>One call per command at a time: the engine issues a command's next backend call from the previous one's callback.
 */
public interface CallDeferral {
    /** Records a read; the backend returns without calling back. */
    void deferRead(BlockBackend backend, long deviceOffset, MemorySegment buffer, long bufferOffset, int length,
                   BackendCallback callback);

    /** Records a write; the backend returns without calling back. */
    void deferWrite(BlockBackend backend, long deviceOffset, MemorySegment buffer, long bufferOffset, int length,
                    boolean forceUnitAccess, BackendCallback callback);

    /** Records a flush; the backend returns without calling back. */
    void deferFlush(BlockBackend backend, BackendCallback callback);

    /** Records an unmap; the backend returns without calling back. */
    void deferUnmap(BlockBackend backend, long deviceOffset, long length, BackendCallback callback);

    /**
     * Records a call of the engine's own that waits on a device (a persistent reservation's fsync): the caller has
     * {@code call} run on a thread that may wait, and it completes the command itself.
     */
    void deferCall(Runnable call);

    /**
     * 16 bytes of native memory, 8-aligned, that the backend may use while it tries a call without waiting (one
     * {@code struct iovec} for {@code preadv2(RWF_NOWAIT)}): this deferral's own, so no thread-local is needed.
     */
    MemorySegment scratch();
}

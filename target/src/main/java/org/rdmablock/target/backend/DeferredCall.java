package org.rdmablock.target.backend;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import org.rdmablock.protocol.scsi.BackendCallback;
import org.rdmablock.protocol.scsi.BlockBackend;
import org.rdmablock.protocol.scsi.CallDeferral;

/**
 * A backend call that the thread which must not block (the completion poller running the pipeline itself) did not
 * make, stashed for a blocking-call thread to make. With {@code backend_threads = 0} and blocking-call threads, the
 * poller gives each command it executes the command's own DeferredCall ({@code ScsiCommand.deferBlockingCallsTo}); a
 * file or RocksDB backend then either completes the call without waiting (a file read the page cache holds:
 * {@code preadv2(RWF_NOWAIT)}; a whole-page write-back write) or stashes it here and returns without calling back; the
 * pipeline sees {@link #pending()} and hands the call to a blocking-call thread, which says the command may wait now
 * and makes it there ({@link #run()}), blocking as long as it takes, and calls back from there. Memory and null LUNs
 * never ask.
 *
 * <p>One call per command at a time: the SCSI engine issues a command's next backend call from the previous one's
 * callback. Handed between threads through the pipeline's ring, so the fields need no synchronisation. Allocates
 * nothing per call.
 */
public final class DeferredCall implements CallDeferral {
    private static final int NONE = 0;
    private static final int READ = 1;
    private static final int WRITE = 2;
    private static final int FLUSH = 3;
    private static final int UNMAP = 4;
    private static final int CALL = 5;

    /** One {@code struct iovec} for a non-blocking preadv2 of this command's (one call at a time). */
    private final MemorySegment iovec = Arena.ofAuto().allocate(16, 8);
    private int operation = NONE;
    private BlockBackend backend;
    private long deviceOffset;
    private MemorySegment buffer;
    private long bufferOffset;
    private long length;
    private boolean forceUnitAccess;
    private BackendCallback callback;
    /** The engine's own call ({@link #deferCall}), which completes its command itself. */
    private Runnable call;

    /** Whether a call waits here for a blocking-call thread. */
    public boolean pending() {
        return operation != NONE;
    }

    /**
     * Blocking-call thread: makes the stashed call here and calls back from here. The command must already say that
     * it may wait ({@code deferBlockingCallsTo(null)}), or the backend would stash the call again.
     */
    public void run() {
        final int op = operation;
        final BlockBackend target = backend;
        final MemorySegment data = buffer;
        final BackendCallback done = callback;
        final Runnable own = call;
        operation = NONE;
        call = null;
        backend = null;
        buffer = null;
        callback = null;
        switch (op) {
            case READ -> target.read(deviceOffset, data, bufferOffset, (int) length, done);
            case WRITE -> target.write(deviceOffset, data, bufferOffset, (int) length, forceUnitAccess, done);
            case FLUSH -> target.flush(done);
            case UNMAP -> target.unmap(deviceOffset, length, done);
            case CALL -> own.run();
            default -> throw new IllegalStateException("no deferred call to run");
        }
    }

    @Override
    public MemorySegment scratch() {
        return iovec;
    }

    @Override
    public void deferRead(final BlockBackend backend, final long deviceOffset, final MemorySegment buffer,
                          final long bufferOffset, final int length, final BackendCallback callback) {
        defer(READ, backend, deviceOffset, buffer, bufferOffset, length, false, callback);
    }

    @Override
    public void deferWrite(final BlockBackend backend, final long deviceOffset, final MemorySegment buffer,
                           final long bufferOffset, final int length, final boolean forceUnitAccess,
                           final BackendCallback callback) {
        defer(WRITE, backend, deviceOffset, buffer, bufferOffset, length, forceUnitAccess, callback);
    }

    @Override
    public void deferFlush(final BlockBackend backend, final BackendCallback callback) {
        defer(FLUSH, backend, 0, null, 0, 0, false, callback);
    }

    @Override
    public void deferUnmap(final BlockBackend backend, final long deviceOffset, final long length,
                           final BackendCallback callback) {
        defer(UNMAP, backend, deviceOffset, null, 0, length, false, callback);
    }

    @Override
    public void deferCall(final Runnable engineCall) {
        defer(CALL, null, 0, null, 0, 0, false, null);
        this.call = engineCall;
    }

    private void defer(final int op, final BlockBackend backend, final long deviceOffset, final MemorySegment buffer,
                       final long bufferOffset, final long length, final boolean forceUnitAccess,
                       final BackendCallback callback) {
        if (operation != NONE) {
            throw new IllegalStateException("a second deferred call for one command"); // the engine issues one at a time
        }
        this.backend = backend;
        this.deviceOffset = deviceOffset;
        this.buffer = buffer;
        this.bufferOffset = bufferOffset;
        this.length = length;
        this.forceUnitAccess = forceUnitAccess;
        this.callback = callback;
        this.operation = op;
    }
}

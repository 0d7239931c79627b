package org.rdmablock.target.backend;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import org.rdmablock.protocol.scsi.BackendCallback;

/**
 * A backend call that the thread which must not block (the completion poller running the pipeline itself) did not
 * make, stashed for a blocking-call thread to make. With {@code backend_threads = 0} and blocking-call threads, the
 * poller binds a {@link Point} to itself ({@link #bindToCurrentThread}) and, before each command it executes, aims
 * it at the command's own DeferredCall. A file or RocksDB backend called on that thread then either completes the
 * call without waiting (a file read the page cache holds: {@code preadv2(RWF_NOWAIT)}; a whole-page write-back write)
 * or stashes it here and returns without calling back; the pipeline sees {@link #pending()} and hands the call to a
 * blocking-call thread, whose {@link #run()} makes it there, blocking as long as it takes, and calls back from there.
 * Memory and null LUNs never look at the point. On every other thread no point is bound and the backends make their
 * calls as they come.
 *
 * <p>One call per command at a time: the SCSI engine issues a command's next backend call from the previous one's
 * callback. Handed between threads through the pipeline's ring, so the fields need no synchronisation. Allocates
 * nothing.
 */
public final class DeferredCall {
    private static final ThreadLocal<Point> POINTS = new ThreadLocal<>();
    private static final int NONE = 0;
    private static final int READ = 1;
    private static final int WRITE = 2;
    private static final int FLUSH = 3;
    private static final int UNMAP = 4;

    private int operation = NONE;
    private AbstractLunBackend backend;
    private long deviceOffset;
    private MemorySegment buffer;
    private long bufferOffset;
    private long length;
    private boolean forceUnitAccess;
    private BackendCallback callback;

    /** The calling thread's point: where its backend calls that would block go. One per thread that must not block. */
    public static final class Point {
        private DeferredCall aimedAt;
        /** One {@code struct iovec} for the thread's non-blocking preadv2 calls (the point is the thread's alone). */
        final MemorySegment iovec = Arena.ofAuto().allocate(16, 8);

        private Point() {
        }

        /** Where the next call that would block goes (the command about to execute), or null: calls made as they come. */
        public void aim(final DeferredCall call) {
            aimedAt = call;
        }
    }

    /** Binds a new point to the calling thread; its file and RocksDB calls are deferred from now on, once aimed. */
    public static Point bindToCurrentThread() {
        final Point point = new Point();
        POINTS.set(point);
        return point;
    }

    /** The calling thread's point when it is aimed, else null (every thread but a bound poller in a command). */
    static Point aimedPoint() {
        final Point point = POINTS.get();
        return point != null && point.aimedAt != null ? point : null;
    }

    /** Whether a call waits here for a blocking-call thread. */
    public boolean pending() {
        return operation != NONE;
    }

    /** Blocking-call thread: makes the stashed call here (this thread has no point) and calls back from here. */
    public void run() {
        final int op = operation;
        final AbstractLunBackend target = backend;
        final MemorySegment data = buffer;
        final BackendCallback done = callback;
        operation = NONE;
        backend = null;
        buffer = null;
        callback = null;
        switch (op) {
            case READ -> target.read(deviceOffset, data, bufferOffset, (int) length, done);
            case WRITE -> target.write(deviceOffset, data, bufferOffset, (int) length, forceUnitAccess, done);
            case FLUSH -> target.flush(done);
            case UNMAP -> target.unmap(deviceOffset, length, done);
            default -> throw new IllegalStateException("no deferred call to run");
        }
    }

    /** Stashes a call at the point's target (the backend checked that the point is aimed). */
    static void defer(final Point point, final int op, final AbstractLunBackend backend, final long deviceOffset,
                      final MemorySegment buffer, final long bufferOffset, final long length, final boolean forceUnitAccess,
                      final BackendCallback callback) {
        final DeferredCall call = point.aimedAt;
        if (call.operation != NONE) {
            throw new IllegalStateException("a second deferred call for one command"); // the engine issues one at a time
        }
        call.backend = backend;
        call.deviceOffset = deviceOffset;
        call.buffer = buffer;
        call.bufferOffset = bufferOffset;
        call.length = length;
        call.forceUnitAccess = forceUnitAccess;
        call.callback = callback;
        call.operation = op;
    }

    static void deferRead(final Point point, final AbstractLunBackend backend, final long deviceOffset, final MemorySegment buffer,
                          final long bufferOffset, final int length, final BackendCallback callback) {
        defer(point, READ, backend, deviceOffset, buffer, bufferOffset, length, false, callback);
    }

    static void deferWrite(final Point point, final AbstractLunBackend backend, final long deviceOffset, final MemorySegment buffer,
                           final long bufferOffset, final int length, final boolean forceUnitAccess, final BackendCallback callback) {
        defer(point, WRITE, backend, deviceOffset, buffer, bufferOffset, length, forceUnitAccess, callback);
    }

    static void deferFlush(final Point point, final AbstractLunBackend backend, final BackendCallback callback) {
        defer(point, FLUSH, backend, 0, null, 0, 0, false, callback);
    }

    static void deferUnmap(final Point point, final AbstractLunBackend backend, final long deviceOffset, final long length,
                           final BackendCallback callback) {
        defer(point, UNMAP, backend, deviceOffset, null, 0, length, false, callback);
    }
}

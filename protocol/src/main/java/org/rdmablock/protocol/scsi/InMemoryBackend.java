package org.rdmablock.protocol.scsi;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A {@link BlockBackend} over off-heap memory, for tests and benchmarks. Unmapped ranges read as zeroes.
 * Completes operations on the calling thread, or on an executor to exercise asynchronous completion; can
 * fail the next operation of a kind on demand, and counts flushes, FUA writes and unmaps so that tests can
 * check durability semantics.
 */
public final class InMemoryBackend implements BlockBackend, AutoCloseable {
    /** The operations {@link #failNext} can target. */
    public enum Operation { READ, WRITE, FLUSH, UNMAP }

    private final Arena arena = Arena.ofShared();
    private final MemorySegment storage;
    private final Executor completionExecutor;
    private final AtomicReference<Operation> failOperation = new AtomicReference<>();
    private volatile BackendStatus failStatus = BackendStatus.IO_ERROR;
    private final AtomicLong flushes = new AtomicLong();
    private final AtomicLong forcedWrites = new AtomicLong();
    private final AtomicLong unmaps = new AtomicLong();
    private final AtomicLong writes = new AtomicLong();

    /** A backend of {@code sizeBytes} zeroed bytes that completes on the calling thread. */
    public InMemoryBackend(long sizeBytes) {
        this(sizeBytes, null);
    }

    /** As above, completing on {@code completionExecutor} when it is not null. */
    public InMemoryBackend(long sizeBytes, Executor completionExecutor) {
        this.storage = arena.allocate(sizeBytes, 4096);
        this.completionExecutor = completionExecutor;
    }

    /** The device bytes, for tests to inspect or preload. */
    public MemorySegment storage() {
        return storage;
    }

    /** Makes the next operation of kind {@code operation} complete with {@code status} instead of running. */
    public void failNext(Operation operation, BackendStatus status) {
        failStatus = Objects.requireNonNull(status);
        failOperation.set(operation);
    }

    public long flushCount() {
        return flushes.get();
    }

    /** Writes issued with force-unit-access. */
    public long forcedWriteCount() {
        return forcedWrites.get();
    }

    public long writeCount() {
        return writes.get();
    }

    public long unmapCount() {
        return unmaps.get();
    }

    @Override
    public long sizeBytes() {
        return storage.byteSize();
    }

    @Override
    public boolean supportsUnmap() {
        return true;
    }

    @Override
    public boolean unmapReadsZeroes() {
        return true;
    }

    @Override
    public void read(long deviceOffset, MemorySegment buffer, long bufferOffset, int length, BackendCallback callback) {
        if (injectedFailure(Operation.READ, callback)) {
            return;
        }
        MemorySegment.copy(storage, deviceOffset, buffer, bufferOffset, length);
        complete(callback, BackendStatus.OK);
    }

    @Override
    public void write(long deviceOffset, MemorySegment buffer, long bufferOffset, int length, boolean forceUnitAccess,
                      BackendCallback callback) {
        if (injectedFailure(Operation.WRITE, callback)) {
            return;
        }
        MemorySegment.copy(buffer, bufferOffset, storage, deviceOffset, length);
        writes.incrementAndGet();
        if (forceUnitAccess) {
            forcedWrites.incrementAndGet();
        }
        complete(callback, BackendStatus.OK);
    }

    @Override
    public void flush(BackendCallback callback) {
        if (injectedFailure(Operation.FLUSH, callback)) {
            return;
        }
        flushes.incrementAndGet();
        complete(callback, BackendStatus.OK);
    }

    @Override
    public void unmap(long deviceOffset, long length, BackendCallback callback) {
        if (injectedFailure(Operation.UNMAP, callback)) {
            return;
        }
        storage.asSlice(deviceOffset, length).fill((byte) 0);
        unmaps.incrementAndGet();
        complete(callback, BackendStatus.OK);
    }

    private boolean injectedFailure(Operation operation, BackendCallback callback) {
        if (failOperation.get() == operation && failOperation.compareAndSet(operation, null)) {
            complete(callback, failStatus);
            return true;
        }
        return false;
    }

    private void complete(BackendCallback callback, BackendStatus status) {
        if (completionExecutor == null) {
            callback.completed(status);
        } else {
            completionExecutor.execute(() -> callback.completed(status));
        }
    }

    @Override
    public void close() {
        arena.close();
    }
}

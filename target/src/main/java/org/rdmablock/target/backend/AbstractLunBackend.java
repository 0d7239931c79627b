package org.rdmablock.target.backend;

import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;

import org.rdmablock.protocol.scsi.BackendCallback;
import org.rdmablock.protocol.scsi.BackendStatus;
import org.rdmablock.protocol.scsi.CallDeferral;
import org.rdmablock.target.config.LunConfig;

/**
 * What the four backends share: the LUN's identity and policy from its configuration, UNMAP that reads back zeroes,
 * the checks every operation makes before it touches storage (a closed backend, a range outside the device or the
 * buffer, a write to a read-only LUN: INTERNAL_ERROR, since the logical unit never sends them), the one inline
 * completion of each operation, and a close that runs once. The operations run on the calling backend thread;
 * {@link #close()} on the thread that shuts the LUN down.
 */
abstract class AbstractLunBackend implements LunBackend {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(AbstractLunBackend.class);
    final int lun;
    /** The file or directory; null for memory and null LUNs. */
    final Path path;
    /** Changed only by {@link #resize}, on the thread that applies a configuration. */
    volatile long sizeBytes;
    final boolean readOnly;
    final boolean writeThrough;
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile Class<?> lastLoggedFailure;

    AbstractLunBackend(LunConfig config) {
        this.lun = config.number();
        this.path = config.path();
        this.sizeBytes = config.sizeBytes();
        this.readOnly = config.readOnly();
        this.writeThrough = config.writeCache() == LunConfig.WriteCachePolicy.WRITE_THROUGH;
    }

    @Override
    public final long sizeBytes() {
        return sizeBytes;
    }

    /**
     * Reads, or completes with INTERNAL_ERROR when the checks fail or the copy throws (a read-only or closed buffer, a
     * backend closed under the read). The callback runs outside the try: its own exceptions are the caller's.
     */
    @Override
    public final void read(long deviceOffset, MemorySegment buffer, long bufferOffset, int length, BackendCallback callback) {
        BackendStatus status = BackendStatus.INTERNAL_ERROR;
        if (!closed.get() && inDevice(deviceOffset, length) && inBuffer(buffer, bufferOffset, length)) {
            CallDeferral deferral = mayBlock() ? callback.deferral() : null;
            try {
                status = deferral == null ? readChecked(deviceOffset, buffer, bufferOffset, length)
                        : readWithoutBlocking(deferral.scratch(), deviceOffset, buffer, bufferOffset, length);
            } catch (RuntimeException e) {
                logUnexpected("read", e);
                status = BackendStatus.INTERNAL_ERROR;
            }
            if (status == null) {
                deferral.deferRead(this, deviceOffset, buffer, bufferOffset, length, callback);
                return;
            }
        }
        callback.completed(status);
    }

    /** Writes, or completes with INTERNAL_ERROR when the checks fail or the copy throws. */
    @Override
    public final void write(long deviceOffset, MemorySegment buffer, long bufferOffset, int length, boolean forceUnitAccess,
                            BackendCallback callback) {
        BackendStatus status = BackendStatus.INTERNAL_ERROR;
        if (!readOnly && !closed.get() && inDevice(deviceOffset, length) && inBuffer(buffer, bufferOffset, length)) {
            CallDeferral deferral = mayBlock() ? callback.deferral() : null;
            try {
                status = deferral == null ? writeChecked(deviceOffset, buffer, bufferOffset, length, forceUnitAccess)
                        : writeWithoutBlocking(deviceOffset, buffer, bufferOffset, length, forceUnitAccess);
            } catch (RuntimeException e) {
                logUnexpected("write", e);
                status = BackendStatus.INTERNAL_ERROR;
            }
            if (status == null) {
                deferral.deferWrite(this, deviceOffset, buffer, bufferOffset, length, forceUnitAccess, callback);
                return;
            }
        }
        callback.completed(status);
    }

    @Override
    public final void flush(BackendCallback callback) {
        if (!closed.get() && !readOnly && mayBlock()) {
            CallDeferral deferral = callback.deferral();
            if (deferral != null) {
                deferral.deferFlush(this, callback); // fdatasync, a RocksDB flush: they wait on the device
                return;
            }
        }
        callback.completed(closed.get() ? BackendStatus.INTERNAL_ERROR : readOnly ? BackendStatus.OK : flushChecked());
    }

    @Override
    public final void unmap(long deviceOffset, long length, BackendCallback callback) {
        boolean allowed = !readOnly && !closed.get() && inDevice(deviceOffset, length);
        if (allowed && mayBlock()) {
            CallDeferral deferral = callback.deferral();
            if (deferral != null) {
                deferral.deferUnmap(this, deviceOffset, length, callback); // fallocate, a RocksDB range delete
                return;
            }
        }
        callback.completed(allowed ? unmapChecked(deviceOffset, length) : BackendStatus.INTERNAL_ERROR);
    }

    /**
     * Whether calls may wait on a device (file, RocksDB): then, for a caller that must not wait (its callback names a
     * {@link CallDeferral}: the poller running the pipeline, with blocking-call threads), a read or write is tried
     * without waiting and every other call is deferred. False (memory, null): calls are always made as they come.
     */
    boolean mayBlock() {
        return false;
    }

    /**
     * A read on the thread that must not block: its status, or null when it would wait (it is then deferred). Defers
     * every read unless overridden.
     */
    BackendStatus readWithoutBlocking(MemorySegment iovec, long deviceOffset, MemorySegment buffer, long bufferOffset,
                                      int length) {
        return null;
    }

    /** As {@link #readWithoutBlocking}, for a write. Defers every write unless overridden. */
    BackendStatus writeWithoutBlocking(long deviceOffset, MemorySegment buffer, long bufferOffset, int length,
                                       boolean forceUnitAccess) {
        return null;
    }

    /** Reads once the ranges are known to lie inside the device and the buffer. */
    abstract BackendStatus readChecked(long deviceOffset, MemorySegment buffer, long bufferOffset, int length);

    /** Writes once the LUN is known writable and the ranges inside the device and the buffer. */
    abstract BackendStatus writeChecked(long deviceOffset, MemorySegment buffer, long bufferOffset, int length, boolean forceUnitAccess);

    /** Makes completed writes durable; never called for a read-only LUN. Nothing to do unless overridden. */
    BackendStatus flushChecked() {
        return BackendStatus.OK;
    }

    /** Unmaps once the LUN is known writable and the range inside the device. */
    abstract BackendStatus unmapChecked(long deviceOffset, long length);

    private boolean inDevice(long deviceOffset, long length) {
        return deviceOffset >= 0 && length >= 0 && length <= sizeBytes - deviceOffset;
    }

    private static boolean inBuffer(MemorySegment buffer, long bufferOffset, long length) {
        return bufferOffset >= 0 && length <= buffer.byteSize() - bufferOffset;
    }

    /** Logs an exception an operation turned into INTERNAL_ERROR, once per kind in a row, so that a bug is seen. */
    private void logUnexpected(String operation, RuntimeException e) {
        if (e.getClass() != lastLoggedFailure) {
            lastLoggedFailure = e.getClass();
            LOG.warn("{}: {} failed", logName(), operation, e);
        }
    }

    /** Every backend implements UNMAP. */
    @Override
    public final boolean supportsUnmap() {
        return true;
    }

    /** An unmapped range reads as zeroes in every backend (SBC LBPRZ). */
    @Override
    public final boolean unmapReadsZeroes() {
        return true;
    }

    /** Marks the backend closed, once, and releases what it holds; later operations complete with INTERNAL_ERROR. */
    @Override
    public final void close() {
        if (closed.compareAndSet(false, true)) {
            release();
        }
    }

    /** Frees the backend's resources; called once, by {@link #close()}. */
    abstract void release();

    /** Refuses a read-only backend's change (its file or database is open read-only), then asks the backend. */
    @Override
    public final String whyNotResizable(long to) {
        if (to <= 0) {
            return "the size must be positive, not " + to;
        }
        if (readOnly && to != sizeBytes) {
            return "its storage is open read-only; make the LUN writable first";
        }
        return to == sizeBytes ? null : whyNotResizableTo(to);
    }

    @Override
    public final void resize(long to) {
        String why = whyNotResizable(to);
        if (why != null) {
            throw new IllegalStateException(logName() + " cannot be resized to " + to + " bytes: " + why);
        }
        if (to != sizeBytes) {
            resizeStorage(to);
            sizeBytes = to;
        }
    }

    /** Why the storage cannot take {@code to} bytes while served, or null. Default: the size is only a number. */
    String whyNotResizableTo(long to) {
        return null;
    }

    /** Makes the storage {@code to} bytes long; throws {@link IllegalStateException} saying why it failed. */
    void resizeStorage(long to) {
        // the size is only a number (null)
    }

    @Override
    public final boolean readOnly() {
        return readOnly;
    }

    /** {@code LUN 3 (file /srv/lun3.img (write-back))}: what log lines start with. */
    final String logName() {
        return "LUN " + lun + " (" + this + ")";
    }

    /** How the LUN's writes become durable, for {@link #toString()}. */
    final String policy() {
        return readOnly ? "read-only" : writeThrough ? "write-through" : "write-back";
    }
}

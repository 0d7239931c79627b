package org.rdmablock.protocol.scsi;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * A {@link BlockBackend} that hands every call to another one. Subclass it to change some calls (hold them, fail them,
 * count or corrupt what they move) and keep the rest as the wrapped backend has them: how tests and benchmarks make
 * one LUN misbehave in one way.
 */
public class ForwardingBackend implements BlockBackend {
    /** The backend every call not overridden goes to. */
    protected final BlockBackend delegate;

    public ForwardingBackend(final BlockBackend delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    @Override
    public long sizeBytes() {
        return delegate.sizeBytes();
    }

    @Override
    public boolean supportsUnmap() {
        return delegate.supportsUnmap();
    }

    @Override
    public boolean unmapReadsZeroes() {
        return delegate.unmapReadsZeroes();
    }

    @Override
    public void read(final long deviceOffset, final MemorySegment buffer, final long bufferOffset, final int length,
                     final BackendCallback callback) {
        delegate.read(deviceOffset, buffer, bufferOffset, length, callback);
    }

    @Override
    public void write(final long deviceOffset, final MemorySegment buffer, final long bufferOffset, final int length,
                      final boolean forceUnitAccess, final BackendCallback callback) {
        delegate.write(deviceOffset, buffer, bufferOffset, length, forceUnitAccess, callback);
    }

    @Override
    public void flush(final BackendCallback callback) {
        delegate.flush(callback);
    }

    @Override
    public void unmap(final long deviceOffset, final long length, final BackendCallback callback) {
        delegate.unmap(deviceOffset, length, callback);
    }

    @Override
    public long provisioning(final long deviceOffset, final long length) {
        return delegate.provisioning(deviceOffset, length);
    }
}

package org.rdmablock.verbs.soft;

import java.lang.foreign.MemorySegment;

import org.rdmablock.verbs.AccessFlags;
import org.rdmablock.verbs.AddressHandle;
import org.rdmablock.verbs.AddressHandleAttributes;
import org.rdmablock.verbs.MemoryRegion;
import org.rdmablock.verbs.MemoryWindow;
import org.rdmablock.verbs.ProtectionDomain;
import org.rdmablock.verbs.QueuePair;
import org.rdmablock.verbs.QueuePairInitAttributes;
import org.rdmablock.verbs.QueuePairType;
import org.rdmablock.verbs.SharedReceiveQueue;
import org.rdmablock.verbs.VerbsException;
import org.rdmablock.verbs.spi.ResourceSet;

/** A protection domain of the soft provider; tracks its resources so that closing it early fails with EBUSY. */
final class SoftProtectionDomain implements ProtectionDomain {
    private final SoftContext context;
    private final ResourceSet resources = new ResourceSet("protection domain");
    private volatile boolean closed;

    SoftProtectionDomain(final SoftContext context) {
        this.context = context;
    }

    @Override
    public SoftContext context() {
        return context;
    }

    SoftDevice device() {
        return context.device();
    }

    private void requireOpen() {
        if (closed) {
            throw new VerbsException(VerbsException.EINVAL, "protection domain is closed");
        }
    }

    @Override
    public MemoryRegion registerMemory(final MemorySegment memory, final int access) {
        requireOpen();
        AccessFlags.validate(access);
        SoftMemoryRegion.requireNative(memory);
        if (memory.byteSize() == 0) {
            throw new VerbsException(VerbsException.EINVAL, "cannot register an empty segment");
        }
        final int stag = device().stags().allocate();
        final SoftMemoryRegion mr = new SoftMemoryRegion(this, memory, access, stag);
        device().stags().publish(stag, mr);
        resources.add(mr);
        return mr;
    }

    @Override
    public MemoryWindow allocateMemoryWindow() {
        requireOpen();
        final int stag = device().stags().allocate();
        final SoftMemoryWindow mw = new SoftMemoryWindow(this, stag);
        device().stags().publish(stag, mw);
        resources.add(mw);
        return mw;
    }

    @Override
    public QueuePair createQueuePair(final QueuePairInitAttributes attributes) {
        requireOpen();
        final SoftQueuePair qp = attributes.type() == QueuePairType.UD
            ? new SoftDatagramQueuePair(this, attributes)
            : new SoftConnectedQueuePair(this, attributes);
        resources.add(qp);
        return qp;
    }

    @Override
    public SharedReceiveQueue createSharedReceiveQueue(final int maxWr, final int maxSge) {
        requireOpen();
        if (maxWr <= 0 || maxWr > SoftDevice.MAX_QP_WR || maxSge <= 0 || maxSge > SoftDevice.MAX_SGE) {
            throw new VerbsException(VerbsException.EINVAL, "SRQ size " + maxWr + "x" + maxSge + " outside device limits");
        }
        final SoftSharedReceiveQueue srq = new SoftSharedReceiveQueue(this, maxWr, maxSge);
        resources.add(srq);
        return srq;
    }

    @Override
    public AddressHandle createAddressHandle(final AddressHandleAttributes attributes) {
        requireOpen();
        if (!attributes.isGlobal()) {
            throw new VerbsException(VerbsException.EINVAL, "the soft provider routes UD by GID only: give a destination GID");
        }
        final SoftAddressHandle ah = new SoftAddressHandle(this, attributes);
        resources.add(ah);
        return ah;
    }

    void released(final AutoCloseable resource) {
        resources.remove(resource);
    }

    @Override
    public void close() {
        resources.requireEmpty();
        if (!closed) {
            closed = true;
            context.released(this);
        }
    }

    @Override
    public String toString() {
        return "pd@" + Integer.toHexString(System.identityHashCode(this));
    }
}

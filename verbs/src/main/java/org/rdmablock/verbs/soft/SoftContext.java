package org.rdmablock.verbs.soft;

import java.util.concurrent.ArrayBlockingQueue;

import org.rdmablock.verbs.AsyncEvent;
import org.rdmablock.verbs.AsyncEventHandler;
import org.rdmablock.verbs.CompletionChannel;
import org.rdmablock.verbs.CompletionQueue;
import org.rdmablock.verbs.DeviceAttributes;
import org.rdmablock.verbs.DeviceContext;
import org.rdmablock.verbs.Gid;
import org.rdmablock.verbs.PortAttributes;
import org.rdmablock.verbs.ProtectionDomain;
import org.rdmablock.verbs.VerbsException;
import org.rdmablock.verbs.spi.ResourceSet;

/**
 * An open soft device. Asynchronous events are queued and handed to the handler on one daemon thread per
 * context, so raising an event never blocks an I/O agent.
 */
final class SoftContext implements DeviceContext {
    private static final System.Logger LOG = System.getLogger(SoftContext.class.getName());
    private static final int MAX_PENDING_EVENTS = 1024;

    private final SoftDevice device;
    private final ResourceSet resources = new ResourceSet("device context");
    private final ArrayBlockingQueue<AsyncEvent> events = new ArrayBlockingQueue<>(MAX_PENDING_EVENTS);
    private final Thread eventThread;
    private volatile AsyncEventHandler handler;
    private volatile boolean closed;

    SoftContext(final SoftDevice device) {
        this.device = device;
        eventThread = Thread.ofPlatform().daemon().name(device.name() + "-async-events").start(this::dispatchEvents);
    }

    @Override
    public SoftDevice device() {
        return device;
    }

    @Override
    public DeviceAttributes queryDevice() {
        return new DeviceAttributes("rdmablock-soft 0.1", device.guid(), Long.MAX_VALUE, SoftDevice.MAX_QP,
            SoftDevice.MAX_QP_WR, SoftDevice.MAX_SGE, SoftDevice.MAX_SGE, SoftDevice.MAX_CQ, SoftDevice.MAX_CQE, SoftDevice.MAX_MR,
            SoftDevice.MAX_PD, SoftDevice.MAX_IRD, SoftDevice.MAX_ORD, SoftDevice.MAX_MR, SoftDevice.MAX_SRQ,
            SoftDevice.MAX_QP_WR, true, 1);
    }

    @Override
    public PortAttributes queryPort(final int portNum) {
        requirePort(portNum);
        return new PortAttributes(device.portState(), SoftDevice.MTU, SoftDevice.MTU, 1, 0, PortAttributes.LinkLayer.ETHERNET);
    }

    @Override
    public Gid queryGid(final int portNum, final int index) {
        requirePort(portNum);
        if (index != 0) {
            throw new VerbsException(VerbsException.EINVAL, "the soft device has one GID (index 0), not index " + index);
        }
        return device.gid();
    }

    private static void requirePort(final int portNum) {
        if (portNum != 1) {
            throw new VerbsException(VerbsException.EINVAL, "the soft device has one port (1), not " + portNum);
        }
    }

    private void requireOpen() {
        if (closed) {
            throw new VerbsException(VerbsException.EINVAL, "device context is closed");
        }
    }

    @Override
    public ProtectionDomain allocateProtectionDomain() {
        requireOpen();
        final SoftProtectionDomain pd = new SoftProtectionDomain(this);
        resources.add(pd);
        return pd;
    }

    @Override
    public CompletionChannel createCompletionChannel() {
        requireOpen();
        final SoftCompletionChannel channel = new SoftCompletionChannel(this);
        resources.add(channel);
        return channel;
    }

    @Override
    public CompletionQueue createCompletionQueue(final int capacity, final CompletionChannel channel) {
        requireOpen();
        if (channel != null && !(channel instanceof SoftCompletionChannel)) {
            throw new VerbsException(VerbsException.EINVAL, "completion channel of another provider");
        }
        final SoftCompletionQueue cq = new SoftCompletionQueue(this, capacity, (SoftCompletionChannel) channel);
        resources.add(cq);
        return cq;
    }

    @Override
    public void setAsyncEventHandler(final AsyncEventHandler eventHandler) {
        this.handler = eventHandler;
    }

    /** Queues an asynchronous event for the handler. */
    void raise(final AsyncEvent event) {
        if (!events.offer(event)) {
            LOG.log(System.Logger.Level.WARNING, "async event queue full, dropped {0}", event.type());
        }
    }

    private void dispatchEvents() {
        while (!closed) {
            final AsyncEvent event;
            try {
                event = events.take();
            } catch (final InterruptedException e) {
                return;
            }
            final AsyncEventHandler current = handler;
            if (current == null) {
                LOG.log(System.Logger.Level.DEBUG, "async event {0} with no handler set", event.type());
                continue;
            }
            try {
                current.onEvent(event);
            } catch (final RuntimeException e) {
                LOG.log(System.Logger.Level.ERROR, "async event handler failed on " + event.type(), e);
            }
        }
    }

    void released(final AutoCloseable resource) {
        resources.remove(resource);
    }

    /**
     * Closes this opener's use of the shared context. The last close checks that every resource is gone (else
     * EBUSY); the context itself lives until the provider closes, since connection ids share it.
     */
    @Override
    public void close() {
        if (device.release()) {
            resources.requireEmpty();
        }
    }

    /**
     * The device goes away (provider close): raises DEVICE_FATAL, lets the handler see the events still queued
     * (for at most a second), then stops the event thread.
     */
    void shutdown() {
        raise(AsyncEvent.ofDevice(AsyncEvent.Type.DEVICE_FATAL));
        final long deadline = System.nanoTime() + 1_000_000_000L;
        while (!events.isEmpty() && handler != null && System.nanoTime() < deadline) {
            Thread.onSpinWait();
            Thread.yield();
        }
        closed = true;
        eventThread.interrupt();
    }
}

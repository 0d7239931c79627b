package org.rdmablock.verbs.soft;

import java.net.InetAddress;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.rdmablock.verbs.ConnectionManager;
import org.rdmablock.verbs.PortAttributes;
import org.rdmablock.verbs.RdmaDevice;
import org.rdmablock.verbs.VerbsProvider;

/**
 * The {@code soft} verbs provider: RDMA in software over TCP with the iWARP wire format, for hosts without an
 * RDMA NIC. Each instance is one device ({@code soft0}, {@code soft1}, ...) with its own STags, QP numbers and I/O
 * threads. Settings: system properties, listed in {@link Configuration}.
 */
public final class SoftProvider implements VerbsProvider {
    private static final AtomicInteger DEVICES = new AtomicInteger();

    private final SoftDevice device;
    private final SoftConnectionManager connectionManager;

    /** A provider with a new device, bound to the configured (default loopback) address for UD. */
    public SoftProvider() {
        this(Configuration.address());
    }

    /** A provider with a new device whose UD traffic binds to {@code address}. */
    public SoftProvider(final InetAddress address) {
        this(address, InboundStream.POLL_HAND_OFF_NANOS);
    }

    /**
     * As {@link #SoftProvider(InetAddress)}, with the time the I/O agent leaves a QP's socket to a thread spinning on
     * its CQs before it looks again (tests lengthen it to see that nothing waits for it).
     */
    SoftProvider(final InetAddress address, final long pollHandOffNanos) {
        device = new SoftDevice("soft" + DEVICES.getAndIncrement(), address, pollHandOffNanos);
        connectionManager = new SoftConnectionManager(device);
    }

    @Override
    public String name() {
        return "soft";
    }

    /** A soft registration is a key to a segment of this process: nothing is pinned or mapped for a device. */
    @Override
    public boolean registrationPinsMemory() {
        return false;
    }

    @Override
    public boolean isAvailable() {
        return true;
    }

    @Override
    public List<RdmaDevice> devices() {
        return List.of(device);
    }

    @Override
    public ConnectionManager connectionManager() {
        return connectionManager;
    }

    /**
     * Changes the state of the device's port as a link event would, raising PORT_ERR or PORT_ACTIVE on every open
     * context: the soft link is a software fiction, and this is how tests and tools exercise port events.
     */
    public void setPortState(final PortAttributes.State state) {
        device.setPortState(state);
    }

    @Override
    public void close() {
        device.close();
    }
}

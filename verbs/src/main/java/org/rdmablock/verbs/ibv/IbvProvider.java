package org.rdmablock.verbs.ibv;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.rdmablock.verbs.ConnectionManager;
import org.rdmablock.verbs.NoRdmaDeviceException;
import org.rdmablock.verbs.RdmaDevice;
import org.rdmablock.verbs.VerbsException;
import org.rdmablock.verbs.VerbsProvider;
import org.rdmablock.verbs.ibv.bindings.Rdma;
import org.rdmablock.verbs.ibv.bindings.ibv_context;

/**
 * The {@code native} verbs provider: libibverbs and librdmacm through FFM. Its devices are the contexts librdmacm
 * opens ({@code rdma_get_devices}), so that resources made from a device can serve connections made by the
 * connection manager; each provider instance has one rdma_cm event channel with its dispatching thread.
 */
public final class IbvProvider implements VerbsProvider {
    private static final MethodHandle GET_DEVICE_LIST = Native.UNAVAILABLE != null ? null
        : Native.withErrno(Rdma.ibv_get_device_list$address(), Rdma.ibv_get_device_list$descriptor());

    private final Map<Long, IbvContext> contexts = new ConcurrentHashMap<>();
    private List<RdmaDevice> devices;
    private MemorySegment rdmaDevices = MemorySegment.NULL;
    private IbvConnectionManager connectionManager;
    private volatile boolean closed;

    @Override
    public String name() {
        return "native";
    }

    @Override
    public boolean isAvailable() {
        try {
            return !devices().isEmpty();
        } catch (final VerbsException e) {
            return false;
        }
    }

    /**
     * The RDMA devices.
     *
     * @throws NoRdmaDeviceException when rdma-core is missing, the kernel has no RDMA support (ENOSYS) or there is
     *                               no device
     */
    @Override
    public synchronized List<RdmaDevice> devices() {
        if (devices != null) {
            return devices;
        }
        if (Native.UNAVAILABLE != null) {
            throw new NoRdmaDeviceException(VerbsException.ENOSYS, "no RDMA device: " + Native.UNAVAILABLE);
        }
        probeDeviceList();
        final MemorySegment list;
        final int n;
        try (Arena scratch = Arena.ofConfined()) {
            final MemorySegment count = scratch.allocate(ValueLayout.JAVA_INT);
            list = Rdma.rdma_get_devices(count);
            n = count.get(ValueLayout.JAVA_INT, 0);
        }
        if (list.equals(MemorySegment.NULL) || n == 0) {
            throw new NoRdmaDeviceException(VerbsException.ENODEV, "no RDMA device: librdmacm lists none (rdma link show)");
        }
        rdmaDevices = list.reinterpret((long) n * ValueLayout.ADDRESS.byteSize());
        final List<RdmaDevice> found = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            final MemorySegment context = rdmaDevices.getAtIndex(ValueLayout.ADDRESS, i).reinterpret(ibv_context.sizeof());
            final IbvContext wrapped = new IbvContext(context);
            contexts.put(context.address(), wrapped);
            found.add(wrapped.device());
        }
        devices = List.copyOf(found);
        return devices;
    }

    /** ibv_get_device_list tells apart "no kernel support" (ENOSYS) and "no device", which rdma_get_devices hides. */
    private static void probeDeviceList() {
        try (Arena scratch = Arena.ofConfined()) {
            final MemorySegment count = scratch.allocate(ValueLayout.JAVA_INT);
            final MemorySegment list = (MemorySegment) GET_DEVICE_LIST.invokeExact(Native.state(), count);
            if (list.equals(MemorySegment.NULL)) {
                final int errno = Native.errno();
                throw new NoRdmaDeviceException(errno, errno == VerbsException.ENOSYS
                    ? "no RDMA device: this kernel has no RDMA support (ibv_get_device_list: ENOSYS)"
                    : "no RDMA device: ibv_get_device_list failed: " + Native.describe(errno));
            }
            final int n = count.get(ValueLayout.JAVA_INT, 0);
            Rdma.ibv_free_device_list(list);
            if (n == 0) {
                throw new NoRdmaDeviceException(VerbsException.ENODEV, "no RDMA device: ibv_get_device_list lists none");
            }
        } catch (final VerbsException e) {
            throw e;
        } catch (final Throwable e) {
            throw new NoRdmaDeviceException(VerbsException.ENOSYS, "no RDMA device: " + e);
        }
    }

    /** The context wrapping a librdmacm {@code ibv_context*} (an id's {@code verbs}). */
    IbvContext context(final MemorySegment verbs) {
        devices();
        final IbvContext context = contexts.get(verbs.address());
        if (context == null) {
            throw new VerbsException(VerbsException.ENODEV, "unknown device context 0x" + Long.toHexString(verbs.address()));
        }
        return context;
    }

    @Override
    public synchronized ConnectionManager connectionManager() {
        devices();
        if (connectionManager == null) {
            connectionManager = new IbvConnectionManager(this);
        }
        return connectionManager;
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (connectionManager != null) {
            connectionManager.close();
        }
        for (final IbvContext context : contexts.values()) {
            context.shutdown();
        }
        if (!rdmaDevices.equals(MemorySegment.NULL)) {
            Rdma.rdma_free_devices(rdmaDevices);
        }
    }
}

package org.rdmablock.verbs.ibv;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.rdmablock.verbs.AsyncEvent;
import org.rdmablock.verbs.AsyncEventHandler;
import org.rdmablock.verbs.CompletionChannel;
import org.rdmablock.verbs.CompletionQueue;
import org.rdmablock.verbs.DeviceAttributes;
import org.rdmablock.verbs.DeviceContext;
import org.rdmablock.verbs.Gid;
import org.rdmablock.verbs.PortAttributes;
import org.rdmablock.verbs.ProtectionDomain;
import org.rdmablock.verbs.RdmaDevice;
import org.rdmablock.verbs.VerbsException;
import org.rdmablock.verbs.spi.ResourceSet;
import org.rdmablock.verbs.ibv.bindings.Rdma;
import org.rdmablock.verbs.ibv.bindings.ibv_context;
import org.rdmablock.verbs.ibv.bindings.ibv_device_attr;
import org.rdmablock.verbs.ibv.bindings.ibv_port_attr;

/**
 * An open device as one provider instance sees it: a view of a {@link SharedContext} (librdmacm's
 * {@code struct ibv_context}) with its own event handler and resources, so that two provider instances in one
 * process (two simulated hosts) keep their events apart, as two processes would.
 */
final class IbvContext implements DeviceContext {
    private static final System.Logger LOG = System.getLogger(IbvContext.class.getName());
    private static final MethodHandle ALLOC_PD = Native.withErrno(Rdma.ibv_alloc_pd$address(), Rdma.ibv_alloc_pd$descriptor());
    private static final MethodHandle CREATE_CQ = Native.withErrno(Rdma.ibv_create_cq$address(), Rdma.ibv_create_cq$descriptor());
    private static final MethodHandle CREATE_CHANNEL = Native.withErrno(Rdma.ibv_create_comp_channel$address(), Rdma.ibv_create_comp_channel$descriptor());

    private final SharedContext shared;
    final MemorySegment context;
    private final Device device;
    /** Native object address to Java object, for async events. */
    private final Map<Long, Object> objects = new ConcurrentHashMap<>();
    private final ResourceSet resources = new ResourceSet("device context");
    private volatile AsyncEventHandler handler;
    private int opens;

    IbvContext(final MemorySegment context) {
        this.context = context;
        final MemorySegment dev = ibv_context.device(context);
        this.device = new Device(Native.string(Rdma.ibv_get_device_name(dev)), Long.reverseBytes(Rdma.ibv_get_device_guid(dev)));
        this.shared = SharedContext.attach(context, this);
    }

    /** An RDMA device as the native provider lists it. */
    final class Device implements RdmaDevice {
        private final String name;
        private final long guid;

        Device(final String name, final long guid) {
            this.name = name;
            this.guid = guid;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public long guid() {
            return guid;
        }

        @Override
        public Transport transport() {
            return name.startsWith("siw") || name.startsWith("iw") || name.startsWith("cxgb") ? Transport.IWARP
                : queryPort(1).linkLayer() == PortAttributes.LinkLayer.ETHERNET ? Transport.ROCE : Transport.INFINIBAND;
        }

        @Override
        public DeviceContext open() {
            synchronized (IbvContext.this) {
                opens++;
            }
            return IbvContext.this;
        }

        @Override
        public String toString() {
            return name;
        }
    }

    @Override
    public RdmaDevice device() {
        return device;
    }

    @Override
    public DeviceAttributes queryDevice() {
        try (Arena scratch = Arena.ofConfined()) {
            final MemorySegment attr = scratch.allocate(ibv_device_attr.layout());
            check(Rdma.ibv_query_device(context, attr), "ibv_query_device");
            return new DeviceAttributes(ibv_device_attr.fw_ver(attr).getString(0), Long.reverseBytes(ibv_device_attr.node_guid(attr)),
                ibv_device_attr.max_mr_size(attr), ibv_device_attr.max_qp(attr), ibv_device_attr.max_qp_wr(attr),
                ibv_device_attr.max_sge(attr), ibv_device_attr.max_sge_rd(attr), ibv_device_attr.max_cq(attr), ibv_device_attr.max_cqe(attr),
                ibv_device_attr.max_mr(attr), ibv_device_attr.max_pd(attr), ibv_device_attr.max_qp_rd_atom(attr),
                ibv_device_attr.max_qp_init_rd_atom(attr), ibv_device_attr.max_mw(attr), ibv_device_attr.max_srq(attr),
                ibv_device_attr.max_srq_wr(attr), ibv_device_attr.atomic_cap(attr) != 0, ibv_device_attr.phys_port_cnt(attr) & 0xFF);
        }
    }

    @Override
    public PortAttributes queryPort(final int portNum) {
        try (Arena scratch = Arena.ofConfined()) {
            final MemorySegment attr = scratch.allocate(ibv_port_attr.layout());
            check(Rdma.ibv_query_port(context, (byte) portNum, attr), "ibv_query_port");
            final int link = ibv_port_attr.link_layer(attr);
            return new PortAttributes(PortAttributes.State.values()[Math.min(ibv_port_attr.state(attr), 5)],
                128 << ibv_port_attr.max_mtu(attr), 128 << ibv_port_attr.active_mtu(attr), ibv_port_attr.gid_tbl_len(attr),
                ibv_port_attr.lid(attr) & 0xFFFF, link == 2 ? PortAttributes.LinkLayer.ETHERNET
                    : link == 1 ? PortAttributes.LinkLayer.INFINIBAND : PortAttributes.LinkLayer.UNSPECIFIED);
        }
    }

    @Override
    public Gid queryGid(final int portNum, final int index) {
        try (Arena scratch = Arena.ofConfined()) {
            final MemorySegment gid = scratch.allocate(16);
            check(Rdma.ibv_query_gid(context, (byte) portNum, index, gid), "ibv_query_gid");
            return Gid.of(gid.toArray(ValueLayout.JAVA_BYTE));
        }
    }

    @Override
    public ProtectionDomain allocateProtectionDomain() {
        final MemorySegment pd = call(ALLOC_PD, "ibv_alloc_pd", context);
        return track(new IbvProtectionDomain(this, pd));
    }

    @Override
    public CompletionChannel createCompletionChannel() {
        final MemorySegment channel = call(CREATE_CHANNEL, "ibv_create_comp_channel", context);
        return track(new IbvCompletionChannel(this, channel));
    }

    @Override
    public CompletionQueue createCompletionQueue(final int capacity, final CompletionChannel channel) {
        if (channel != null && !(channel instanceof IbvCompletionChannel)) {
            throw new VerbsException(VerbsException.EINVAL, "completion channel of another provider");
        }
        final MemorySegment ch = channel == null ? MemorySegment.NULL : ((IbvCompletionChannel) channel).channel;
        final MemorySegment cq;
        try {
            cq = (MemorySegment) CREATE_CQ.invokeExact(Native.state(), context, capacity, MemorySegment.NULL, ch, 0);
        } catch (final Throwable e) {
            throw new VerbsException(VerbsException.EIO, "ibv_create_cq: " + e, e);
        }
        if (cq.equals(MemorySegment.NULL)) {
            throw Native.failure("ibv_create_cq(" + capacity + ")", Native.errno());
        }
        final IbvCompletionQueue wrapped = new IbvCompletionQueue(this, cq, (IbvCompletionChannel) channel, capacity);
        register(cq, wrapped);
        return track(wrapped);
    }

    /** Calls a one-pointer-argument constructor with errno capture; throws on NULL. */
    static MemorySegment call(final MethodHandle handle, final String what, final MemorySegment argument) {
        final MemorySegment result;
        try {
            result = (MemorySegment) handle.invokeExact(Native.state(), argument);
        } catch (final Throwable e) {
            throw new VerbsException(VerbsException.EIO, what + ": " + e, e);
        }
        if (result.equals(MemorySegment.NULL)) {
            throw Native.failure(what, Native.errno());
        }
        return result;
    }

    /** libibverbs functions that return an errno value (0 on success). */
    static void check(final int rc, final String what) {
        if (rc != 0) {
            throw Native.failure(what, rc < 0 ? -rc : rc);
        }
    }

    <T extends AutoCloseable> T track(final T resource) {
        resources.add(resource);
        return resource;
    }

    void released(final AutoCloseable resource) {
        resources.remove(resource);
    }

    void register(final MemorySegment pointer, final Object object) {
        objects.put(pointer.address(), object);
    }

    /** The CQ registered at a native address. */
    CompletionQueue cqAt(final long address) {
        return (CompletionQueue) objects.get(address);
    }

    void unregister(final MemorySegment pointer) {
        objects.remove(pointer.address());
    }

    @Override
    public void setAsyncEventHandler(final AsyncEventHandler eventHandler) {
        this.handler = eventHandler;
    }

    /** An event from the shared context: delivered if this view owns its object, or if it names no object. */
    void deliver(final AsyncEvent.Type type, final long element) {
        final AsyncEvent event = switch (type) {
            case CQ_ERR -> {
                if (objects.get(element) instanceof IbvCompletionQueue cq) {
                    cq.markOverrun(); // libibverbs keeps polling the overrun CQ: the loss must not go unnoticed
                    yield AsyncEvent.ofCq(type, cq);
                }
                yield null;
            }
            case SRQ_ERR, SRQ_LIMIT_REACHED -> objects.get(element) instanceof org.rdmablock.verbs.SharedReceiveQueue srq
                ? AsyncEvent.ofSrq(type, srq) : null;
            case PORT_ACTIVE, PORT_ERR, LID_CHANGE, PKEY_CHANGE, SM_CHANGE, CLIENT_REREGISTER, GID_CHANGE ->
                AsyncEvent.ofPort(type, (int) element);
            case DEVICE_FATAL -> AsyncEvent.ofDevice(type);
            default -> objects.get(element) instanceof org.rdmablock.verbs.QueuePair qp ? AsyncEvent.ofQp(type, qp) : null;
        };
        final AsyncEventHandler current = handler;
        if (event != null && current != null) {
            try {
                current.onEvent(event);
            } catch (final RuntimeException e) {
                LOG.log(System.Logger.Level.ERROR, "async event handler failed", e);
            }
        }
    }

    @Override
    public void close() {
        synchronized (this) {
            if (opens > 0 && --opens > 0) {
                return;
            }
        }
        resources.requireEmpty();
    }

    /** Provider close: detaches from the shared context; librdmacm owns the context itself. */
    void shutdown() {
        SharedContext.detach(shared, this);
    }
}

package org.rdmablock.verbs.ibv;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.rdmablock.verbs.ConnectionId;
import org.rdmablock.verbs.ConnectionListener;
import org.rdmablock.verbs.ConnectionManager;
import org.rdmablock.verbs.VerbsException;
import org.rdmablock.verbs.ibv.bindings.Rdma;
import org.rdmablock.verbs.ibv.bindings.pollfd;
import org.rdmablock.verbs.ibv.bindings.rdma_cm_event;
import org.rdmablock.verbs.ibv.bindings.rdma_conn_param;
import org.rdmablock.verbs.ibv.bindings.rdma_event_channel;
import org.rdmablock.verbs.ibv.bindings.sockaddr_in;
import org.rdmablock.verbs.ibv.bindings.sockaddr_in6;

/**
 * librdmacm for one provider instance: one event channel, read by a daemon thread (poll(2) on its fd, then
 * rdma_get_cm_event), whose events are copied out, acknowledged at once and handed to the id they name.
 */
final class IbvConnectionManager implements ConnectionManager {
    private static final System.Logger LOG = System.getLogger(IbvConnectionManager.class.getName());
    /** RDMA_PS_TCP: reliable connected port space. */
    static final int PS_TCP = 0x0106;
    /**
     * Private data of IB/RoCE CM messages through rdma_cm: a REQ carries 92 bytes, of which rdma_cm's address
     * header (struct cma_hdr) takes 36; a REP 196; a REJ 148 (IB_CM_*_PRIVATE_DATA_SIZE).
     */
    static final int IB_REQ_PRIVATE_DATA = 56;
    static final int IB_REP_PRIVATE_DATA = 196;
    static final int IB_REJ_PRIVATE_DATA = 148;
    /** iWARP: MPA private data is capped at RDMA_MAX_PRIVATE_DATA (256, siw's MPA_MAX_PRIVDATA) less the RFC 6581 block. */
    static final int IWARP_PRIVATE_DATA = 252;
    /** What every connect, accept and reject carries on any transport: an IB REQ's. */
    static final int MAX_PRIVATE_DATA = IB_REQ_PRIVATE_DATA;
    /** enum ibv_transport_type: iWARP. */
    static final int IBV_TRANSPORT_IWARP = 1;
    static final int AF_INET = 2;
    static final int AF_INET6 = 10;
    /** Ports in socket addresses are in network byte order. */
    private static final ValueLayout.OfShort NETWORK_SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN);

    // enum rdma_cm_event_type
    static final int ADDR_RESOLVED = 0;
    static final int ADDR_ERROR = 1;
    static final int ROUTE_RESOLVED = 2;
    static final int ROUTE_ERROR = 3;
    static final int CONNECT_REQUEST = 4;
    static final int CONNECT_RESPONSE = 5;
    static final int CONNECT_ERROR = 6;
    static final int UNREACHABLE = 7;
    static final int REJECTED = 8;
    static final int ESTABLISHED = 9;
    static final int DISCONNECTED = 10;
    static final int DEVICE_REMOVAL = 11;
    static final int TIMEWAIT_EXIT = 15;

    /** IB CM reject reasons (enum ib_cm_rej_reason) that RDMA_CM_EVENT_REJECTED carries as its status on IB/RoCE. */
    static final int IB_CM_REJ_INVALID_SERVICE_ID = 8;
    static final int IB_CM_REJ_CONSUMER_DEFINED = 28;

    private static final MethodHandle CREATE_ID = Native.withErrno(Rdma.rdma_create_id$address(), Rdma.rdma_create_id$descriptor());
    // librdmacm calls that fail with -1 and errno (see Native.errnoOf)
    static final MethodHandle BIND_ADDR = Native.withErrno(Rdma.rdma_bind_addr$address(), Rdma.rdma_bind_addr$descriptor());
    static final MethodHandle LISTEN = Native.withErrno(Rdma.rdma_listen$address(), Rdma.rdma_listen$descriptor());
    static final MethodHandle RESOLVE_ADDR = Native.withErrno(Rdma.rdma_resolve_addr$address(), Rdma.rdma_resolve_addr$descriptor());
    static final MethodHandle RESOLVE_ROUTE = Native.withErrno(Rdma.rdma_resolve_route$address(), Rdma.rdma_resolve_route$descriptor());
    static final MethodHandle CONNECT = Native.withErrno(Rdma.rdma_connect$address(), Rdma.rdma_connect$descriptor());
    static final MethodHandle ACCEPT = Native.withErrno(Rdma.rdma_accept$address(), Rdma.rdma_accept$descriptor());
    static final MethodHandle REJECT = Native.withErrno(Rdma.rdma_reject$address(), Rdma.rdma_reject$descriptor());
    private static final MethodHandle CREATE_CHANNEL = Native.withErrno(Rdma.rdma_create_event_channel$address(), Rdma.rdma_create_event_channel$descriptor());

    /** An rdma_cm event, copied out before it is acknowledged. */
    record Event(int type, int status, byte[] privateData, long id, long listenId, int responderResources, int initiatorDepth) {
    }

    private final IbvProvider provider;
    final MemorySegment channel;
    private final Map<Long, IbvConnectionId> ids = new ConcurrentHashMap<>();
    private final Map<Long, IbvConnectionListener> listeners = new ConcurrentHashMap<>();
    private final Thread dispatcher;
    private volatile boolean closed;

    IbvConnectionManager(final IbvProvider provider) {
        this.provider = provider;
        try {
            final MemorySegment ch = (MemorySegment) CREATE_CHANNEL.invokeExact(Native.state());
            if (ch.equals(MemorySegment.NULL)) {
                throw Native.failure("rdma_create_event_channel", Native.errno());
            }
            channel = ch.reinterpret(rdma_event_channel.sizeof());
        } catch (final VerbsException e) {
            throw e;
        } catch (final Throwable e) {
            throw new VerbsException(VerbsException.EIO, "rdma_create_event_channel: " + e, e);
        }
        dispatcher = Thread.ofPlatform().daemon().name("rdma-cm-events").start(this::dispatch);
    }

    IbvProvider provider() {
        return provider;
    }

    @Override
    public int maxPrivateDataLength() {
        return MAX_PRIVATE_DATA;
    }

    /** rdma_create_id on this manager's channel. */
    MemorySegment createId() {
        try (Arena scratch = Arena.ofConfined()) {
            final MemorySegment out = scratch.allocate(ValueLayout.ADDRESS);
            final int rc = (int) CREATE_ID.invokeExact(Native.state(), channel, out, MemorySegment.NULL, PS_TCP);
            if (rc != 0) {
                throw Native.failure("rdma_create_id", Native.errno());
            }
            return out.get(ValueLayout.ADDRESS, 0).reinterpret(org.rdmablock.verbs.ibv.bindings.rdma_cm_id.sizeof());
        } catch (final VerbsException e) {
            throw e;
        } catch (final Throwable e) {
            throw new VerbsException(VerbsException.EIO, "rdma_create_id: " + e, e);
        }
    }

    void register(final IbvConnectionId id) {
        ids.put(id.id.address(), id);
    }

    void unregister(final IbvConnectionId id) {
        ids.remove(id.id.address());
    }

    void register(final IbvConnectionListener listener) {
        listeners.put(listener.id.address(), listener);
    }

    void unregister(final IbvConnectionListener listener) {
        listeners.remove(listener.id.address());
    }

    @Override
    public ConnectionListener listen(final InetSocketAddress address, final int backlog) {
        return new IbvConnectionListener(this, address, backlog);
    }

    @Override
    public ConnectionId resolve(final InetSocketAddress remote, final Duration timeout) {
        final IbvConnectionId id = new IbvConnectionId(this, createId(), null);
        try {
            id.resolve(remote, timeout);
            return id;
        } catch (final RuntimeException e) {
            id.close();
            throw e;
        }
    }

    private void dispatch() {
        try (Arena scratch = Arena.ofConfined()) {
            final MemorySegment fds = scratch.allocate(pollfd.layout());
            final MemorySegment out = scratch.allocate(ValueLayout.ADDRESS);
            pollfd.fd(fds, rdma_event_channel.fd(channel));
            pollfd.events(fds, (short) 1);
            while (!closed) {
                if (Rdma.poll(fds, 1, 200) <= 0 || Rdma.rdma_get_cm_event(channel, out) != 0) {
                    continue;
                }
                final MemorySegment event = out.get(ValueLayout.ADDRESS, 0).reinterpret(rdma_cm_event.sizeof());
                final Event copied = copy(event);
                final IbvConnectionListener listener = copied.type() == CONNECT_REQUEST ? listeners.get(copied.listenId()) : null;
                try {
                    if (listener != null) {
                        listener.request(rdma_cm_event.id(event), copied); // before the ack: the new id is ours now
                    }
                } catch (final RuntimeException e) {
                    LOG.log(System.Logger.Level.ERROR, "connection request handling failed", e);
                }
                Rdma.rdma_ack_cm_event(event);
                if (listener == null) {
                    final IbvConnectionId id = ids.get(copied.id());
                    if (id != null) {
                        id.onEvent(copied);
                    } else if (copied.type() != TIMEWAIT_EXIT) {
                        LOG.log(System.Logger.Level.DEBUG, "rdma_cm event {0} for an unknown id", copied.type());
                    }
                }
            }
        }
    }

    private static Event copy(final MemorySegment event) {
        final MemorySegment param = rdma_cm_event.param(event);
        final MemorySegment conn = param; // param.conn is the union's first member
        final int length = rdma_conn_param.private_data_len(conn) & 0xFF;
        final MemorySegment data = rdma_conn_param.private_data(conn);
        final byte[] privateData = length == 0 || data.equals(MemorySegment.NULL) ? new byte[0]
            : data.reinterpret(length).toArray(ValueLayout.JAVA_BYTE);
        return new Event(rdma_cm_event.event(event), rdma_cm_event.status(event), privateData,
            rdma_cm_event.id(event).address(), rdma_cm_event.listen_id(event).address(),
            rdma_conn_param.responder_resources(conn) & 0xFF, rdma_conn_param.initiator_depth(conn) & 0xFF);
    }

    /** rdma_get_local_addr (static inline in rdma_cma.h): the id's route.addr.src_addr. */
    static InetSocketAddress localAddress(final MemorySegment id) {
        return address(org.rdmablock.verbs.ibv.bindings.rdma_addr.src_addr(
            org.rdmablock.verbs.ibv.bindings.rdma_route.addr(org.rdmablock.verbs.ibv.bindings.rdma_cm_id.route(id))));
    }

    /** rdma_get_peer_addr (static inline in rdma_cma.h): the id's route.addr.dst_addr. */
    static InetSocketAddress peerAddress(final MemorySegment id) {
        return address(org.rdmablock.verbs.ibv.bindings.rdma_addr.dst_addr(
            org.rdmablock.verbs.ibv.bindings.rdma_route.addr(org.rdmablock.verbs.ibv.bindings.rdma_cm_id.route(id))));
    }

    /**
     * A {@code struct sockaddr_in} or {@code struct sockaddr_in6} for a socket address (a host name is resolved
     * first), sized as librdmacm expects for its family.
     */
    static MemorySegment sockaddr(final Arena arena, final InetSocketAddress address) {
        final InetSocketAddress resolved = address.isUnresolved() ? new InetSocketAddress(address.getHostString(), address.getPort()) : address;
        if (resolved.isUnresolved()) {
            throw new VerbsException(VerbsException.ENOENT, "cannot resolve " + address.getHostString());
        }
        return switch (resolved.getAddress()) {
            case Inet4Address ip -> {
                final MemorySegment sa = arena.allocate(sockaddr_in.layout());
                sa.set(ValueLayout.JAVA_SHORT, 0, (short) AF_INET);
                sa.set(NETWORK_SHORT, sockaddr_in.sin_port$offset(), (short) resolved.getPort());
                MemorySegment.copy(ip.getAddress(), 0, sa, ValueLayout.JAVA_BYTE, sockaddr_in.sin_addr$offset(), 4);
                yield sa;
            }
            case Inet6Address ip -> {
                final MemorySegment sa = arena.allocate(sockaddr_in6.layout());
                sa.set(ValueLayout.JAVA_SHORT, 0, (short) AF_INET6);
                sa.set(NETWORK_SHORT, sockaddr_in6.sin6_port$offset(), (short) resolved.getPort());
                MemorySegment.copy(ip.getAddress(), 0, sa, ValueLayout.JAVA_BYTE, sockaddr_in6.sin6_addr$offset(), 16);
                sockaddr_in6.sin6_scope_id(sa, ip.getScopeId()); // link-local addresses name their interface
                yield sa;
            }
            default -> throw new VerbsException(VerbsException.EAFNOSUPPORT, "the native provider connects by IPv4 or IPv6 address, not " + address);
        };
    }

    /** The IPv4 or IPv6 socket address at a {@code struct sockaddr *}, or null (none, or another family). */
    static InetSocketAddress address(final MemorySegment sockaddr) {
        if (sockaddr.equals(MemorySegment.NULL)) {
            return null;
        }
        final short family = sockaddr.reinterpret(2).get(ValueLayout.JAVA_SHORT, 0);
        try {
            if (family == AF_INET) {
                final MemorySegment sa = sockaddr.reinterpret(sockaddr_in.sizeof());
                final byte[] ip = sa.asSlice(sockaddr_in.sin_addr$offset(), 4).toArray(ValueLayout.JAVA_BYTE);
                return new InetSocketAddress(InetAddress.getByAddress(ip), sa.get(NETWORK_SHORT, sockaddr_in.sin_port$offset()) & 0xFFFF);
            }
            if (family == AF_INET6) {
                final MemorySegment sa = sockaddr.reinterpret(sockaddr_in6.sizeof());
                final byte[] ip = sa.asSlice(sockaddr_in6.sin6_addr$offset(), 16).toArray(ValueLayout.JAVA_BYTE);
                final int scope = sockaddr_in6.sin6_scope_id(sa);
                final InetAddress host = scope != 0 ? Inet6Address.getByAddress(null, ip, scope) : InetAddress.getByAddress(ip);
                return new InetSocketAddress(host, sa.get(NETWORK_SHORT, sockaddr_in6.sin6_port$offset()) & 0xFFFF);
            }
        } catch (final UnknownHostException e) {
            return null; // not for a 4- or 16-byte address
        }
        return null;
    }

    void close() {
        closed = true;
        try {
            dispatcher.join(1000);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (final IbvConnectionId id : ids.values()) {
            id.close();
        }
        for (final IbvConnectionListener listener : listeners.values()) {
            listener.close();
        }
        Rdma.rdma_destroy_event_channel(channel);
    }
}

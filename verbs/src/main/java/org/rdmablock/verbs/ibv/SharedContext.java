package org.rdmablock.verbs.ibv;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import org.rdmablock.verbs.AsyncEvent;
import org.rdmablock.verbs.ibv.bindings.Rdma;
import org.rdmablock.verbs.ibv.bindings.ibv_async_event;
import org.rdmablock.verbs.ibv.bindings.ibv_context;
import org.rdmablock.verbs.ibv.bindings.pollfd;

/**
 * A librdmacm-owned {@code struct ibv_context}, shared by every provider instance in the process (librdmacm
 * opens each device once per process). It reads the device's asynchronous events on one daemon thread (poll(2)
 * on the async fd, then ibv_get_async_event) and hands each to the provider's context that owns the QP, CQ or
 * SRQ it names; port and device events go to all of them.
 */
final class SharedContext {
    private static final Map<Long, SharedContext> OPEN = new ConcurrentHashMap<>();

    final MemorySegment context;
    private final CopyOnWriteArrayList<IbvContext> views = new CopyOnWriteArrayList<>();
    private final Thread reader;
    private volatile boolean closed;

    private SharedContext(final MemorySegment context) {
        this.context = context;
        final String name = Native.string(Rdma.ibv_get_device_name(ibv_context.device(context)));
        reader = Thread.ofPlatform().daemon().name(name + "-async-events").start(this::readEvents);
    }

    /** The shared context of a librdmacm context pointer, with {@code view} attached. */
    static synchronized SharedContext attach(final MemorySegment context, final IbvContext view) {
        final SharedContext shared = OPEN.computeIfAbsent(context.address(), k -> new SharedContext(context));
        shared.views.add(view);
        return shared;
    }

    /** Detaches a view; the last one stops the event thread. */
    static synchronized void detach(final SharedContext shared, final IbvContext view) {
        shared.views.remove(view);
        if (shared.views.isEmpty()) {
            OPEN.remove(shared.context.address());
            shared.closed = true;
            try {
                shared.reader.join(1000);
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void readEvents() {
        try (Arena scratch = Arena.ofConfined()) {
            final MemorySegment fds = scratch.allocate(pollfd.layout());
            final MemorySegment event = scratch.allocate(ibv_async_event.layout());
            pollfd.fd(fds, ibv_context.async_fd(context));
            pollfd.events(fds, (short) 1); // POLLIN
            while (!closed) {
                if (Rdma.poll(fds, 1, 200) <= 0 || Rdma.ibv_get_async_event(context, event) != 0) {
                    continue;
                }
                final int code = ibv_async_event.event_type(event);
                final long element = ibv_async_event.element(event).get(ValueLayout.JAVA_LONG, 0);
                Rdma.ibv_ack_async_event(event);
                if (code >= 0 && code < AsyncEvent.Type.values().length) {
                    dispatch(AsyncEvent.Type.values()[code], element);
                }
            }
        }
    }

    private void dispatch(final AsyncEvent.Type type, final long element) {
        for (final IbvContext view : views) {
            view.deliver(type, element);
        }
    }
}

package org.rdmablock.verbs.conformance;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.rdmablock.verbs.AsyncEvent;
import org.rdmablock.verbs.Await;
import org.rdmablock.verbs.CompletionQueue;
import org.rdmablock.verbs.DeviceContext;
import org.rdmablock.verbs.MemoryRegion;
import org.rdmablock.verbs.ProtectionDomain;
import org.rdmablock.verbs.VerbsProvider;

/**
 * One simulated host in a test: a provider instance, an open device context, a PD, and the native memory and
 * registrations made through it; closes everything in reverse order.
 */
public final class Host implements AutoCloseable {
    final ProviderFixture fixture;
    final VerbsProvider provider;
    final DeviceContext context;
    final ProtectionDomain pd;
    final Arena arena = Arena.ofShared();
    final List<AsyncEvent> events = new CopyOnWriteArrayList<>();
    private final List<AutoCloseable> resources = new ArrayList<>();

    Host(final ProviderFixture fixture) {
        this(fixture, fixture.factory().get());
    }

    private Host(final ProviderFixture fixture, final VerbsProvider provider) {
        this.fixture = fixture;
        this.provider = provider;
        this.context = provider.devices().getFirst().open();
        this.context.setAsyncEventHandler(events::add);
        this.pd = context.allocateProtectionDomain();
    }

    /** Native memory of {@code size} bytes, 64-byte aligned, zeroed. */
    MemorySegment allocate(final long size) {
        return arena.allocate(size, 64);
    }

    MemoryRegion register(final MemorySegment memory, final int access) {
        final MemoryRegion mr = pd.registerMemory(memory, access);
        resources.add(mr);
        return mr;
    }

    public MemoryRegion register(final long size, final int access) {
        return register(allocate(size), access);
    }

    CompletionQueue cq(final int size) {
        return cq(size, null);
    }

    /** A CQ on {@code channel} (null: none), closed with the host. */
    CompletionQueue cq(final int size, final org.rdmablock.verbs.CompletionChannel channel) {
        final CompletionQueue cq = context.createCompletionQueue(size, channel);
        resources.add(cq);
        return cq;
    }

    /** Remembers a resource to close with the host (closed in reverse order of tracking). */
    <T extends AutoCloseable> T track(final T resource) {
        resources.add(resource);
        return resource;
    }

    /** Waits until an async event of {@code type} arrived. */
    AsyncEvent awaitEvent(final AsyncEvent.Type type, final Duration timeout) throws InterruptedException {
        final AsyncEvent[] found = new AsyncEvent[1];
        Await.atMost("a " + type + " event", timeout).untilAsserted(() -> {
            found[0] = events.stream().filter(event -> event.type() == type).findFirst()
                .orElseThrow(() -> new AssertionError("no " + type + " event; saw " + events));
        });
        return found[0];
    }

    @Override
    public void close() {
        for (int i = resources.size() - 1; i >= 0; i--) {
            try {
                resources.get(i).close();
            } catch (final Exception e) {
                // tests close what they can: a failed test may leave resources busy
            }
        }
        try {
            pd.close();
            context.close();
        } catch (final RuntimeException ignored) {
            // see above
        }
        provider.close();
        arena.close();
    }
}

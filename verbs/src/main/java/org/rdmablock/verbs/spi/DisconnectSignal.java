package org.rdmablock.verbs.spi;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.rdmablock.verbs.ConnectionId;
import org.rdmablock.verbs.DisconnectReason;

/**
 * The end of a connection as a provider's {@link ConnectionId} reports it: fires once, runs the handlers
 * registered with {@link ConnectionId#onDisconnect} (a handler registered later runs at once) and releases
 * {@link ConnectionId#awaitDisconnect} waiters. Thread-safe.
 */
public final class DisconnectSignal {
    private static final System.Logger LOG = System.getLogger(DisconnectSignal.class.getName());

    private final CountDownLatch ended = new CountDownLatch(1);
    private final List<Consumer<ConnectionId>> handlers = new ArrayList<>();
    private boolean fired;
    private volatile DisconnectReason reason;

    /**
     * Fires the signal for {@code id} with {@code why}: records the reason and runs {@code whileFiring} (under the
     * signal's lock, so that it runs once and before any handler, which may read {@link #reason()}), then the
     * handlers. Returns false when it had already fired (the first reason stays).
     */
    public boolean fire(final ConnectionId id, final DisconnectReason why, final Runnable whileFiring) {
        final List<Consumer<ConnectionId>> toRun;
        synchronized (handlers) {
            if (fired) {
                return false;
            }
            fired = true;
            reason = java.util.Objects.requireNonNull(why, "why");
            whileFiring.run();
            toRun = List.copyOf(handlers);
            handlers.clear();
        }
        ended.countDown();
        for (final Consumer<ConnectionId> handler : toRun) {
            try {
                handler.accept(id);
            } catch (final RuntimeException e) {
                LOG.log(System.Logger.Level.ERROR, "disconnect handler failed", e);
            }
        }
        return true;
    }

    /** Registers a handler, or runs it at once when the signal has fired. */
    public void onDisconnect(final ConnectionId id, final Consumer<ConnectionId> handler) {
        synchronized (handlers) {
            if (!fired) {
                handlers.add(handler);
                return;
            }
        }
        handler.accept(id);
    }

    /** Why the connection ended, or null while it has not (see {@link ConnectionId#disconnectReason()}). */
    public DisconnectReason reason() {
        return reason;
    }

    /** Waits until the signal fires; false if {@code timeout} passed first. */
    public boolean await(final Duration timeout) throws InterruptedException {
        return ended.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }
}

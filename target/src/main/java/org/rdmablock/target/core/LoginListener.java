package org.rdmablock.target.core;

import org.rdmablock.verbs.ConnectionId;
import org.rdmablock.verbs.ConnectionListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * Takes connection requests off a front end's listener and starts each login (SRP's login, NVMe's queue connect) on
 * a virtual thread of its own: an accept waits for the initiator (up to 10 s), and one slow initiator must not hold
 * up the others' logins.
 *
 * <p>Thread: its own, named by the front end ({@code srp-login}, {@code nvme-connect}), for the loop; each login on a
 * virtual thread; {@link #close} on the closing thread.
 */
public final class LoginListener implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LoginListener.class);
    /** How long the loop waits for a request before it looks whether the listener is closing. */
    private static final Duration LISTEN_POLL = Duration.ofMillis(200);
    /** How long {@link #close} waits for the loop to end. */
    private static final long CLOSE_WAIT_MILLIS = 5_000;

    private final ConnectionListener listener;
    private final Consumer<ConnectionId> login;
    private final String threadName;
    private final Thread thread;
    private volatile boolean running = true;

    /**
     * Starts the loop at once.
     *
     * @param login runs for each request, on a virtual thread: admits and accepts or rejects it. A request it throws
     *              for is closed.
     */
    public LoginListener(final String threadName, final ConnectionListener listener, final Consumer<ConnectionId> login) {
        this.listener = listener;
        this.login = login;
        this.threadName = threadName;
        this.thread = Thread.ofPlatform().name(threadName).daemon().start(this::run);
    }

    /** The address listened on (with the real port when 0 was asked for). */
    public InetSocketAddress localAddress() {
        return listener.localAddress();
    }

    private void run() {
        while (running) {
            final ConnectionId request;
            try {
                request = listener.nextRequest(LISTEN_POLL);
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                if (running) {
                    LOG.warn("listener failed; no more logins are taken", e);
                }
                return;
            }
            if (request != null) {
                Thread.ofVirtual().name(threadName + "-", request.hashCode()).start(() -> {
                    try {
                        login.accept(request);
                    } catch (RuntimeException e) {
                        LOG.warn("login from {} failed", request.remoteAddress(), e);
                        request.close();
                    }
                });
            }
        }
    }

    /** Stops taking requests: closes the listener and waits for the loop to end. */
    @Override
    public void close() {
        running = false;
        listener.close();
        try {
            thread.join(CLOSE_WAIT_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

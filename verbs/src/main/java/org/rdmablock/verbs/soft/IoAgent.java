package org.rdmablock.verbs.soft;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A duty-cycle agent that runs the soft provider's socket I/O: it waits on a {@link Selector} for the channels of
 * its endpoints, lets them read and place incoming data and flush backlogged sends, runs tasks handed over by
 * other threads and fires endpoint timers. One thread per agent; endpoints are spread over agents.
 *
 * <p>Idle strategy: after {@link #SPIN_LIMIT} idle duty cycles spent in {@code selectNow()}, the agent blocks in
 * {@code select()} until a channel is ready, a task arrives ({@link #execute} wakes it) or the next timer is due.
 */
final class IoAgent implements Runnable {
    /** Idle duty cycles spent polling before blocking ({@link Configuration#AGENT_SPINS_PROP_NAME}). */
    static final int SPIN_LIMIT = Configuration.agentSpins();

    /** A channel owner driven by an agent. */
    interface Endpoint {
        /** Handles readiness of the endpoint's channel; returns the work done (0 when nothing happened). */
        int onReady(SelectionKey key);

        /** Runs when the endpoint's timer (see {@link #nextDeadline()}) is due; returns the work done. */
        default int onTimer(final long nowNanos) {
            return 0;
        }

        /**
         * The next time, in {@link System#nanoTime()} terms, this endpoint wants {@link #onTimer}, or
         * Long.MAX_VALUE; consulted while the endpoint is armed with {@link IoAgent#armTimer}.
         */
        default long nextDeadline() {
            return Long.MAX_VALUE;
        }

        /** Runs every {@link #SWEEP_NANOS} while the endpoint is {@link IoAgent#watch watched}; returns the work done. */
        default int onSweep(final long nowNanos) {
            return 0;
        }
    }

    /**
     * Period of the liveness sweep over watched endpoints: one pass over them every 25 ms, rather than a timer per
     * endpoint consulted on every duty cycle, so that many idle connections cost nothing between passes.
     */
    static final long SWEEP_NANOS = TimeUnit.MILLISECONDS.toNanos(25);

    private final String name;
    private final Selector selector;
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final Consumer<SelectionKey> readyHandler = this::onReadyKey;
    private final java.util.ArrayList<Endpoint> timed = new java.util.ArrayList<>();
    private final java.util.ArrayList<Endpoint> watched = new java.util.ArrayList<>();
    private long nextSweep = Long.MAX_VALUE;
    private final Thread thread;
    private volatile boolean running = true;
    private int readyWork;

    IoAgent(final String name) {
        this.name = name;
        try {
            selector = Selector.open();
        } catch (final IOException e) {
            throw new UncheckedIOException("cannot open a selector", e);
        }
        thread = Thread.ofPlatform().daemon().name(name).unstarted(this);
        thread.start();
    }

    boolean isAgentThread() {
        return Thread.currentThread() == thread;
    }

    /** The agent's thread id (tests measure its CPU time). */
    long threadId() {
        return thread.threadId();
    }

    /** Runs {@code task} on the agent thread (at once if called from it). */
    void execute(final Runnable task) {
        if (isAgentThread()) {
            task.run();
            return;
        }
        tasks.add(task);
        selector.wakeup();
    }

    /** Wakes the agent from a blocking select (after an endpoint changed its interest or timers). */
    void wakeup() {
        if (!isAgentThread()) {
            selector.wakeup();
        }
    }

    /** Registers a non-blocking channel; the key is handed to {@code whenRegistered} on the agent thread. */
    void register(final SelectableChannel channel, final int ops, final Endpoint endpoint, final Consumer<SelectionKey> whenRegistered) {
        execute(() -> {
            try {
                whenRegistered.accept(channel.register(selector, ops, endpoint));
            } catch (final ClosedChannelException e) {
                whenRegistered.accept(null);
            }
        });
    }

    /** Makes the agent consult {@code endpoint.nextDeadline()} until it returns Long.MAX_VALUE. Agent thread only. */
    void armTimer(final Endpoint endpoint) {
        if (!timed.contains(endpoint)) {
            timed.add(endpoint);
        }
    }

    /** Adds {@code endpoint} to the liveness sweep until {@link #unwatch}. */
    void watch(final Endpoint endpoint) {
        if (!isAgentThread()) {
            execute(() -> watch(endpoint));
            return;
        }
        if (!watched.contains(endpoint)) {
            watched.add(endpoint);
            if (nextSweep == Long.MAX_VALUE) {
                nextSweep = System.nanoTime() + SWEEP_NANOS;
            }
        }
    }

    /** Removes {@code endpoint} from the liveness sweep. */
    void unwatch(final Endpoint endpoint) {
        if (!isAgentThread()) {
            execute(() -> unwatch(endpoint));
            return;
        }
        watched.remove(endpoint);
        if (watched.isEmpty()) {
            nextSweep = Long.MAX_VALUE;
        }
    }

    @Override
    public void run() {
        int idle = 0;
        while (running) {
            try {
                final int work = doWork(idle >= SPIN_LIMIT);
                idle = work > 0 ? 0 : idle + 1;
            } catch (final RuntimeException | Error e) {
                // An endpoint bug must not stop the agent: the endpoint has failed its own QP already.
                System.getLogger(IoAgent.class.getName()).log(System.Logger.Level.ERROR, name + ": duty cycle failed", e);
            }
        }
        try {
            selector.close();
        } catch (final IOException ignored) {
            // closing anyway
        }
    }

    private int doWork(final boolean block) {
        int work = runTasks();
        final long now = System.nanoTime();
        long nextDeadline = Long.MAX_VALUE;
        for (int i = timed.size() - 1; i >= 0; i--) {
            final Endpoint endpoint = timed.get(i);
            long deadline = endpoint.nextDeadline();
            if (deadline != Long.MAX_VALUE && deadline - now <= 0) {
                work += endpoint.onTimer(now);
                deadline = endpoint.nextDeadline();
            }
            if (deadline == Long.MAX_VALUE) {
                timed.remove(i);
            } else {
                nextDeadline = Math.min(nextDeadline, deadline);
            }
        }
        if (now - nextSweep >= 0) {
            for (int i = watched.size() - 1; i >= 0; i--) {
                work += watched.get(i).onSweep(now);
            }
            nextSweep = watched.isEmpty() ? Long.MAX_VALUE : now + SWEEP_NANOS;
        }
        nextDeadline = Math.min(nextDeadline, nextSweep);
        readyWork = 0;
        try {
            if (block && work == 0 && tasks.isEmpty()) {
                final long waitMillis = nextDeadline == Long.MAX_VALUE ? 0
                    : Math.max(1, TimeUnit.NANOSECONDS.toMillis(nextDeadline - now));
                selector.select(readyHandler, waitMillis);
            } else {
                selector.selectNow(readyHandler);
            }
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
        return work + readyWork;
    }

    private void onReadyKey(final SelectionKey key) {
        if (key.isValid() && key.attachment() instanceof Endpoint endpoint) {
            readyWork += Math.max(1, endpoint.onReady(key));
        }
    }

    private int runTasks() {
        int work = 0;
        Runnable task;
        while ((task = tasks.poll()) != null) {
            task.run();
            work++;
        }
        return work;
    }

    void close() {
        running = false;
        selector.wakeup();
        if (!isAgentThread()) {
            try {
                thread.join(TimeUnit.SECONDS.toMillis(5));
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}

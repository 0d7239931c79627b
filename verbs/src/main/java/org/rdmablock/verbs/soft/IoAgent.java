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

import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.AgentTerminationException;

/**
 * A duty-cycle agent that runs the soft provider's socket I/O: it waits on a {@link Selector} for the channels of
 * its endpoints, lets them read and place incoming data and flush backlogged sends, runs tasks handed over by
 * other threads and fires endpoint timers: an Agrona {@link Agent} with an {@link org.agrona.concurrent.IdleStrategy},
 * on one thread per agent, named after the agent, that runs its own loop ({@link #run}); endpoints are spread over
 * agents.
 *
 * <p>Idle strategy ({@link SelectorIdleStrategy}): after {@link #SPIN_LIMIT} idle duty cycles spent in
 * {@code selectNow()}, the agent blocks in {@code select()} until a channel is ready, a task arrives ({@link #execute}
 * wakes it) or the next timer is due.
 */
final class IoAgent implements Agent {
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

    private static final System.Logger LOG = System.getLogger(IoAgent.class.getName());
    /** How long {@link #close} waits for the thread to end. */
    private static final long CLOSE_TIMEOUT_MILLIS = TimeUnit.SECONDS.toMillis(5);

    private final String name;
    private final Selector selector;
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final Consumer<SelectionKey> readyHandler = this::onReadyKey;
    private final java.util.ArrayList<Endpoint> timed = new java.util.ArrayList<>();
    private final java.util.ArrayList<Endpoint> watched = new java.util.ArrayList<>();
    private long nextSweep = Long.MAX_VALUE;
    /** The earliest timer or sweep, as the last duty cycle found it: how long the blocking select may wait. */
    private long nextDeadline = Long.MAX_VALUE;
    /** When the last duty cycle started ({@link System#nanoTime()}); the blocking select's wait counts from it. */
    private long cycleStart;
    private final SelectorIdleStrategy idleStrategy;
    private final Thread thread;
    /** Set by {@link #close}: the agent stops blocking and ends its loop. */
    private volatile boolean closing;
    private int readyWork;
    /** Interrupts found on the agent thread and cleared ({@link #clearStrayInterrupt}). */
    private long strayInterrupts;

    /** An agent polling {@link #SPIN_LIMIT} idle duty cycles before it blocks; its thread starts at once. */
    IoAgent(final String name) {
        this(name, SPIN_LIMIT);
    }

    /** An agent polling {@code spins} idle duty cycles before it blocks; its daemon thread, {@code name}, starts at once. */
    IoAgent(final String name, final int spins) {
        this.name = name;
        try {
            selector = Selector.open();
        } catch (final IOException e) {
            throw new UncheckedIOException("cannot open a selector", e);
        }
        idleStrategy = new SelectorIdleStrategy(spins, this::park);
        thread = Thread.ofPlatform().daemon().name(name).unstarted(this::run);
        thread.start();
    }

    @Override
    public String roleName() {
        return name;
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

    /**
     * The agent's thread: duty cycles and the idle strategy until {@link #close}. Not Agrona's {@link AgentRunner},
     * which also stops, silently, when it finds its thread interrupted between a cycle and the next: an interrupt
     * there is a window no clearing inside the cycle closes, and every connection on the agent would hang unread.
     */
    private void run() {
        try {
            while (true) {
                int work;
                try {
                    work = doWork();
                } catch (final AgentTerminationException e) {
                    return;
                } catch (final RuntimeException e) {
                    onError(e);
                    work = 1;
                }
                try {
                    idleStrategy.idle(work);
                } catch (final RuntimeException e) {
                    onError(e); // the blocking select failed: logged, and the loop goes on
                }
            }
        } finally {
            onClose();
        }
    }

    /**
     * One duty cycle: runs the tasks handed over, fires due timers and the sweep, then polls the selector and
     * handles what is ready; when nothing was done and the idle strategy is about to park, the poll is left to the
     * strategy's blocking select ({@link #park}).
     */
    @Override
    public int doWork() {
        if (closing) {
            throw new AgentTerminationException(name + " closed", true);
        }
        try {
            return dutyCycle();
        } catch (final Error e) {
            onError(e); // the runner would end the thread on an Error; see onError
            return 1;
        } finally {
            clearStrayInterrupt(); // the runner looks for one after each idle cycle
        }
    }

    private int dutyCycle() {
        int work = runTasks();
        final long now = System.nanoTime();
        cycleStart = now;
        long earliest = Long.MAX_VALUE;
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
                earliest = Math.min(earliest, deadline);
            }
        }
        if (now - nextSweep >= 0) {
            for (int i = watched.size() - 1; i >= 0; i--) {
                work += watched.get(i).onSweep(now);
            }
            nextSweep = watched.isEmpty() ? Long.MAX_VALUE : now + SWEEP_NANOS;
        }
        nextDeadline = Math.min(earliest, nextSweep);
        if (work == 0 && idleStrategy.parking()) {
            return 0; // the idle strategy selects next, blocking
        }
        readyWork = 0;
        try {
            selector.selectNow(readyHandler);
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
        return work + readyWork;
    }

    /**
     * The idle strategy's park: blocks in the selector until a channel is ready, a task arrives or the next timer is
     * due, and handles what is ready; does not block while tasks wait or the agent is closing.
     */
    private int park() {
        readyWork = 0;
        try {
            if (tasks.isEmpty() && !closing) {
                final long waitMillis = nextDeadline == Long.MAX_VALUE ? 0
                    : Math.max(1, TimeUnit.NANOSECONDS.toMillis(nextDeadline - cycleStart));
                selector.select(readyHandler, waitMillis);
            } else {
                selector.selectNow(readyHandler);
            }
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        } catch (final Error e) {
            onError(e);
            return 1;
        } finally {
            clearStrayInterrupt(); // a select returns at once on an interrupt: the runner must not see it
        }
        return readyWork;
    }

    /**
     * Only {@link #close} ends an agent (see {@link #run}): an interrupt that reaches the agent thread is logged and
     * cleared, since a select returns at once while one is pending.
     */
    private void clearStrayInterrupt() {
        if (Thread.interrupted()) {
            strayInterrupts++;
            LOG.log(System.Logger.Level.WARNING, "{0}: interrupted ({1} time(s)); an I/O agent stops only when its device closes, going on",
                name, strayInterrupts);
        }
    }

    /**
     * An endpoint bug must not stop the agent: the endpoint has failed its own QP already, so the failure is logged
     * and the loop goes on. Exceptions reach this from {@link #run}; Errors, which would end the thread (and every
     * connection on it), are caught in the duty cycle and the park.
     */
    private void onError(final Throwable failure) {
        LOG.log(System.Logger.Level.ERROR, name + ": duty cycle failed", failure);
    }

    @Override
    public void onClose() {
        if (!closing) {
            LOG.log(System.Logger.Level.ERROR, "{0} stopped while its device is open: its connections are no longer served", name);
        }
        try {
            selector.close();
        } catch (final IOException ignored) {
            // closing anyway
        }
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

    /**
     * Stops the agent: its next duty cycle ends the runner's loop (an expected {@link AgentTerminationException}),
     * which closes the selector. From another thread, waits up to {@link #CLOSE_TIMEOUT_MILLIS} for that.
     */
    void close() {
        closing = true;
        selector.wakeup();
        if (!isAgentThread()) {
            try {
                thread.join(CLOSE_TIMEOUT_MILLIS);
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (thread.isAlive()) {
                LOG.log(System.Logger.Level.WARNING, "{0} did not stop within {1} ms", name, CLOSE_TIMEOUT_MILLIS);
            }
        }
    }
}

package org.rdmablock.target.core;

import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentTerminationException;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.rdmablock.target.Configuration;
import org.rdmablock.verbs.CompletionChannel;
import org.rdmablock.verbs.CompletionQueue;
import org.rdmablock.verbs.VerbsException;
import org.rdmablock.verbs.WorkCompletions;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The duty-cycle agent between the completion queue and the pipeline: polls a batch of completions and publishes
 * each, routing by its work request id alone ({@link WorkRequestIds}). Every idle period of {@link #TICK_NANOS} it
 * publishes a tick so that the intake stage does its housekeeping. Without backend threads the publish runs the
 * pipeline right here, and each duty cycle ends by posting what that work gathered, one chain per QP
 * ({@link SendBatch}). When the CQ is empty, its {@link #idleStrategy} backs off: spin, yield, then short parks
 * ({@code completions = "poll"}), or arm the CQ and sleep on its completion channel ({@code "event"},
 * {@link CompletionEventIdle}).
 *
 * <p>Thread: its own ({@code srp-poller}), run by Agrona's {@code AgentRunner}: the only thread that polls the CQ and
 * the pipeline's only producer.
 */
final class CompletionPoller implements Agent {
    private static final Logger LOG = LoggerFactory.getLogger(CompletionPoller.class);
    /** Completions taken per poll. */
    static final int BATCH = 64;
    /** Busy mode: empty polls spent spinning before the poller yields ({@code Configuration.pollerSpins}). */
    private static final int SPINS = Configuration.pollerSpins();
    /** Event mode: empty polls before the poller arms the CQ and sleeps ({@code Configuration.pollerEventSpins}). */
    private static final int EVENT_SPINS = Configuration.pollerEventSpins();
    private static final int YIELDS = 100;
    private static final long PARK_NANOS = 50_000;
    /** How often an idle poller lets the intake stage run its housekeeping. */
    static final long TICK_NANOS = 10_000_000;
    private static final Duration TICK = Duration.ofNanos(TICK_NANOS);

    private final CompletionQueue cq;
    private final CompletionChannel channel;
    private final CommandPipeline pipeline;
    private final WorkCompletions completions = new WorkCompletions(BATCH);
    private volatile boolean running = true;
    private long lastTick = System.nanoTime();

    CompletionPoller(final CompletionQueue cq, final CompletionChannel channel, final CommandPipeline pipeline) {
        this.cq = cq;
        this.channel = channel;
        this.pipeline = pipeline;
    }

    /** How the poller idles: on the completion channel with one, else spin, yield and park. */
    IdleStrategy idleStrategy() {
        return channel != null ? new CompletionEventIdle(cq, channel, EVENT_SPINS)
                : new BackoffIdleStrategy(SPINS, YIELDS, PARK_NANOS, PARK_NANOS);
    }

    @Override
    public String roleName() {
        return DeviceResources.POLLER_THREAD_NAME;
    }

    /**
     * One duty cycle: polls one batch and publishes it, then posts what that work gathered (one chain per channel);
     * returns the number of completions handled.
     */
    @Override
    public int doWork() {
        if (!running) {
            throw new AgentTerminationException(); // the runner ends its loop; stop() asked for it
        }
        try {
            return pollAndPublish();
        } catch (VerbsException e) {
            if (e.errno() != VerbsException.EIO && e.errno() != VerbsException.EINVAL) {
                LOG.error("completion poll failed; polling on", e);
                LockSupport.parkNanos(PARK_NANOS);
                return 0;
            }
            if (running) {
                // EIO: the CQ overran (its QPs are in error) or was destroyed: nothing more will come from it
                LOG.error("completion poller stopped: the completion queue failed", e);
            }
            throw new AgentTerminationException(e);
        } catch (RuntimeException e) {
            // A provider's bug must not take the target down with it: log, back off, go on polling.
            LOG.error("completion poll failed; polling on", e);
            LockSupport.parkNanos(PARK_NANOS);
            return 0;
        } finally {
            pipeline.flushPosts();
        }
    }

    private int pollAndPublish() {
        final int n = cq.poll(completions);
        for (int i = 0; i < n; i++) {
            final long id = completions.wrId(i);
            final int channel = WorkRequestIds.channel(id);
            if (channel == ReceiveBuffers.SHARED && WorkRequestIds.kind(id) == WorkRequestIds.RECEIVE) {
                // the intake stage finds the channel by QP number, in step with its own removals
                pipeline.publish(CommandPipeline.RECEIVE_SHARED, completions.qpNum(i),
                        WorkRequestIds.index(id), completions.byteLength(i), completions.statusCode(i));
            } else {
                pipeline.publish(WorkRequestIds.kind(id), channel, WorkRequestIds.index(id), completions.byteLength(i),
                        completions.statusCode(i));
            }
        }
        final long now = System.nanoTime();
        if (now - lastTick >= TICK_NANOS || (n == 0 && pipeline.hasHousekeeping())) {
            lastTick = now;
            pipeline.tick();
        }
        return n;
    }

    /** Any thread: the next duty cycle ends the runner's loop; a poller asleep on the completion channel wakes. */
    void stop() {
        running = false;
        if (channel != null) {
            channel.wakeup();
        }
    }

    /**
     * Event mode's idling: after {@code spins} empty polls it arms the CQ and lets the poller poll once more (a
     * completion may have come before the arming); still nothing, it sleeps on the completion channel until one comes
     * or a tick is due. Poller thread only.
     */
    static final class CompletionEventIdle implements IdleStrategy {
        private final CompletionQueue cq;
        private final CompletionChannel channel;
        private final int spins;
        private int idle;
        private boolean armed;

        CompletionEventIdle(final CompletionQueue cq, final CompletionChannel channel, final int spins) {
            this.cq = cq;
            this.channel = channel;
            this.spins = spins;
        }

        @Override
        public void idle(final int workCount) {
            if (workCount > 0) {
                reset();
                return;
            }
            idle();
        }

        @Override
        public void idle() {
            if (armed) {
                try {
                    channel.awaitEvent(TICK);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new AgentTerminationException(e);
                }
                reset();
            } else if (++idle > spins) {
                cq.requestNotify(false);
                armed = true;
            }
        }

        @Override
        public void reset() {
            idle = 0;
            armed = false;
        }
    }
}

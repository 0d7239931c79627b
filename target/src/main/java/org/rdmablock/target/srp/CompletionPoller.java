package org.rdmablock.target.srp;

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
 * each into the ring, routing by its work request id alone ({@link WorkRequestIds}). When the CQ is empty it backs
 * off (spin, yield, then short parks) or, in event mode, arms the CQ and sleeps on its completion channel. Every
 * idle period of {@link #TICK_NANOS} it publishes a tick so that the intake stage does its housekeeping. Without
 * backend threads the publish runs the pipeline right here, and each duty cycle ends by posting what that work
 * gathered, one chain per QP ({@link SendBatch}).
 *
 * <p>Runs on its own thread; the only thread that polls the CQ and the ring's only producer.
 */
final class CompletionPoller implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(CompletionPoller.class);
    /** Completions taken per poll. */
    static final int BATCH = 64;
    /** Busy mode: empty polls spent spinning before the poller yields; system property {@code rdmablock.poller.spins}. */
    private static final int SPINS = Integer.getInteger("rdmablock.poller.spins", 200);
    /**
     * Event mode: empty polls before the poller arms the CQ and sleeps; system property
     * {@code rdmablock.poller.eventSpins}, default 20. Few, since event mode is for machines without a core to spare
     * (see {@code CommandPipeline.STAGE_SPIN_MICROS}): on loopback (soft provider, two cores) a 4 KiB read at queue
     * depth 1 took 58 µs with 20 against 130 µs with 200, the spinning target taking the initiator's core.
     */
    private static final int EVENT_SPINS = Integer.getInteger("rdmablock.poller.eventSpins", 20);
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
    private int idle;
    private long lastTick = System.nanoTime();

    CompletionPoller(final CompletionQueue cq, final CompletionChannel channel, final CommandPipeline pipeline) {
        this.cq = cq;
        this.channel = channel;
        this.pipeline = pipeline;
    }

    @Override
    public void run() {
        while (running) {
            try {
                final int work = doWork();
                if (work == 0) {
                    idle();
                } else {
                    idle = 0;
                }
            } catch (VerbsException e) {
                if (e.errno() != VerbsException.EIO && e.errno() != VerbsException.EINVAL) {
                    LOG.error("completion poll failed; polling on", e);
                    LockSupport.parkNanos(PARK_NANOS);
                    continue;
                }
                if (running) {
                    // EIO: the CQ overran (its QPs are in error) or was destroyed: nothing more will come from it
                    LOG.error("completion poller stopped: the completion queue failed", e);
                }
                return;
            } catch (RuntimeException e) {
                // A provider's bug must not take the target down with it: log, back off, go on polling.
                LOG.error("completion poll failed; polling on", e);
                LockSupport.parkNanos(PARK_NANOS);
            }
        }
    }

    /**
     * One duty cycle: polls one batch and publishes it, then posts what that work gathered (one chain per channel);
     * returns the number of completions handled.
     */
    int doWork() {
        try {
            return pollAndPublish();
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

    private void idle() {
        idle++;
        if (channel != null) {
            if (idle > EVENT_SPINS) {
                cq.requestNotify(false);
                if (doWork() == 0) {
                    try {
                        channel.awaitEvent(TICK);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        running = false;
                    }
                }
                idle = 0;
            }
            return;
        }
        if (idle <= SPINS) {
            Thread.onSpinWait();
        } else if (idle <= SPINS + YIELDS) {
            Thread.yield();
        } else {
            LockSupport.parkNanos(PARK_NANOS);
        }
    }

    void stop() {
        running = false;
        if (channel != null) {
            channel.wakeup();
        }
    }
}

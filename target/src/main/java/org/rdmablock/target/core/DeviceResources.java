package org.rdmablock.target.core;

import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.AgentTerminationException;
import org.rdmablock.target.config.PipelineConfig;
import org.rdmablock.target.config.TargetConfig;
import org.rdmablock.target.metrics.TargetStatistics;
import org.rdmablock.verbs.CompletionChannel;
import org.rdmablock.verbs.CompletionQueue;
import org.rdmablock.verbs.DeviceContext;
import org.rdmablock.verbs.ProtectionDomain;
import org.rdmablock.verbs.SharedReceiveQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;

/**
 * What a target holds on its one RDMA device, made when the first initiator connects (on the native provider rdma_cm
 * chooses the device by address, and every channel must share one PD and CQ): the protection domain, the completion
 * queue (and channel, in event mode), the shared receive queue and its buffers, the channel table, the command
 * pipeline and the completion poller on its thread. {@link #close} takes them down in order.
 *
 * <p>Threads: made on a login thread under the target's lock; read on any thread; closed on the closing thread.
 */
public final class DeviceResources {
    private static final Logger LOG = LoggerFactory.getLogger(DeviceResources.class);
    /** The completion poller's thread; with {@code backend_threads = 0} it runs every command too. */
    public static final String POLLER_THREAD_NAME = "srp-poller";
    /** Registered memory for command data: at least this much, and room for four commands of the largest size. */
    public static final long MIN_DATA_BYTES = 64L << 20;
    /** Most receive buffers of the shared receive queue. */
    static final int MAX_SHARED_RECEIVES = 4096;
    /** How long a stopping target waits for its front end's logouts to go before it disconnects what is left. */
    static final Duration SHUTDOWN_LOGOUT_WAIT = Duration.ofSeconds(2);
    /** How long a stopping target waits for disconnected channels to drain, and for the poller to stop. */
    private static final Duration SHUTDOWN_DRAIN_WAIT = Duration.ofSeconds(5);

    final DeviceContext context;
    final ProtectionDomain pd;
    /** The CQ's completion channel in event mode, else null. */
    private final CompletionChannel completionChannel;
    final CompletionQueue cq;
    /** The shared receive queue, or null (one receive queue per channel). */
    final SharedReceiveQueue srq;
    /** The shared receive buffers (SRQ mode), or null. */
    final ReceiveBuffers sharedReceives;
    /** The channels logged in; the pipeline looks them up. */
    final ChannelTable channels;
    final CommandPipeline pipeline;
    private final CompletionPoller poller;
    /** Runs the poller's duty cycle on its thread ({@link #POLLER_THREAD_NAME}). */
    private final AgentRunner pollerRunner;

    /**
     * Makes the resources on {@code context} and starts the poller.
     *
     * @param config           the target's configuration, its pipeline's automatic values resolved
     * @param registrationPins whether registering memory pins it (a LUN's mapping is then not registered whole)
     * @param frontEnds        makes the front end of the protocol the target speaks
     */
    public DeviceResources(final DeviceContext context, final TargetConfig config, final TargetStatistics statistics,
                    final boolean registrationPins, final Timeouts timeouts, final FrontEnd.Factory frontEnds) {
        this.context = context;
        final PipelineConfig p = config.pipeline();
        pd = context.allocateProtectionDomain();
        completionChannel = p.completions() == PipelineConfig.CompletionMode.EVENT ? context.createCompletionChannel() : null;
        final int deviceMaxCqe = context.queryDevice().maxCqe();
        final int channelsServed = channelsTheCqHolds(config, deviceMaxCqe);
        cq = context.createCompletionQueue(Math.min(p.cqSize(), deviceMaxCqe), completionChannel);
        if (p.receiveQueue() == PipelineConfig.ReceiveQueueMode.SHARED) {
            final int count = sharedReceiveCount(config);
            srq = pd.createSharedReceiveQueue(count, 1);
            sharedReceives = ReceiveBuffers.shared(srq, count, config.channel().maxIuLength());
            sharedReceives.postAll();
        } else {
            srq = null;
            sharedReceives = null;
        }
        final long maxIo = config.channel().maxIoSize();
        final long chunk = CommandPipeline.DATA_CHUNK_BYTES;
        final long dataBytes = (Math.max(MIN_DATA_BYTES, 4 * maxIo) + chunk - 1) / chunk * chunk;
        channels = new ChannelTable(channelsServed, sharedReceives != null);
        pipeline = new CommandPipeline(pd, p.ringSize(), dataBytes, maxIo, p.ringSize(), p.backendThreads(), p.blockingThreads(),
                channels, timeouts, sharedReceives, statistics,
                p.completions() == PipelineConfig.CompletionMode.EVENT,
                !registrationPins, // a LUN's mapping registered whole would be locked in RAM
                frontEnds);
        poller = new CompletionPoller(cq, completionChannel, pipeline);
        pollerRunner = new AgentRunner(poller.idleStrategy(), DeviceResources::pollerFailed, null, poller);
        AgentRunner.startOnThread(pollerRunner, runnable -> Thread.ofPlatform().name(POLLER_THREAD_NAME).daemon().unstarted(runnable));
    }

    /** The device the resources are on (rdma_cm's choice for the first connection). */
    public DeviceContext context() {
        return context;
    }

    public ProtectionDomain pd() {
        return pd;
    }

    public CompletionQueue cq() {
        return cq;
    }

    /** The shared receive queue, or null (one receive queue per channel). */
    public SharedReceiveQueue srq() {
        return srq;
    }

    /** The shared receive buffers (SRQ mode), or null. */
    public ReceiveBuffers sharedReceives() {
        return sharedReceives;
    }

    /** The channels logged in. */
    public ChannelTable channels() {
        return channels;
    }

    public CommandPipeline pipeline() {
        return pipeline;
    }

    /**
     * Channels served at once: max_channels, or fewer where the device's CQ cannot hold cq_size entries. The CQ is
     * then as large as the device allows and no more channels are admitted than it holds without overflowing (rxe:
     * 32767 entries, less than the default 64 channels × 130 receives × 4 = 33280), since an overflowing CQ ends every
     * channel on it.
     */
    private int channelsTheCqHolds(final TargetConfig config, final int deviceMaxCqe) {
        final PipelineConfig p = config.pipeline();
        final int maxChannels = config.channel().maxChannels();
        if (p.cqSize() <= deviceMaxCqe) {
            return maxChannels;
        }
        final long perChannel = PipelineConfig.minimumCqSize(1, config.channel().credits());
        final int served = (int) Math.min(maxChannels, deviceMaxCqe / perChannel);
        LOG.warn("{} holds at most {} completions per CQ: cq_size {} lowered to {}, channels served at once {} -> {} ({} "
                + "completions each at {} credits)", context.device().name(), deviceMaxCqe, p.cqSize(), deviceMaxCqe,
                maxChannels, served, perChannel, config.channel().credits());
        return Math.max(1, served);
    }

    /**
     * Receive buffers of the shared queue: every channel's credits (SPDK's default SRQ depth, 4096, at most), since an
     * SRQ that runs dry stalls every channel on it.
     */
    private static int sharedReceiveCount(final TargetConfig config) {
        final long all = (long) config.channel().maxChannels() * (config.channel().credits() + PipelineConfig.SPARE_RECEIVES_PER_CHANNEL);
        return (int) Math.min(all, MAX_SHARED_RECEIVES);
    }

    /** The poller's runner reports what ended its loop; the poller itself logged why. */
    private static void pollerFailed(final Throwable error) {
        if (!(error instanceof AgentTerminationException)) {
            LOG.error("completion poller failed", error);
        }
    }

    /**
     * Ends every channel and releases the device: the front end's logout to each (SRP_T_LOGOUT), then the disconnect of those still there,
     * the poller stopped once they drained (or the waits ran out), the channels left released without completions,
     * then the pipeline, CQ, SRQ and PD. Counts each channel that leaves into {@code statistics}.
     */
    public void close(final TargetStatistics statistics) {
        pipeline.shutDown(); // a logout to every channel, then each disconnects once it has gone
        awaitChannelsDrained(SHUTDOWN_LOGOUT_WAIT);
        for (int i = 0; i < channels.capacity(); i++) {
            final Channel channel = channels.get(i);
            if (channel != null) {
                channel.disconnect();
            }
        }
        awaitChannelsDrained(SHUTDOWN_DRAIN_WAIT);
        poller.stop();
        final Thread pollerThread = pollerRunner.thread();
        try {
            if (pollerThread != null) {
                pollerThread.join(SHUTDOWN_DRAIN_WAIT.toMillis());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (pollerThread == null || !pollerThread.isAlive()) {
            pollerRunner.close(); // the loop has ended: this only marks the runner closed
        }
        for (int i = 0; i < channels.capacity(); i++) {
            final Channel channel = channels.take(i);
            if (channel != null) {
                statistics.channelLeft(channel.session);
                channel.release(); // did not drain in time: its QP goes without completions
            }
        }
        pipeline.close();
        cq.close();
        if (completionChannel != null) {
            completionChannel.close();
        }
        if (srq != null) {
            srq.close();
        }
        pd.close();
    }

    private void awaitChannelsDrained(final Duration timeout) {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (channels.count() > 0) {
            if (!CommandPipeline.sleepUntil(deadline)) {
                return;
            }
        }
    }
}

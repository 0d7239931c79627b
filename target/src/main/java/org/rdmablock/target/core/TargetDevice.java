package org.rdmablock.target.core;

import org.rdmablock.target.config.TargetConfig;
import org.rdmablock.target.metrics.TargetStatistics;
import org.rdmablock.verbs.ConnectionId;
import org.rdmablock.verbs.DeviceContext;
import org.rdmablock.verbs.VerbsProvider;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * What a daemon's front ends share: one verbs provider, and the {@link DeviceResources} (PD, CQ, one pipeline, the
 * poller) made when the first initiator or host connects, whose pipeline runs every front end registered here
 * ({@link FrontEnds}): SRP channels and NVMe queues take slots, data buffers and backend calls from the same core.
 * Each front end's target registers its factory, then {@link #ready} lets connections make the resources.
 *
 * <p>Threads: any. Admissions of every front end lock on this object, so that channel ids and counts are decided one
 * at a time; {@link #close} on the closing thread, after the front ends' targets have stopped listening.
 */
public final class TargetDevice implements AutoCloseable {
    /** Most RDMA READs in flight per connection, each way (ORD and IRD offered at accept), for every front end. */
    public static final int MAX_READ_DEPTH = 16;
    /** How long a connection that comes before {@link #ready} waits for it. */
    static final Duration READY_WAIT = Duration.ofSeconds(10);

    private final VerbsProvider provider;
    private final TargetConfig config;
    private final TargetStatistics statistics;
    private final Timeouts timeouts;
    private final List<FrontEnd.Factory> frontEnds = new CopyOnWriteArrayList<>();
    private final CountDownLatch ready = new CountDownLatch(1);
    /** Made on the first connection, under this object's lock; null until then. */
    private volatile DeviceResources resources;

    /** Loads the configured verbs provider. */
    public static TargetDevice open(final TargetConfig config, final TargetStatistics statistics) {
        return new TargetDevice(VerbsProvider.load(config.listen().provider()), config, statistics);
    }

    private TargetDevice(final VerbsProvider provider, final TargetConfig config, final TargetStatistics statistics) {
        this.provider = provider;
        this.config = config.withPipelineResolved();
        this.statistics = statistics;
        this.timeouts = new Timeouts(config.timeouts().command(), config.timeouts().idle());
    }

    /**
     * Starts one front end's target on a device of its own (the tests', the tools' embedded target): opens the
     * device, makes the target with {@code target}, then makes the device {@link #ready}; closes the device when the
     * target cannot be made.
     */
    public static <T> T startAlone(final TargetConfig config, final TargetStatistics statistics,
                                   final java.util.function.Function<TargetDevice, T> target) {
        final TargetDevice device = open(config, statistics);
        try {
            final T started = target.apply(device);
            device.ready();
            return started;
        } catch (RuntimeException e) {
            device.close();
            throw e;
        }
    }

    /**
     * The RDMA READs the target may have outstanding on a connection (its ORD): what the peer's responder takes, at
     * most {@link #MAX_READ_DEPTH}; that many when the provider does not say.
     */
    public static int readDepth(final ConnectionId.ReadDepths depths) {
        return depths.peerResponderResources() > 0 ? Math.min(MAX_READ_DEPTH, depths.peerResponderResources()) : MAX_READ_DEPTH;
    }

    /** The RDMA READs the target answers for the peer (its IRD at accept): what the peer asks for, at most {@link #MAX_READ_DEPTH}. */
    public static int responderDepth(final ConnectionId.ReadDepths depths) {
        return depths.peerInitiatorDepth() > 0 ? Math.min(MAX_READ_DEPTH, depths.peerInitiatorDepth()) : 0;
    }

    public VerbsProvider provider() {
        return provider;
    }

    /** The configuration the resources are made with, its pipeline's automatic values resolved. */
    public TargetConfig config() {
        return config;
    }

    /** [timeouts] as they are now: a configuration change sets them for the running pipeline. */
    public Timeouts timeouts() {
        return timeouts;
    }

    /** A front end the pipeline runs: registered by its target before {@link #ready}. */
    public void addFrontEnd(final FrontEnd.Factory frontEnd) {
        if (ready.getCount() == 0) {
            throw new IllegalStateException("front ends are registered before the device is ready");
        }
        frontEnds.add(frontEnd);
    }

    /** Every front end is registered: connections may make the resources now. */
    public void ready() {
        ready.countDown();
    }

    /**
     * The resources, made on {@code connectionContext} by the first connection; null for a connection on another
     * device (or when the front ends did not become ready in time). Under this object's lock (admission).
     */
    public synchronized DeviceResources resourcesFor(final DeviceContext connectionContext) {
        if (resources == null) {
            try {
                if (!ready.await(READY_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                    return null;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            }
            resources = new DeviceResources(connectionContext, config, statistics, provider.registrationPinsMemory(),
                    timeouts, FrontEnds.of(List.copyOf(frontEnds)));
        }
        return resources.context() == connectionContext ? resources : null;
    }

    /** The resources, or null before the first connection (any thread). */
    public DeviceResources resources() {
        return resources;
    }

    /** Logs every channel out, releases the resources and the provider. */
    @Override
    public void close() {
        final DeviceResources d;
        synchronized (this) { // after an admission under way: resources a first connection made are seen
            d = resources;
        }
        if (d != null) {
            d.close(statistics);
        }
        provider.close();
    }
}

package org.rdmablock.verbs.soft;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.SleepingMillisIdleStrategy;
import org.rdmablock.verbs.AsyncEvent;
import org.rdmablock.verbs.DeviceContext;
import org.rdmablock.verbs.Gid;
import org.rdmablock.verbs.PortAttributes;
import org.rdmablock.verbs.RdmaDevice;
import org.rdmablock.verbs.VerbsException;

/**
 * The soft RDMA device: owns what real hardware keeps per device (the STag table, QP numbers, the I/O engine)
 * and the UDP endpoint of its UD QPs. One device per {@link SoftProvider}.
 */
final class SoftDevice implements RdmaDevice {
    /** UD message size limit (the port's MTU), bytes. */
    static final int MTU = 4096;
    static final int MAX_QP = 1 << 16;
    static final int MAX_QP_WR = 1 << 14;
    static final int MAX_SGE = 32;
    static final int MAX_CQ = 1 << 16;
    static final int MAX_CQE = 1 << 20;
    static final int MAX_MR = 1 << 20;
    static final int MAX_PD = 1 << 16;
    static final int MAX_SRQ = 1 << 12;
    /** Inbound RDMA READ / atomic requests a QP may have in flight (IRD). */
    static final int MAX_IRD = 128;
    /** Outbound RDMA READ / atomic requests a QP may have in flight (ORD). */
    static final int MAX_ORD = 128;
    static final int MAX_INLINE = 1024;
    /** Seconds between logged dumps of every connected QP's state; 0 for none ({@link Configuration#DUMP_STATE_SECONDS_PROP_NAME}). */
    static final int DUMP_SECONDS = Configuration.dumpStateSeconds();
    /** I/O agent threads ({@link Configuration#AGENTS_PROP_NAME}). */
    static final int AGENTS = Configuration.agents();

    private final String name;
    private final long guid = ThreadLocalRandom.current().nextLong() & 0x0000_FFFF_FFFF_FFFFL | 0x0200_0000_0000_0000L;
    private final InetAddress bindAddress;
    private final long pollHandOffNanos;
    private final StagTable stags = new StagTable();
    private final AtomicInteger nextQpn = new AtomicInteger(ThreadLocalRandom.current().nextInt(0x100, 0x1000));
    private final IoAgent[] agents = new IoAgent[AGENTS];
    private final AtomicInteger nextAgent = new AtomicInteger();
    private volatile SoftQueuePair[] queuePairs = new SoftQueuePair[256];
    private volatile PortAttributes.State portState = PortAttributes.State.ACTIVE;
    /** Set when the device starts going away, so that the connections it drops report DEVICE_REMOVED. */
    private volatile boolean removed;
    private DatagramEndpoint datagramEndpoint;
    private SoftContext context;
    private int openCount;
    /** Runs the {@link StateDump} when {@link #DUMP_SECONDS} asks for one; else null. */
    private final AgentRunner stateDump;

    /**
     * A device named {@code name} whose UD traffic binds to {@code bindAddress}; {@code pollHandOffNanos}: how long
     * the agent leaves a QP's socket to a thread spinning on its CQs before it looks again (see
     * {@link InboundStream#POLL_HAND_OFF_NANOS}).
     */
    SoftDevice(final String name, final InetAddress bindAddress, final long pollHandOffNanos) {
        this.name = name;
        this.bindAddress = bindAddress;
        this.pollHandOffNanos = pollHandOffNanos;
        if (DUMP_SECONDS > 0) {
            final StateDump dump = new StateDump();
            stateDump = new AgentRunner(new SleepingMillisIdleStrategy(DUMP_SECONDS * 1000L), dump::onError, null, dump);
            Thread.ofPlatform().daemon().name(dump.roleName()).start(stateDump);
        } else {
            stateDump = null;
        }
    }

    /**
     * Every {@link SoftDevice#DUMP_SECONDS}, logs the transmit/receive state of each connected QP (diagnosing stalls): each
     * duty cycle dumps and reports no work, so that the runner's idle strategy sleeps the period.
     */
    private final class StateDump implements Agent {
        private final System.Logger log = System.getLogger(SoftDevice.class.getName());

        @Override
        public int doWork() {
            for (final SoftQueuePair qp : queuePairs) {
                if (qp instanceof SoftConnectedQueuePair connected) {
                    log.log(System.Logger.Level.INFO, "{0}: {1}", name, connected.describe());
                }
            }
            return 0;
        }

        @Override
        public String roleName() {
            return name + "-state-dump";
        }

        void onError(final Throwable failure) {
            log.log(System.Logger.Level.WARNING, roleName() + ": dump failed", failure);
        }
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public long guid() {
        return guid;
    }

    @Override
    public Transport transport() {
        return Transport.IWARP;
    }

    /** Opens the device: every open shares one context, which the connection manager uses too. */
    @Override
    public synchronized DeviceContext open() {
        openCount++;
        return context();
    }

    /** The shared context, created on first use. */
    synchronized SoftContext context() {
        if (context == null) {
            context = new SoftContext(this);
        }
        return context;
    }

    /** One opener closed the context; true when it was the last (the context then really closes). */
    synchronized boolean release() {
        return openCount > 0 && --openCount == 0;
    }

    /** How long the agent leaves a QP's socket to a thread spinning on its CQs before it looks again. */
    long pollHandOffNanos() {
        return pollHandOffNanos;
    }

    StagTable stags() {
        return stags;
    }

    /** The I/O agent for a new endpoint, round robin; agents start on first use. */
    IoAgent nextAgent() {
        final int index = Math.floorMod(nextAgent.getAndIncrement(), agents.length);
        synchronized (agents) {
            if (agents[index] == null) {
                agents[index] = new IoAgent(name + "-io-" + index);
            }
            return agents[index];
        }
    }

    // ---- queue pair numbers ---------------------------------------------------------------------------------

    /** Assigns a QP number (24 bits) and records the QP under it. */
    int register(final SoftQueuePair qp) {
        final int qpn = nextQpn.getAndIncrement() & 0xFF_FFFF;
        synchronized (this) {
            SoftQueuePair[] table = queuePairs;
            if ((qpn & 0xFFFF) >= table.length) {
                table = Arrays.copyOf(table, Math.min(1 << 16, Integer.highestOneBit(qpn & 0xFFFF) << 1));
            }
            if (table[qpn & 0xFFFF] != null) {
                throw new VerbsException(VerbsException.ENOMEM, "out of QP numbers");
            }
            table[qpn & 0xFFFF] = qp;
            queuePairs = table;
        }
        return qpn;
    }

    synchronized void unregister(final int qpn) {
        if (queuePairs[qpn & 0xFFFF] != null && queuePairs[qpn & 0xFFFF].qpNum() == qpn) {
            queuePairs[qpn & 0xFFFF] = null;
        }
    }

    /** The QP with this number, or null. Lock-free. */
    SoftQueuePair queuePair(final int qpn) {
        final SoftQueuePair[] table = queuePairs;
        final int index = qpn & 0xFFFF;
        if (index >= table.length) {
            return null;
        }
        final SoftQueuePair qp = table[index];
        return qp != null && qp.qpNum() == qpn ? qp : null;
    }

    // ---- UD ------------------------------------------------------------------------------------------------

    /** The device's UDP endpoint for UD QPs, opened on first use. */
    synchronized DatagramEndpoint datagramEndpoint() {
        if (datagramEndpoint == null) {
            try {
                datagramEndpoint = new DatagramEndpoint(this, new InetSocketAddress(bindAddress, 0), nextAgent());
            } catch (final IOException e) {
                throw new UncheckedIOException("cannot open the soft device's UDP endpoint", e);
            }
        }
        return datagramEndpoint;
    }

    /** GID 0: encodes the UDP endpoint of UD traffic (see {@link SoftGid}). */
    Gid gid() {
        return SoftGid.of(datagramEndpoint().localAddress());
    }

    // ---- port state (fault injection for tests and tools) ----------------------------------------------------

    PortAttributes.State portState() {
        return portState;
    }

    /**
     * Sets the port's state as a link change would: PORT_ERR or PORT_ACTIVE on every open context. The soft
     * link is a software fiction, so this is how tests and tools exercise port events.
     */
    void setPortState(final PortAttributes.State state) {
        if (state == portState) {
            return;
        }
        portState = state;
        final AsyncEvent event = AsyncEvent.ofPort(state == PortAttributes.State.ACTIVE
            ? AsyncEvent.Type.PORT_ACTIVE : AsyncEvent.Type.PORT_ERR, 1);
        context().raise(event);
    }

    /** Whether the device is going away or gone (its provider closed). */
    boolean removed() {
        return removed;
    }

    void close() {
        removed = true;
        if (stateDump != null) {
            final Thread dumper = stateDump.thread();
            if (dumper != null && dumper != AgentRunner.TOMBSTONE) {
                dumper.interrupt(); // ends its sleep: the runner stops on an interrupt
            }
            stateDump.close();
        }
        for (final SoftQueuePair qp : queuePairs) {
            if (qp instanceof SoftConnectedQueuePair connected) {
                connected.abort();
            }
        }
        final DatagramEndpoint endpoint;
        final SoftContext shared;
        synchronized (this) {
            endpoint = datagramEndpoint;
            datagramEndpoint = null;
            shared = context;
            context = null;
        }
        if (shared != null) {
            shared.shutdown();
        }
        if (endpoint != null) {
            endpoint.close();
        }
        synchronized (agents) {
            for (int i = 0; i < agents.length; i++) {
                if (agents[i] != null) {
                    agents[i].close();
                    agents[i] = null;
                }
            }
        }
    }
}

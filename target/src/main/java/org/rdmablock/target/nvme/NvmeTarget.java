package org.rdmablock.target.nvme;

import org.rdmablock.protocol.nvme.NvmeRdmaCmReject;
import org.rdmablock.protocol.nvme.NvmeRdmaCmReply;
import org.rdmablock.protocol.nvme.NvmeRdmaCmRequest;
import org.rdmablock.protocol.scsi.LogicalUnitTable;
import org.rdmablock.target.config.InitiatorPortId;
import org.rdmablock.target.config.NvmeConfig;
import org.rdmablock.target.config.TargetConfig;
import org.rdmablock.target.core.CommandSlot;
import org.rdmablock.target.core.DeviceResources;
import org.rdmablock.target.core.LoginListener;
import org.rdmablock.target.core.TargetDevice;
import org.rdmablock.target.metrics.SessionStats;
import org.rdmablock.target.metrics.TargetStatistics;
import org.rdmablock.verbs.ConnectionId;
import org.rdmablock.verbs.ConnectionParameters;
import org.rdmablock.verbs.QueuePair;
import org.rdmablock.verbs.QueuePairCapabilities;
import org.rdmablock.verbs.QueuePairInitAttributes;
import org.rdmablock.verbs.QueuePairType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Objects;

/**
 * An NVMe over Fabrics target on RDMA (NVMe RDMA Transport 1.0) beside the SRP one: listens on the NVMe port, takes
 * each queue's rdma_cm connect (its private data: queue id, queue sizes) as an {@link NvmeQueue}, and serves the
 * queues' capsules through its own {@link org.rdmablock.target.core.CommandPipeline} and {@link NvmeFrontEnd}, on the
 * same logical units as SRP: each namespace is a LUN open to every initiator.
 *
 * <pre>
 *  connect thread: listen ─► connect request ─► NvmeRdmaCmRequest ─► QP, receives ─► accept(NvmeRdmaCmReply) / reject
 *  poller thread:  CQ ─► CompletionPoller ─► CommandPipeline (intake: NvmeFrontEnd ─► backends) ─► completions
 * </pre>
 *
 * <p>Threads: each connect on a virtual thread of its own (admission under the target's lock); {@link #close} on the
 * closing thread.
 */
public final class NvmeTarget implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(NvmeTarget.class);
    /** The thread that takes connect requests. */
    static final String CONNECT_THREAD_NAME = "nvme-connect";
    /**
     * The initiator port id whose view of the LUNs NVMe hosts get ({@code LunInventory.unitsFor}): "NVMe" in ASCII, an
     * id no SRP initiator has (its high half is not an EUI-64's): every LUN without an access list.
     */
    public static final InitiatorPortId NVME_HOSTS = new InitiatorPortId(0x4E564D65L, 0);

    private final LogicalUnitTable units;
    private final TargetStatistics statistics;
    /** The provider, the device resources and the pipeline, shared with the daemon's other front ends. */
    private final TargetDevice devices;
    /** Whether this target opened {@link #devices} itself (and closes it), or was given it. */
    private final boolean ownsDevices;
    private final LoginListener connects;
    private final Listening listening;
    /** Entries an I/O queue may have: the channel credits, so an NVMe queue takes what an SRP channel does of the CQ. */
    private final int queueEntries;
    /** This target's front end on the pipeline, once the first connection made it (null until then). */
    private volatile NvmeFrontEnd frontEnd;

    /** What a controller tells of where it listens: the subsystems, the address and port (discovery log entries). */
    record Listening(List<NvmeConfig.Subsystem> subsystems, String address, int port, long generation) {
        NvmeConfig.Subsystem subsystem(final String nqn) {
            for (final NvmeConfig.Subsystem s : subsystems) {
                if (s.nqn().equals(nqn)) {
                    return s;
                }
            }
            return null;
        }
    }

    /**
     * Starts listening on {@code nvme}'s port at the target's address, on a device of its own, serving {@code units}
     * (the LUNs NVMe hosts may use, by LUN number) as the namespaces of its subsystems.
     */
    public static NvmeTarget start(final TargetConfig config, final NvmeConfig nvme, final LogicalUnitTable units,
                                   final TargetStatistics statistics) {
        return TargetDevice.startAlone(config, statistics, device -> new NvmeTarget(device, nvme, units, statistics, true));
    }

    /**
     * Starts listening on {@code devices}, which the daemon's other front ends share (its owner makes it
     * {@link TargetDevice#ready} and closes it, after this target).
     */
    public static NvmeTarget start(final TargetDevice devices, final NvmeConfig nvme, final LogicalUnitTable units,
                                   final TargetStatistics statistics) {
        return new NvmeTarget(devices, nvme, units, statistics, false);
    }

    private NvmeTarget(final TargetDevice devices, final NvmeConfig nvme, final LogicalUnitTable units,
                       final TargetStatistics statistics, final boolean ownsDevices) {
        this.devices = devices;
        this.ownsDevices = ownsDevices;
        this.units = Objects.requireNonNull(units);
        this.statistics = Objects.requireNonNull(statistics);
        final TargetConfig config = devices.config();
        this.queueEntries = config.channel().credits();
        this.connects = new LoginListener(CONNECT_THREAD_NAME, devices.provider().connectionManager().listen(
                new InetSocketAddress(config.listen().address(), nvme.port()), 64), this::connect);
        this.listening = new Listening(nvme.subsystems(), config.listen().address(), localAddress().getPort(), 1);
        devices.addFrontEnd(core -> frontEnd = new NvmeFrontEnd(core, listening, queueEntries));
    }

    /** The address listened on (with the real port when 0 was configured). */
    public InetSocketAddress localAddress() {
        return connects.localAddress();
    }

    /** Queues connected now (admin and I/O). */
    public int queueCount() {
        final DeviceResources d = devices.resources();
        return d == null ? 0 : d.channels().count();
    }

    /** Free command slots and data chunks in use (what a leak test watches). */
    public String resourceSnapshot() {
        final DeviceResources d = devices.resources();
        return d == null ? "no pipeline" : "free slots " + d.pipeline().freeSlots() + ", data chunks in use " + d.pipeline().dataChunksInUse();
    }

    /**
     * The namespaces changed (a reload or the management socket added, removed or resized a LUN): each host's
     * controller gets an Asynchronous Event (Namespace Attribute Changed), and rescans. Any thread.
     */
    public void namespacesChanged() {
        final DeviceResources d = devices.resources();
        final NvmeFrontEnd f = frontEnd;
        if (f != null) {
            f.namespacesChanged();
        }
    }

    private void connect(final ConnectionId request) {
        final NvmeQueue queue = admit(request);
        if (queue != null) {
            accept(request, queue);
        }
    }

    /** Decides a queue's connect and makes its QP and receives, or rejects it (NVMe RDMA Transport 3.3's statuses). */
    private NvmeQueue admit(final ConnectionId request) {
        synchronized (devices) { // the device's channels are shared with the other front ends' admissions
            return admitLocked(request);
        }
    }

    private NvmeQueue admitLocked(final ConnectionId request) {
        final byte[] privateData = request.privateData();
        final NvmeRdmaCmRequest cm = new NvmeRdmaCmRequest().wrap(MemorySegment.ofArray(privateData), 0);
        int refusal = cm.refusal(privateData.length);
        final boolean admin = refusal == 0 && cm.queueId() == 0;
        final int entries = refusal == 0 ? cm.hostSendQueueSize() : 0;
        if (refusal == 0 && (entries < 2 || entries > (admin ? NvmeFrontEnd.MAX_ADMIN_ENTRIES : queueEntries))) {
            refusal = NvmeRdmaCmReject.INVALID_HOST_SEND_QUEUE_SIZE;
        }
        if (refusal == 0 && cm.queueId() > NvmeFrontEnd.MAX_IO_QUEUES) {
            refusal = NvmeRdmaCmReject.INVALID_QUEUE_ID;
        }
        final DeviceResources d = refusal == 0 ? devices.resourcesFor(request.context()) : null;
        final int channelId = d != null ? d.channels().freeId() : -1;
        if (refusal == 0 && channelId < 0) {
            refusal = NvmeRdmaCmReject.NO_RESOURCES;
        }
        if (refusal != 0) {
            statistics.loginRejected();
            LOG.warn("NVMe queue connect from {} rejected (status {})", request.remoteAddress(), refusal);
            final byte[] reject = new byte[NvmeRdmaCmReject.LENGTH];
            new NvmeRdmaCmReject().wrap(MemorySegment.ofArray(reject), 0).reset().setStatus(refusal);
            request.reject(reject);
            request.close();
            return null;
        }
        final int inCapsule = admin ? 0 : NvmeAdminPages.IN_CAPSULE_BYTES;
        // completing on transmit: the host learns of the data from the response SEND behind it, and the soft
        // provider's confirmation READs are what Linux siw cannot take (docs/benchmarks/siw-interop.md)
        final QueuePair qp = request.createQueuePair(d.pd(), new QueuePairInitAttributes(QueuePairType.RC, d.cq(), d.cq(), null,
                new QueuePairCapabilities(entries * (CommandSlot.TRANSFERS_PER_ROUND + 1) + 1, entries, 1, 1, 0), false)
                .withCompletionOnTransmit());
        final SessionStats session = statistics.channelJoined(NVME_HOSTS);
        session.cameFrom(String.valueOf(request.remoteAddress()));
        final NvmeQueue queue;
        try {
            queue = new NvmeQueue(channelId, request, qp, NVME_HOSTS, units, cm.queueId(), entries, inCapsule,
                    TargetDevice.readDepth(request.readDepths()), session, hostAddress(request));
        } catch (RuntimeException e) {
            statistics.channelLeft(session);
            throw e;
        }
        queue.respondsWith(frontEnd.responseEncoders());
        queue.postAllReceives();
        d.channels().enter(queue);
        request.onDisconnect(id -> d.pipeline().disconnected(queue));
        return queue;
    }

    /** Accepts an admitted queue's connection with the controller's receive queue size; waits for the host. */
    private void accept(final ConnectionId request, final NvmeQueue queue) {
        final byte[] reply = new byte[NvmeRdmaCmReply.LENGTH];
        new NvmeRdmaCmReply().wrap(MemorySegment.ofArray(reply), 0).reset().setControllerReceiveQueueSize(queue.entries);
        final ConnectionId.ReadDepths depths = request.readDepths();
        final int ird = TargetDevice.responderDepth(depths);
        try {
            request.accept(new ConnectionParameters(reply, ird, queue.readDepth(), 7, 7));
        } catch (RuntimeException e) {
            if (devices.resources().channels().remove(queue)) {
                statistics.channelLeft(queue.session());
                queue.release();
            }
            throw e;
        }
        LOG.debug("{} connected: {} entries", queue, queue.entries);
        queue.acceptReturned();
    }

    /** The target's address the host reached, as text; null when the provider does not say. */
    private static String hostAddress(final ConnectionId request) {
        final InetSocketAddress local = request.localAddress();
        return local == null || local.getAddress() == null ? null : local.getAddress().getHostAddress();
    }

    /**
     * Stops listening; on a device of its own, also disconnects every queue and releases the device resources (a
     * shared device is its owner's to close, after every front end's target).
     */
    @Override
    public void close() {
        connects.close();
        if (ownsDevices) {
            devices.close();
        }
    }
}

package org.rdmablock.initiator;

import org.rdmablock.protocol.nvme.NvmeCompletion;
import org.rdmablock.protocol.nvme.NvmeFeature;
import org.rdmablock.protocol.nvme.NvmeIdentify;
import org.rdmablock.protocol.nvme.NvmeIdentifyController;
import org.rdmablock.protocol.nvme.NvmeIdentifyNamespace;
import org.rdmablock.protocol.nvme.NvmeNamespaceLists;
import org.rdmablock.protocol.nvme.NvmeOpcode;
import org.rdmablock.protocol.nvme.NvmeRdmaCmReject;
import org.rdmablock.protocol.nvme.NvmeRdmaCmRequest;
import org.rdmablock.protocol.nvme.NvmeRegister;
import org.rdmablock.protocol.nvme.NvmeSglDescriptor;
import org.rdmablock.protocol.nvme.NvmeStatus;
import org.rdmablock.protocol.nvme.NvmeSubmission;
import org.rdmablock.protocol.nvme.NvmfCommandType;
import org.rdmablock.protocol.nvme.NvmfConnectCommand;
import org.rdmablock.protocol.nvme.NvmfConnectData;
import org.rdmablock.protocol.nvme.NvmfPropertyCommand;
import org.rdmablock.verbs.AccessFlags;
import org.rdmablock.verbs.CompletionChannel;
import org.rdmablock.verbs.CompletionQueue;
import org.rdmablock.verbs.ConnectionFailedException;
import org.rdmablock.verbs.ConnectionId;
import org.rdmablock.verbs.ConnectionParameters;
import org.rdmablock.verbs.ConnectionRejectedException;
import org.rdmablock.verbs.DeviceContext;
import org.rdmablock.verbs.MemoryRegion;
import org.rdmablock.verbs.ProtectionDomain;
import org.rdmablock.verbs.QueuePair;
import org.rdmablock.verbs.QueuePairCapabilities;
import org.rdmablock.verbs.QueuePairInitAttributes;
import org.rdmablock.verbs.QueuePairType;
import org.rdmablock.verbs.ReceiveWorkRequest;
import org.rdmablock.verbs.SendFlags;
import org.rdmablock.verbs.SendOpcode;
import org.rdmablock.verbs.SendWorkRequest;
import org.rdmablock.verbs.VerbsProvider;
import org.rdmablock.verbs.WcOpcode;
import org.rdmablock.verbs.WorkCompletions;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A session's association with one NVMe over Fabrics controller, as Linux's nvme-rdma makes it: the admin queue
 * (rdma_cm connect with queue id 0, Fabrics Connect for a dynamic controller, CC written with enable, CSTS.RDY awaited,
 * Number of Queues set), the namespaces it reports (Identify), and the Fabrics Connect of each I/O queue, which the
 * channels then run. On the connecting thread at {@link SrpInitiator#connect}, and on a channel's agent thread when
 * it connects its queue again ({@link Reconnector}); every method holds the association's lock, so one queue connects
 * at a time.
 *
 * <p>The admin queue asks for no keep-alive (KATO 0): it carries no traffic after the start, and a lost association
 * shows as its connection ending. A reconnect finds out whether the controller is still there: a Connect refused for
 * want of it (the target was restarted) makes a new association, and the queue connects to that.
 */
final class NvmeAssociation implements Reconnector {
    private static final Logger LOG = LoggerFactory.getLogger(NvmeAssociation.class);
    /** The admin queue's entries (what nvme-rdma asks for: NVME_AQ_DEPTH). */
    static final int ADMIN_ENTRIES = 32;
    /** An admin capsule here: the entry alone, data by keyed SGL (an I/O queue's may carry write data after it). */
    static final int CAPSULE_LENGTH = NvmeSubmission.LENGTH;
    /** Write data one capsule carries here at most (Linux nvme-rdma's inline data is a page too). */
    static final int MAX_IN_CAPSULE_BYTES = 4096;
    /** Bytes one command carries when the controller sets no limit (MDTS 0), and at most. */
    static final int DEFAULT_MAX_TRANSFER = LunDiscovery.DEFAULT_MAX_TRANSFER;
    private static final int ADMIN_RECEIVES = 4;
    private static final int RESPONSE_LENGTH = 64;
    // the association's registered buffer: a capsule, the responses, then one page of command data
    private static final long CAPSULE_AT = 0;
    private static final long RESPONSES_AT = 64;
    private static final long DATA_AT = 4096;
    private static final int BUFFER_LENGTH = (int) DATA_AT + NvmeIdentify.DATA_LENGTH;
    private static final long ADMIN_SEND_ID = 1L << 40;
    private static final long ADMIN_RECEIVE_ID = 2L << 40;
    private static final long CONNECT_SEND_ID = 3L << 40;
    private static final long CONNECT_RECEIVE_ID = 4L << 40;

    /** One namespace as Identify reports it. */
    record Namespace(long id, int blockSize, long blocks) {
    }

    /**
     * The controller's identity (Identify Controller), the largest transfer of one command and the most write data a
     * command carries in its capsule (0: none).
     */
    record Controller(String serial, String model, String firmware, int maxTransferBytes, int inCapsuleBytes) {
    }

    private final InitiatorConfig config;
    private final InitiatorConfig.Nvme session;
    private final VerbsProvider provider;
    private final DeviceContext context;
    private final ProtectionDomain pd;
    private final Arena arena = Arena.ofShared();
    private final MemoryRegion buffer;
    private final SendWorkRequest send = new SendWorkRequest(1);
    private final ReceiveWorkRequest[] adminReceives = new ReceiveWorkRequest[ADMIN_RECEIVES];
    private final ReceiveWorkRequest connectReceive = new ReceiveWorkRequest(1).wrId(CONNECT_RECEIVE_ID);
    private final WorkCompletions completions = new WorkCompletions(8);
    private final NvmeSubmission entry = new NvmeSubmission();
    private final NvmeSglDescriptor sgl = new NvmeSglDescriptor();
    private final NvmeCompletion completion = new NvmeCompletion();
    // the admin queue, null while there is none
    private ConnectionId adminId;
    private QueuePair adminQp;
    private CompletionQueue adminCq;
    private volatile boolean adminLost;
    private int controllerId;
    private int pageBytes;
    /** The entries an I/O queue may have (CAP.MQES + 1). */
    private int maxQueueEntries;
    /** What Identify Controller said, read at {@link #open}. */
    private Controller controller;
    private int nextCommandId;
    /** The result of the last completion {@link #call} took. */
    private long lastResult;
    private boolean closed;

    NvmeAssociation(final InitiatorConfig config, final VerbsProvider provider, final DeviceContext context,
                    final ProtectionDomain pd) {
        this.config = config;
        this.session = config.nvme();
        this.provider = provider;
        this.context = context;
        this.pd = pd;
        this.buffer = pd.registerMemory(arena.allocate(BUFFER_LENGTH, 4096),
                AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_WRITE);
        for (int i = 0; i < ADMIN_RECEIVES; i++) {
            adminReceives[i] = new ReceiveWorkRequest(1).wrId(ADMIN_RECEIVE_ID | i);
            adminReceives[i].sgl().add(buffer, RESPONSES_AT + (long) i * RESPONSE_LENGTH, RESPONSE_LENGTH);
        }
        connectReceive.sgl().add(buffer, RESPONSES_AT + (long) ADMIN_RECEIVES * RESPONSE_LENGTH, RESPONSE_LENGTH);
    }

    /**
     * Connects the admin queue on {@code id} (which the session resolved), makes the controller ready and asks for
     * as many I/O queues as the session has channels.
     */
    synchronized void open(final ConnectionId id) throws SrpIoException {
        CompletionQueue cq = null;
        boolean taken = false;
        try {
            cq = context.createCompletionQueue(2 * ADMIN_RECEIVES + 4, null);
            final QueuePair qp = id.createQueuePair(pd, new QueuePairInitAttributes(QueuePairType.RC, cq, cq, null,
                    new QueuePairCapabilities(4, ADMIN_RECEIVES, 1, 1, 0), false));
            for (final ReceiveWorkRequest receive : adminReceives) {
                qp.postReceive(receive);
            }
            cmConnect(id, 0, ADMIN_ENTRIES);
            adminId = id;
            adminQp = qp;
            adminCq = cq;
            taken = true;
            adminLost = false;
            id.onDisconnect(c -> adminLost = true);
            final long connected = fabricsConnect(qp, cq, 0, ADMIN_ENTRIES, NvmfConnectData.CNTLID_DYNAMIC,
                    ADMIN_SEND_ID);
            controllerId = (int) (connected & 0xFFFF);
            final long capabilities = propertyGet(NvmeRegister.CAP);
            pageBytes = 1 << (12 + (int) (capabilities >>> NvmeRegister.CAP_MPSMIN_SHIFT & 0xF));
            maxQueueEntries = (int) (capabilities & NvmeRegister.CAP_MQES_MASK) + 1;
            propertySet(NvmeRegister.CC, NvmeRegister.CC_ENABLE | NvmeRegister.CC_IOSQES_NVM | NvmeRegister.CC_IOCQES_NVM);
            awaitReady(capabilities);
            final int queues = config.channels();
            final long granted = admin(NvmeOpcode.SET_FEATURES, 0, NvmeFeature.NUMBER_OF_QUEUES,
                    (queues - 1) | (long) (queues - 1) << 16, 0, "Set Features (Number of Queues)");
            final int grantedQueues = (int) Math.min(granted & 0xFFFF, granted >>> 16 & 0xFFFF) + 1;
            if (grantedQueues < queues) {
                throw new SrpIoException("the controller of " + session.subsystemNqn() + " grants " + grantedQueues
                        + " I/O queues; the session asks for " + queues + " channels");
            }
            controller = identify();
            LOG.info("controller {} of {} at {} ready", controllerId, session.subsystemNqn(), config.target());
        } catch (SrpIoException | RuntimeException e) {
            dropAdmin();
            if (!taken) {
                id.close();
                if (cq != null) {
                    cq.close();
                }
            }
            throw e;
        }
    }

    /** The controller's identity, the transfer one command may carry and the in-capsule data an I/O queue takes. */
    synchronized Controller controller() {
        return controller;
    }

    /**
     * Identify Controller: MDTS (at most 1 MiB), and IOCCSZ less the entry: the write data an I/O queue's capsule may
     * carry (none where the data would not start right after the entry, ICDOFF 0, or with immediate data off).
     */
    private Controller identify() throws SrpIoException {
        admin(NvmeOpcode.IDENTIFY, 0, NvmeIdentify.CNS_CONTROLLER, 0, NvmeIdentify.DATA_LENGTH, "Identify Controller");
        final NvmeIdentifyController identity = new NvmeIdentifyController().wrap(buffer.segment(), DATA_AT);
        final int mdts = identity.maxDataTransferSize();
        final long limit = mdts == 0 ? DEFAULT_MAX_TRANSFER : (long) pageBytes << mdts;
        final long capsule = identity.commandCapsuleSize() * 16 - NvmeSubmission.LENGTH;
        final int inCapsule = config.immediateData() && identity.inCapsuleDataOffset() == 0
                ? (int) Math.clamp(capsule, 0, MAX_IN_CAPSULE_BYTES) : 0;
        return new Controller(identity.serialNumber().strip(), identity.modelNumber().strip(),
                identity.firmwareRevision().strip(), (int) Math.min(DEFAULT_MAX_TRANSFER, limit), inCapsule);
    }

    /** The active namespaces, in id order (Identify's active namespace list, then each namespace). */
    synchronized List<Namespace> namespaces() throws SrpIoException {
        admin(NvmeOpcode.IDENTIFY, 0, NvmeIdentify.CNS_ACTIVE_NAMESPACES, 0, NvmeIdentify.DATA_LENGTH,
                "Identify (active namespace list)");
        final List<Long> ids = new ArrayList<>();
        for (int i = 0; i < NvmeIdentify.DATA_LENGTH / Integer.BYTES; i++) {
            final long nsid = NvmeNamespaceLists.id(buffer.segment(), DATA_AT, i);
            if (nsid == 0) {
                break;
            }
            ids.add(nsid);
        }
        final List<Namespace> found = new ArrayList<>();
        final NvmeIdentifyNamespace namespace = new NvmeIdentifyNamespace();
        for (final long nsid : ids) {
            admin(NvmeOpcode.IDENTIFY, nsid, NvmeIdentify.CNS_NAMESPACE, 0, NvmeIdentify.DATA_LENGTH,
                    "Identify Namespace " + nsid);
            namespace.wrap(buffer.segment(), DATA_AT);
            if (namespace.size() > 0) {
                found.add(new Namespace(nsid, namespace.blockSize(namespace.formatInUse()), namespace.size()));
            }
        }
        return found;
    }

    /**
     * Makes I/O queue {@code index + 1} on {@code id}: a CQ and an RC QP on the session's device, the channel's
     * {@code receives} posted (behind one of the association's own, for the Connect's answer), rdma_cm connect and
     * Fabrics Connect to the controller. On any failure closes them and the id.
     */
    synchronized ChannelLink logIn(final ConnectionId id, final int index, final ReceiveWorkRequest[] receives,
                                   final CompletionChannel events) throws SrpIoException {
        CompletionQueue cq = null;
        try {
            if (id.context() != context) {
                throw new SrpIoException("queue " + (index + 1) + " to " + config.target() + " came up on another RDMA device");
            }
            final int depth = config.queueDepth();
            final int sendQueueSize = ChannelLogin.sendQueueSize(config);
            cq = context.createCompletionQueue(sendQueueSize + depth + ChannelMemory.SPARE_RECEIVES + 2, events);
            final QueuePair qp = id.createQueuePair(pd, new QueuePairInitAttributes(QueuePairType.RC, cq, cq, null,
                    new QueuePairCapabilities(sendQueueSize, depth + ChannelMemory.SPARE_RECEIVES + 1, 1, 1, 0), false));
            qp.postReceive(connectReceive); // first: the Connect's answer is the first the controller sends
            for (final ReceiveWorkRequest receive : receives) {
                qp.postReceive(receive);
            }
            // a queue of n entries holds n - 1 commands: one more than the depth, as many as the controller takes
            final int entries = Math.min(depth + 1, maxQueueEntries);
            cmConnect(id, index + 1, entries);
            fabricsConnect(qp, cq, index + 1, entries, controllerId, CONNECT_SEND_ID);
            return new ChannelLink(id, qp, cq, entries - 1, controller.inCapsuleBytes());
        } catch (SrpIoException | RuntimeException e) {
            id.close();
            if (cq != null) {
                cq.close();
            }
            throw e;
        }
    }

    /**
     * A channel's agent, after its queue's connection was lost: connects the queue again. When the admin queue is gone
     * too, or the controller refuses the queue (it no longer knows the association: the target was restarted), a new
     * association is made first.
     */
    @Override
    public synchronized ChannelLink reconnect(final int index, final ReceiveWorkRequest[] receives,
                                              final CompletionChannel events) throws SrpIoException {
        if (closed) {
            throw new SrpIoException("the initiator is closed");
        }
        boolean renewed = false;
        if (adminLost || adminId == null) {
            renew();
            renewed = true;
        }
        try {
            return logIn(ChannelLogin.resolve(provider, config), index, receives, events);
        } catch (ControllerGoneException e) {
            if (renewed) {
                throw e;
            }
            renew();
            return logIn(ChannelLogin.resolve(provider, config), index, receives, events);
        }
    }

    /** A new admin queue and controller in place of the lost one. */
    private void renew() throws SrpIoException {
        LOG.info("the association with {} at {} is gone (controller {}); connecting again", session.subsystemNqn(),
                config.target(), controllerId);
        dropAdmin();
        open(ChannelLogin.resolve(provider, config));
    }

    /** The session is closing: shuts the controller down (normal shutdown) and disconnects the admin queue. */
    synchronized void close() {
        closed = true;
        if (adminId != null && !adminLost) {
            try {
                propertySet(NvmeRegister.CC, NvmeRegister.CC_SHUTDOWN_NORMAL | NvmeRegister.CC_IOSQES_NVM
                        | NvmeRegister.CC_IOCQES_NVM | NvmeRegister.CC_ENABLE);
            } catch (SrpIoException | RuntimeException e) {
                LOG.debug("shutdown of controller {} not answered: {}", controllerId, e.getMessage());
            }
        }
        dropAdmin();
        buffer.close();
        arena.close();
    }

    private void dropAdmin() {
        if (adminId != null) {
            try {
                adminId.disconnect();
            } catch (RuntimeException ignored) {
                // already gone
            }
            adminId.close();
            adminCq.close();
        }
        adminId = null;
        adminQp = null;
        adminCq = null;
    }

    /** The rdma_cm connect with the NVMe/RDMA private data: queue id and sizes; a reject's status in words. */
    private void cmConnect(final ConnectionId id, final int queueId, final int entries) throws SrpIoException {
        final byte[] request = new byte[NvmeRdmaCmRequest.LENGTH];
        new NvmeRdmaCmRequest().wrap(MemorySegment.ofArray(request), 0).reset().setQueueId(queueId)
                .setHostReceiveQueueSize(entries).setHostSendQueueSize(entries).setControllerId(0xFFFF);
        try {
            id.connect(new ConnectionParameters(request, 16, 16, 7, 7), config.connectTimeout());
        } catch (ConnectionRejectedException e) {
            if (e.reason() == ConnectionFailedException.Reason.NO_LISTENER) {
                throw new SrpIoException("connection refused: no NVMe target listens at " + config.target().getHostString()
                        + ":" + config.target().getPort() + " (" + config.provider()
                        + " provider): is the target running, on that address and port?", e);
            }
            throw new SrpIoException("the target at " + config.target() + " rejected queue " + queueId + ": "
                    + rejectReason(e.privateData()), e);
        } catch (RuntimeException e) {
            throw new SrpIoException("connect of queue " + queueId + " to " + config.target() + " failed: " + e.getMessage(), e);
        }
    }

    /** An NVMe/RDMA connect reject's status in words. */
    static String rejectReason(final byte[] privateData) {
        if (privateData == null || privateData.length < NvmeRdmaCmReject.LENGTH) {
            return "no NVMe/RDMA reject data came with it";
        }
        final int status = new NvmeRdmaCmReject().wrap(MemorySegment.ofArray(privateData), 0).status();
        return switch (status) {
            case NvmeRdmaCmReject.INVALID_QUEUE_ID -> "invalid queue id";
            case NvmeRdmaCmReject.INVALID_HOST_SEND_QUEUE_SIZE -> "the queue size is more than the target takes";
            case NvmeRdmaCmReject.INVALID_HOST_RECEIVE_QUEUE_SIZE -> "the receive queue size is not one the target takes";
            case NvmeRdmaCmReject.NO_RESOURCES -> "no resources";
            case NvmeRdmaCmReject.INVALID_RECORD_FORMAT -> "invalid record format";
            default -> "status " + status;
        };
    }

    /**
     * Fabrics Connect of queue {@code queueId} on {@code qp}: its data (subsystem, host, controller) by keyed SGL, as
     * nvme-rdma sends it on the admin queue. Returns the completion's result (the controller id on the admin queue).
     */
    private long fabricsConnect(final QueuePair qp, final CompletionQueue cq, final int queueId, final int entries,
                                final int controller, final long sendId) throws SrpIoException {
        final MemorySegment bytes = buffer.segment();
        new NvmfConnectData().wrap(bytes, DATA_AT).reset().setHostId(hostId()).setControllerId(controller)
                .setSubsystemNqn(session.subsystemNqn()).setHostNqn(session.hostNqn());
        final NvmeSubmission e = newEntry(NvmeOpcode.FABRICS).setFabricsType(NvmfCommandType.CONNECT);
        new NvmfConnectCommand().wrap(bytes, CAPSULE_AT).setQueueId(queueId).setQueueSize(entries)
                .setKeepAliveTimeoutMillis(0);
        e.sgl(sgl).setKeyed(buffer.address() + DATA_AT, NvmfConnectData.LENGTH, Integer.toUnsignedLong(buffer.rkey()), false);
        final int status = call(qp, cq, sendId);
        if (status != NvmeStatus.SUCCESS) {
            final String why = "the controller refused queue " + queueId + " of " + session.subsystemNqn() + " for host "
                    + session.hostNqn() + ": " + NvmeStatusException.describe(status);
            if (queueId != 0 && (status & 0x7FF) == NvmeStatus.CONNECT_INVALID_PARAMETER) {
                throw new ControllerGoneException(why);
            }
            throw new SrpIoException(why);
        }
        return lastResult;
    }

    private byte[] hostId() {
        return ByteBuffer.allocate(16).order(ByteOrder.BIG_ENDIAN).putLong(session.hostId().getMostSignificantBits())
                .putLong(session.hostId().getLeastSignificantBits()).array();
    }

    private long propertyGet(final int register) throws SrpIoException {
        final NvmeSubmission e = newEntry(NvmeOpcode.FABRICS).setFabricsType(NvmfCommandType.PROPERTY_GET);
        // the size is the property's: 8 bytes for CAP, 4 for the others (nvmet refuses any other)
        new NvmfPropertyCommand().wrap(e.segment(), e.offset())
                .setAttributes(register == NvmeRegister.CAP ? NvmfPropertyCommand.SIZE_8_BYTES : 0).setProperty(register);
        nullSgl(e);
        return adminResult(call(adminQp, adminCq, ADMIN_SEND_ID), "Property Get");
    }

    private void propertySet(final int register, final long value) throws SrpIoException {
        final NvmeSubmission e = newEntry(NvmeOpcode.FABRICS).setFabricsType(NvmfCommandType.PROPERTY_SET);
        new NvmfPropertyCommand().wrap(e.segment(), e.offset()).setProperty(register).setValue(value);
        nullSgl(e);
        adminResult(call(adminQp, adminCq, ADMIN_SEND_ID), "Property Set");
    }

    /** Waits for CSTS.RDY, up to CAP.TO (500 ms units) or the connect timeout, whichever is longer. */
    private void awaitReady(final long capabilities) throws SrpIoException {
        final long timeoutNanos = Math.max(config.connectTimeout().toNanos(),
                (capabilities >>> NvmeRegister.CAP_TIMEOUT_SHIFT & 0xFF) * 500_000_000L);
        final long deadline = System.nanoTime() + timeoutNanos;
        while (true) {
            final long status = propertyGet(NvmeRegister.CSTS);
            if ((status & NvmeRegister.CSTS_FATAL) != 0) {
                throw new SrpIoException("the controller of " + session.subsystemNqn() + " reports a fatal status");
            }
            if ((status & NvmeRegister.CSTS_READY) != 0) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new SrpIoException("the controller of " + session.subsystemNqn() + " was not ready within "
                        + timeoutNanos / 1_000_000 + " ms");
            }
            LockSupport.parkNanos(10_000_000);
        }
    }

    /** An admin command reading {@code length} bytes into the data page. Returns its result. */
    private long admin(final int opcode, final long nsid, final long cdw10, final long cdw11, final int length,
                       final String what) throws SrpIoException {
        if (adminQp == null) {
            throw new SrpIoException("the admin queue to " + config.target() + " is gone");
        }
        final NvmeSubmission e = newEntry(opcode).setNsid(nsid).setCdw(10, cdw10).setCdw(11, cdw11);
        if (length > 0) {
            e.sgl(sgl).setKeyed(buffer.address() + DATA_AT, length, Integer.toUnsignedLong(buffer.rkey()), false);
        } else {
            nullSgl(e);
        }
        return adminResult(call(adminQp, adminCq, ADMIN_SEND_ID), what);
    }

    private long adminResult(final int status, final String what) throws SrpIoException {
        if (status != NvmeStatus.SUCCESS) {
            throw new NvmeStatusException(what + " on the admin queue of " + config.target(), status);
        }
        return lastResult;
    }

    private NvmeSubmission newEntry(final int opcode) {
        nextCommandId = (nextCommandId + 1) & 0xFFFF;
        return entry.wrap(buffer.segment(), CAPSULE_AT).reset().setOpcode(opcode)
                .setFlags(NvmeSubmission.FLAGS_SGL_METABUF).setCommandId(nextCommandId);
    }

    /** nvme-rdma's null keyed SGL for a command without data. */
    private void nullSgl(final NvmeSubmission e) {
        e.sgl(sgl).setKeyed(0, 0, 0, false);
    }

    /**
     * Sends the capsule on {@code qp} and waits (up to the connect timeout) for its SEND to complete and its
     * completion to arrive, posting an admin receive again once read. Returns its status (without More and Do Not
     * Retry); {@link #lastResult} holds its result.
     */
    private int call(final QueuePair qp, final CompletionQueue cq, final long sendId)
            throws SrpIoException {
        final int commandId = nextCommandId;
        send.opcode(SendOpcode.SEND).flags(SendFlags.SIGNALED).wrId(sendId).next(null);
        send.sgl().clear().add(buffer, CAPSULE_AT, CAPSULE_LENGTH);
        qp.postSend(send);
        final long deadline = System.nanoTime() + config.connectTimeout().toNanos();
        boolean sent = false;
        int status = -1;
        while (!sent || status < 0) {
            final int n = cq.poll(completions, completions.capacity());
            for (int i = 0; i < n; i++) {
                if (!completions.isSuccess(i)) {
                    throw new SrpIoException("a command to " + config.target() + " failed: " + completions.toString(i));
                }
                final long id = completions.wrId(i);
                if (completions.opcode(i) != WcOpcode.RECV) {
                    sent |= id == sendId;
                    continue;
                }
                final long at = id == CONNECT_RECEIVE_ID ? RESPONSES_AT + (long) ADMIN_RECEIVES * RESPONSE_LENGTH
                        : RESPONSES_AT + (id & 0xFF) * RESPONSE_LENGTH;
                completion.wrap(buffer.segment(), at);
                final int answered = completion.commandId();
                final int answer = completion.status() & ~(NvmeStatus.MORE | NvmeStatus.DO_NOT_RETRY);
                final long result = completion.result64();
                if (id != CONNECT_RECEIVE_ID) {
                    qp.postReceive(adminReceives[(int) (id & 0xFF)]);
                }
                if (answered == commandId) {
                    status = answer;
                    lastResult = result;
                }
            }
            if (n == 0) {
                if (System.nanoTime() - deadline > 0) {
                    throw new SrpIoException("the controller at " + config.target() + " did not answer within "
                            + config.connectTimeout().toMillis() + " ms");
                }
                Thread.onSpinWait();
            }
        }
        return status;
    }

    /** A queue's Connect refused because the controller no longer knows the association. */
    static final class ControllerGoneException extends SrpIoException {
        ControllerGoneException(final String message) {
            super(message);
        }
    }
}

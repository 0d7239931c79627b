package org.rdmablock.verbs.soft;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.rdmablock.verbs.AccessFlags;
import org.rdmablock.verbs.AsyncEvent;
import org.rdmablock.verbs.DisconnectReason;
import org.rdmablock.verbs.QueuePairAttributes;
import org.rdmablock.verbs.QueuePairInitAttributes;
import org.rdmablock.verbs.QueuePairState;
import org.rdmablock.verbs.QueuePairType;
import org.rdmablock.verbs.SendFlags;
import org.rdmablock.verbs.SendOpcode;
import org.rdmablock.verbs.VerbsException;
import org.rdmablock.verbs.WcOpcode;
import org.rdmablock.verbs.WcStatus;
import org.rdmablock.verbs.WorkCompletions;
import org.rdmablock.verbs.soft.wire.AtomicMessage;
import org.rdmablock.verbs.soft.wire.Fpdu;
import org.rdmablock.verbs.soft.wire.FpduHeader;
import org.rdmablock.verbs.soft.wire.RdmapOpcode;
import org.rdmablock.verbs.soft.wire.ReadRequest;
import org.rdmablock.verbs.soft.wire.TerminateMessage;

/**
 * An RC or UC QP of the soft provider: one TCP connection speaking MPA/DDP/RDMAP (RFC 5044, 5041, 5040, 7306).
 *
 * <h2>Transmit</h2>
 * Any thread that posts work, and the I/O agent when the socket becomes writable or a response is owed, tries to
 * become the transmit owner ({@link #drive()}); the owner builds FPDUs from the owed responses and the send queue
 * and writes them without blocking. A poster therefore usually writes its own message at once, with no thread
 * hand-off; what the socket does not take is finished by the agent when it becomes writable.
 *
 * <h2>Receive</h2>
 * The I/O agent reads the stream ({@link FpduReader}) and places data directly into registered memory after
 * checking STags, bounds, rights and the QP's state, as a NIC does: RDMA WRITE and READ need no action from the
 * remote application. A violation sends a Terminate (RFC 5040 §4.8) and moves the QP to ERR.
 *
 * <h2>Completion semantics</h2>
 * iWARP completes a SEND or WRITE locally once TCP has taken it and reports remote errors only by Terminate. To
 * give the InfiniBand semantics that verbs users expect (a failed WRITE completes with REM_ACCESS_ERR), an RC QP
 * completes SEND and WRITE work requests only when the peer has processed them: a later RDMA READ or atomic
 * response proves that, and when none is pending the QP issues a zero-length RDMA READ of its own (a standard
 * iWARP way to confirm placement) once signaled work awaits confirmation. A Terminate names the failing message,
 * which completes with the matching status; those before it complete successfully, those after it flush.
 * UC completes at transmission and its responder drops bad messages silently, as UC does.
 */
final class SoftConnectedQueuePair extends SoftQueuePair implements IoAgent.Endpoint, FpduReader.Handler {
    private static final System.Logger LOG = System.getLogger(SoftConnectedQueuePair.class.getName());
    /** Largest payload of one FPDU. */
    static final int MAX_SEGMENT = Integer.getInteger("rdmablock.soft.maxSegment", 64 * 1024 - 128);
    /** STag of the zero-length RDMA WRITE (RTR) and READ (confirmation) the provider sends; index 0 is never a real tag. */
    static final int CONTROL_STAG = 1;
    /** How long a closing connection drains the peer's bytes before closing the socket. */
    private static final long LINGER_NANOS = TimeUnit.SECONDS.toNanos(2);
    private static final VarHandle ATOMIC_LONG = ValueLayout.JAVA_LONG.varHandle();

    // ---- connection, set by attach() ----
    private IoAgent agent;
    private SocketChannel channel;
    private SelectionKey key;
    private FpduWriter writer;
    /**
     * Set last by {@link #attach} (volatile): a polling thread that finds it set finds the channel, the agent and the
     * state RTS set too ({@link #progress} may run on a CQ's poller while the connection is being attached).
     */
    private volatile FpduReader reader;
    private int ird;
    private int ord;
    private OutstandingReads orq;
    private InboundRequests irq;
    private Runnable onClosed;
    /** Why the connection ended when the QP knows better than "the peer closed" (see {@link #endCause()}); else null. */
    private volatile DisconnectReason endCause;
    /** The channel's keys with the CQs' readiness selectors (see {@link SoftCompletionQueue#watch}); null when none. */
    private SelectionKey recvReadiness;
    private SelectionKey sendReadiness;
    /** Passive side of a peer-to-peer connection: nothing may be sent before the first FPDU arrives (RFC 5044 §7.1). */
    private volatile boolean holdTransmit;
    private volatile boolean rtrPending;
    private volatile boolean closed;
    private boolean outputShut;
    private long lingerDeadline = Long.MAX_VALUE;
    /** When a SEND waiting for a receive gives up (RNR retries exceeded); Long.MAX_VALUE: not waiting, or forever. */
    private long rnrDeadline = Long.MAX_VALUE;

    // ---- liveness (see onSweep), checked by the agent's sweep ----
    /** Reads that returned bytes; the sweep compares it with its last look (no clock read per read). */
    private long readsWithBytes;
    private long movedSeenBySweep;
    /** When the sweep last saw bytes arrive, or saw the QP start waiting for its peer. */
    private long heardOrWaitingSince;
    private boolean waitingForPeer;
    private long lastHeartbeat;
    /** Set by the sweep: the next transmit builds a confirmation read even for unsignaled work (it proves the peer). */
    private volatile boolean probeDue;
    /** Set by the sweep while this side's reader waits for a receive: the next transmit sends a heartbeat. */
    private volatile boolean heartbeatDue;

    // ---- transmit state, owned by the transmit owner ----
    private final AtomicBoolean txOwner = new AtomicBoolean();
    private volatile boolean txWanted;
    private long txSeq;
    private boolean wqeStarted;
    private final SendGather gather;
    private final FpduHeader txHeader = new FpduHeader();
    private final ReadRequest txReadRequest = new ReadRequest();
    private final AtomicMessage txAtomic = new AtomicMessage();
    private final int[] txMsn = new int[RdmapOpcode.QUEUE_COUNT];
    private boolean preferResponses;
    private boolean immediatePending;
    /** Send queue sequence of the last transmitted SEND/WRITE awaiting confirmation, +1; 0 when none. */
    private long unconfirmedEnd;
    private boolean unconfirmedSignaled;
    /** Highest {@code cover} of any ORQ entry issued. */
    private long coveredEnd;
    /** UC: WQEs built whose bytes are not yet all written. */
    private long builtEnd;
    private long writtenEnd;
    private final TerminateFpdu terminateFpdu = new TerminateFpdu();
    private volatile boolean terminatePending;

    // ---- receive state, owned by the I/O agent ----
    private final int[] rxMsn = new int[RdmapOpcode.QUEUE_COUNT];
    private final ReceiveQueue.ReceiveWqe rxRecv;
    private boolean rxRecvActive;
    private long rxRecvPlaced;
    private int rxSegmentKind;
    private int rxSegmentLength;
    private boolean rxSegmentLast;
    private int rxSegmentOpcode;
    private int rxSegmentReservedUlp;
    private boolean rxInWrite;
    private long rxWriteLength;
    private long rxLastWriteLength;
    private boolean rxUcDiscarding;
    private long confirmedEnd;
    private final RemoteAccess remoteAccess;
    private final ReadRequest rxReadRequest = new ReadRequest();
    private final AtomicMessage rxAtomic = new AtomicMessage();
    private final TerminateMessage rxTerminate = new TerminateMessage();
    private final FpduHeader terminatedHeader = new FpduHeader();

    private static final int SEGMENT_NONE = 0;
    private static final int SEGMENT_WRITE = 1;
    private static final int SEGMENT_READ_RESPONSE = 2;
    private static final int SEGMENT_SEND = 3;

    SoftConnectedQueuePair(final SoftProtectionDomain pd, final QueuePairInitAttributes attributes) {
        super(pd, attributes);
        gather = new SendGather(localAccess, caps.maxSendSge());
        rxRecv = new ReceiveQueue.ReceiveWqe(maxRecvSge());
        remoteAccess = new RemoteAccess(device.stags(), pd, this);
        for (int q = 0; q < RdmapOpcode.QUEUE_COUNT; q++) {
            txMsn[q] = 1;
            rxMsn[q] = 1;
        }
    }

    // =================================================================================================== setup

    @Override
    void checkTransition(final QueuePairState current, final QueuePairState next, final QueuePairAttributes attributes) {
        if (next == QueuePairState.RTR || next == QueuePairState.RTS && current == QueuePairState.RTR) {
            throw new VerbsException(VerbsException.EINVAL, "the soft provider connects " + type
                + " QPs through its ConnectionManager (iWARP connects by rdma_cm, not by ibv_modify_qp)");
        }
    }

    /**
     * Takes over a connected TCP channel after the MPA exchange and moves the QP to RTS.
     *
     * @param crc            whether FPDUs carry CRC32c
     * @param ird            READ/atomic requests accepted in flight
     * @param ord            READ/atomic requests issued in flight
     * @param sendRtr        send a zero-length RDMA WRITE first (RFC 6581 RTR, active side of peer-to-peer)
     * @param awaitFirstFpdu hold transmission until the peer's first FPDU (passive side of peer-to-peer)
     * @param closedCallback runs once when the connection has closed
     */
    void attach(final SocketChannel connected, final boolean crc, final int ird, final int ord, final boolean sendRtr,
                final boolean awaitFirstFpdu, final Runnable closedCallback) throws IOException {
        if (state != QueuePairState.INIT) {
            throw new VerbsException(VerbsException.EINVAL, "QP " + qpn + " must be in INIT to connect, is " + state);
        }
        this.ird = Math.max(1, Math.min(ird, SoftDevice.MAX_IRD));
        this.ord = Math.max(1, Math.min(ord, SoftDevice.MAX_ORD));
        // ORD bounds every request the peer must answer, the confirmation reads included: one more would exceed
        // the peer's IRD (which covers our ORD, no more) and it would terminate the connection
        this.orq = new OutstandingReads(this.ord);
        this.irq = new InboundRequests(this.ird);
        this.writer = new FpduWriter(crc);
        this.onClosed = closedCallback;
        this.holdTransmit = awaitFirstFpdu;
        this.rtrPending = sendRtr;
        connected.configureBlocking(false);
        this.channel = connected;
        this.agent = device.nextAgent();
        keepAlive(connected);
        moveTo(QueuePairState.RTR);
        moveTo(QueuePairState.RTS);
        // Last: from here a CQ's polling thread may read the stream (progress), and a SEND it delivers may be
        // answered at once, which needs RTS.
        this.reader = new FpduReader(this, crc, Math.max(maxRecvSge(), caps.maxSendSge()));
        if (SoftCompletionQueue.POLL_PROGRESS) {
            recvReadiness = recvCq.watch(connected, this);
            sendReadiness = sendCq == recvCq ? null : sendCq.watch(connected, this);
        }
        agent.register(connected, SelectionKey.OP_READ, this, registered -> {
            key = registered;
            if (registered == null) {
                connectionLost("channel closed before registration");
            } else if (type == QueuePairType.RC) {
                agent.watch(this); // the sweep starts its clock when it first sees work waiting
            }
        });
        drive();
    }

    // ================================================================================================ transmit

    @Override
    void sendPosted() {
        drive();
    }

    /** Becomes the transmit owner and transmits, or leaves a note for the current owner. */
    void drive() {
        txWanted = true;
        while (txWanted && txOwner.compareAndSet(false, true)) {
            txWanted = false;
            try {
                transmit();
            } catch (final IOException e) {
                txOwner.set(false);
                connectionLost(e.getMessage());
                return;
            } catch (final RuntimeException e) {
                LOG.log(System.Logger.Level.ERROR, "QP " + qpn + ": transmit failed", e);
                txOwner.set(false);
                fatal(AsyncEvent.Type.QP_FATAL, "transmit failed: " + e);
                return;
            }
            txOwner.set(false);
        }
    }

    private void transmit() throws IOException {
        if (channel == null || closed) {
            return;
        }
        if (!writer.flush(channel)) {
            armWrite();
            return;
        }
        if (state == QueuePairState.ERR) {
            finishOutput();
            return;
        }
        if (holdTransmit) {
            return;
        }
        completeWritten();
        while (state != QueuePairState.ERR) {
            final int built = buildNext();
            if (built == NOTHING) {
                break;
            }
            if (built == NO_ROOM && writer.isEmpty()) {
                throw new IllegalStateException("an FPDU does not fit in an empty staging buffer");
            }
            if (built == NO_ROOM) {
                if (!writer.flush(channel)) {
                    armWrite();
                    return;
                }
                completeWritten();
            }
        }
        if (!writer.flush(channel)) {
            armWrite();
            return;
        }
        completeWritten();
        if (state == QueuePairState.ERR) {
            finishOutput();
        }
    }

    /** UC: work requests whose bytes all went to TCP complete now. */
    private void completeWritten() {
        if (writer.isEmpty() && writtenEnd < builtEnd) {
            for (long seq = writtenEnd; seq < builtEnd; seq++) {
                final SendWqe wqe = sq.at(seq);
                if (wqe.state != SendWqe.DONE) {
                    finish(wqe, 0);
                }
            }
            writtenEnd = builtEnd;
            retire();
        }
    }

    private void armWrite() {
        final SelectionKey k = key;
        if (k != null && k.isValid()) {
            k.interestOpsOr(SelectionKey.OP_WRITE);
            agent.wakeup();
        } else if (k == null) {
            agent.execute(this::drive);
        }
    }

    private static final int BUILT = 1;
    private static final int NOTHING = 0;
    private static final int NO_ROOM = -1;

    /** Builds the next FPDU: BUILT, NOTHING to send now, or NO_ROOM until the staging buffer is flushed. */
    private int buildNext() {
        if (rtrPending) {
            final int built = buildControlWrite();
            if (built == BUILT) {
                rtrPending = false;
            }
            return built;
        }
        if (preferResponses && !irq.isEmpty()) {
            preferResponses = false;
            return buildResponse();
        }
        if (txSeq < sq.tail()) {
            final int built = buildFromSendQueue();
            if (built != NOTHING) {
                preferResponses = built == BUILT;
                return built;
            }
        }
        if (!irq.isEmpty()) {
            return buildResponse();
        }
        final int built = buildConfirmationIfNeeded();
        if (built == NOTHING && heartbeatDue && !wqeStarted) {
            final int heartbeat = buildControlWrite();
            if (heartbeat == BUILT) {
                heartbeatDue = false;
            }
            return heartbeat;
        }
        return built;
    }

    /**
     * A zero-length RDMA WRITE to {@link #CONTROL_STAG}: the RFC 6581 RTR, and the heartbeat of a side whose reader
     * waits for a receive (see {@link #onSweep}). Zero-length WRITEs are not validated (RFC 5040 §6.4) and complete
     * nothing at the peer.
     */
    private int buildControlWrite() {
        if (!writer.fits(FpduHeader.TAGGED_LENGTH, 0)) {
            return NO_ROOM;
        }
        txHeader.wrap(writer.begin(FpduHeader.TAGGED_LENGTH, 0), writer.fpduOffset())
            .control(RdmapOpcode.RDMA_WRITE, true, 0).tagged(CONTROL_STAG, 0);
        writer.finish();
        return BUILT;
    }

    /** BUILT, NOTHING (the head request must wait: fence, ORD full) or NO_ROOM. */
    private int buildFromSendQueue() {
        final SendWqe wqe = sq.at(txSeq);
        if (wqe.state == SendWqe.DONE) { // flushed
            txSeq++;
            wqeStarted = false;
            return BUILT;
        }
        final SendOpcode opcode = wqe.opcode;
        if (!wqeStarted) {
            if ((wqe.flags & SendFlags.FENCE) != 0 && !orq.isEmpty()) {
                return NOTHING;
            }
            if (opcode.needsResponse() && orq.isFull()) {
                return NOTHING;
            }
            if (!opcode.isRemote()) {
                executeLocal(wqe);
                return BUILT;
            }
            // an atomic's remote address must be 8-byte aligned; the provider reports it as a local protection error
            if (!gather.resolve(wqe) || opcode.isAtomic() && (wqe.remoteAddress & 7) != 0) {
                failLocal(wqe, WcStatus.LOC_PROT_ERR);
                return BUILT;
            }
            wqe.sent = 0;
            wqe.state = SendWqe.TRANSMITTING;
            wqeStarted = true;
            immediatePending = opcode == SendOpcode.RDMA_WRITE_WITH_IMM;
        }
        return switch (opcode) {
            case SEND, SEND_WITH_IMM, SEND_WITH_INV -> buildSendSegment(wqe);
            case RDMA_WRITE, RDMA_WRITE_WITH_IMM -> buildWriteSegment(wqe);
            case RDMA_READ -> buildReadRequest(wqe);
            case ATOMIC_CMP_AND_SWP, ATOMIC_FETCH_AND_ADD -> buildAtomicRequest(wqe);
            default -> throw new IllegalStateException("unexpected opcode " + opcode);
        };
    }

    /**
     * Completes a request with a local error and moves the QP to ERR; the requests before it that are still
     * unconfirmed flush.
     */
    private void failLocal(final SendWqe wqe, final WcStatus status) {
        finish(wqe, status.code());
        txSeq++;
        wqeStarted = false;
        retire();
        enterError();
    }

    /** BIND_MW and LOCAL_INV: executed in send queue order, with no wire traffic. */
    private void executeLocal(final SendWqe wqe) {
        if (wqe.opcode == SendOpcode.BIND_MW) {
            final SoftMemoryWindow window = wqe.window;
            final SoftMemoryRegion region = wqe.bindRegion;
            final boolean rightsOk = (wqe.bindAccess & (AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_ATOMIC)) == 0
                || (region.access() & AccessFlags.LOCAL_WRITE) != 0;
            if (window.pd() != pd || region.pd() != pd || !region.isValid() || (region.access() & AccessFlags.MW_BIND) == 0
                || !region.contains(wqe.bindAddress, wqe.bindLength) || !rightsOk) {
                failLocal(wqe, WcStatus.MW_BIND_ERR);
                return;
            }
            window.bind(this, region, wqe.bindAddress, wqe.bindLength, wqe.bindAccess);
        } else if (device.stags().lookup(wqe.invalidateRkey) instanceof SoftMemoryWindow window && window.pd() == pd) {
            window.invalidate();
        } else {
            failLocal(wqe, WcStatus.MW_BIND_ERR);
            return;
        }
        if (unconfirmedEnd > coveredEnd) {
            unconfirmedSignaled |= wqe.signaled; // its completion waits for the unconfirmed requests before it
        }
        finish(wqe, 0);
        txSeq++;
        retire();
    }

    private int buildSendSegment(final SendWqe wqe) {
        final long remaining = wqe.totalLength - wqe.sent;
        final int payload = gather.nextPayload(wqe, MAX_SEGMENT);
        if (!writer.fits(FpduHeader.UNTAGGED_LENGTH, payload)) {
            return NO_ROOM;
        }
        final boolean first = wqe.sent == 0;
        if (first) {
            wqe.queueNumber = RdmapOpcode.QN_SEND;
            wqe.msn = txMsn[RdmapOpcode.QN_SEND]++;
        }
        final boolean solicited = (wqe.flags & SendFlags.SOLICITED) != 0;
        final int opcode = wqe.opcode == SendOpcode.SEND_WITH_INV
            ? (solicited ? RdmapOpcode.SEND_WITH_SE_AND_INVALIDATE : RdmapOpcode.SEND_WITH_INVALIDATE)
            : (solicited ? RdmapOpcode.SEND_WITH_SE : RdmapOpcode.SEND);
        final int flags = wqe.opcode == SendOpcode.SEND_WITH_IMM ? FpduHeader.RDMAP_FLAG_IMMEDIATE : 0;
        final int reservedUlp = wqe.opcode == SendOpcode.SEND_WITH_INV ? wqe.invalidateRkey
            : wqe.opcode == SendOpcode.SEND_WITH_IMM ? wqe.immediateData : 0;
        final boolean last = payload == remaining;
        final ByteBuffer buffer = writer.begin(FpduHeader.UNTAGGED_LENGTH, payload);
        txHeader.wrap(buffer, writer.fpduOffset()).control(opcode, last, flags)
            .untagged(reservedUlp, RdmapOpcode.QN_SEND, wqe.msn, (int) wqe.sent);
        gather.append(wqe, payload, writer);
        if (last) {
            messageBuilt(wqe);
        }
        return BUILT;
    }

    private int buildWriteSegment(final SendWqe wqe) {
        final long remaining = wqe.totalLength - wqe.sent;
        if (remaining == 0 && immediatePending && wqe.totalLength > 0) {
            return buildImmediate(wqe);
        }
        final int payload = gather.nextPayload(wqe, MAX_SEGMENT);
        if (!writer.fits(FpduHeader.TAGGED_LENGTH, payload)) {
            return NO_ROOM;
        }
        final boolean last = payload == remaining;
        final ByteBuffer buffer = writer.begin(FpduHeader.TAGGED_LENGTH, payload);
        txHeader.wrap(buffer, writer.fpduOffset()).control(RdmapOpcode.RDMA_WRITE, last, 0)
            .tagged(wqe.rkey, wqe.remoteAddress + wqe.sent);
        gather.append(wqe, payload, writer);
        if (last) {
            if (immediatePending) {
                return BUILT; // the Immediate Data message follows as the next FPDU
            }
            messageBuilt(wqe);
        }
        return BUILT;
    }

    /** RFC 7306 Immediate Data message that follows an RDMA WRITE with immediate data. */
    private int buildImmediate(final SendWqe wqe) {
        final int header = FpduHeader.UNTAGGED_LENGTH + AtomicMessage.IMMEDIATE_LENGTH;
        if (!writer.fits(header, 0)) {
            return NO_ROOM;
        }
        final boolean solicited = (wqe.flags & SendFlags.SOLICITED) != 0;
        wqe.queueNumber = RdmapOpcode.QN_SEND;
        wqe.msn = txMsn[RdmapOpcode.QN_SEND]++;
        final ByteBuffer buffer = writer.begin(header, 0);
        txHeader.wrap(buffer, writer.fpduOffset())
            .control(solicited ? RdmapOpcode.IMMEDIATE_DATA_WITH_SE : RdmapOpcode.IMMEDIATE_DATA, true, 0)
            .untagged(0, RdmapOpcode.QN_SEND, wqe.msn, 0);
        txAtomic.wrap(buffer, writer.fpduOffset()).immediate(wqe.immediateData);
        writer.finish();
        immediatePending = false;
        messageBuilt(wqe);
        return BUILT;
    }

    /** The last byte of a SEND or WRITE message is built. */
    private void messageBuilt(final SendWqe wqe) {
        wqeStarted = false;
        txSeq++;
        if (type == QueuePairType.UC) {
            builtEnd = txSeq;
        } else {
            unconfirmedEnd = txSeq;
            unconfirmedSignaled |= wqe.signaled;
        }
    }

    private int buildReadRequest(final SendWqe wqe) {
        if (!writer.fits(ReadRequest.FPDU_HEADER_LENGTH, 0)) {
            return NO_ROOM;
        }
        wqe.queueNumber = RdmapOpcode.QN_READ_REQUEST;
        wqe.msn = txMsn[RdmapOpcode.QN_READ_REQUEST]++;
        final ByteBuffer buffer = writer.begin(ReadRequest.FPDU_HEADER_LENGTH, 0);
        txHeader.wrap(buffer, writer.fpduOffset()).control(RdmapOpcode.READ_REQUEST, true, 0)
            .untagged(0, RdmapOpcode.QN_READ_REQUEST, wqe.msn, 0);
        final int sinkStag = wqe.sgeCount > 0 ? wqe.lkeys[0] : CONTROL_STAG;
        final long sinkOffset = wqe.sgeCount > 0 ? wqe.addresses[0] : 0;
        txReadRequest.wrap(buffer, writer.fpduOffset()).set(sinkStag, sinkOffset, (int) wqe.totalLength, wqe.rkey, wqe.remoteAddress);
        writer.finish();
        orq.push(OutstandingReads.READ, txSeq, txSeq + 1, sinkStag, sinkOffset, wqe.totalLength, 0);
        coveredEnd = txSeq + 1;
        wqeStarted = false;
        txSeq++;
        return BUILT;
    }

    private int buildAtomicRequest(final SendWqe wqe) {
        final int header = FpduHeader.UNTAGGED_LENGTH + AtomicMessage.REQUEST_LENGTH;
        if (!writer.fits(header, 0)) {
            return NO_ROOM;
        }
        wqe.queueNumber = RdmapOpcode.QN_ATOMIC;
        wqe.msn = txMsn[RdmapOpcode.QN_ATOMIC]++;
        final ByteBuffer buffer = writer.begin(header, 0);
        txHeader.wrap(buffer, writer.fpduOffset()).control(RdmapOpcode.ATOMIC_REQUEST, true, 0)
            .untagged(0, RdmapOpcode.QN_ATOMIC, wqe.msn, 0);
        final boolean cas = wqe.opcode == SendOpcode.ATOMIC_CMP_AND_SWP;
        txAtomic.wrap(buffer, writer.fpduOffset()).request(cas ? AtomicMessage.COMPARE_SWAP : AtomicMessage.FETCH_ADD,
            wqe.msn, wqe.rkey, wqe.remoteAddress, cas ? wqe.swap : wqe.compareAdd, cas ? wqe.compareAdd : 0);
        writer.finish();
        orq.push(OutstandingReads.ATOMIC, txSeq, txSeq + 1, wqe.lkeys[0], wqe.addresses[0], 8, wqe.msn);
        coveredEnd = txSeq + 1;
        wqeStarted = false;
        txSeq++;
        return BUILT;
    }

    /** A zero-length READ that confirms the SENDs and WRITEs before it, when signaled work waits on it. */
    private int buildConfirmationIfNeeded() {
        if (type != QueuePairType.RC || unconfirmedEnd <= coveredEnd || orq.isFull()) {
            return NOTHING;
        }
        final boolean queueFilling = sq.tail() - sq.head() > sq.capacity() / 2;
        if (!unconfirmedSignaled && !queueFilling && !probeDue) {
            return NOTHING;
        }
        if (!writer.fits(ReadRequest.FPDU_HEADER_LENGTH, 0)) {
            return NO_ROOM;
        }
        final int msn = txMsn[RdmapOpcode.QN_READ_REQUEST]++;
        final ByteBuffer buffer = writer.begin(ReadRequest.FPDU_HEADER_LENGTH, 0);
        txHeader.wrap(buffer, writer.fpduOffset()).control(RdmapOpcode.READ_REQUEST, true, 0)
            .untagged(0, RdmapOpcode.QN_READ_REQUEST, msn, 0);
        txReadRequest.wrap(buffer, writer.fpduOffset()).set(CONTROL_STAG, 0, 0, CONTROL_STAG, 0);
        writer.finish();
        orq.push(OutstandingReads.PROBE, -1, unconfirmedEnd, CONTROL_STAG, 0, 0, 0);
        coveredEnd = unconfirmedEnd;
        unconfirmedSignaled = false;
        probeDue = false;
        return BUILT;
    }

    /** One segment of the oldest owed response. */
    private int buildResponse() {
        if (irq.headKind() == InboundRequests.ATOMIC_RESPONSE) {
            final int header = FpduHeader.UNTAGGED_LENGTH + AtomicMessage.RESPONSE_LENGTH;
            if (!writer.fits(header, 0)) {
                return NO_ROOM;
            }
            final ByteBuffer buffer = writer.begin(header, 0);
            txHeader.wrap(buffer, writer.fpduOffset()).control(RdmapOpcode.ATOMIC_RESPONSE, true, 0)
                .untagged(0, RdmapOpcode.QN_ATOMIC, txMsn[RdmapOpcode.QN_ATOMIC]++, 0);
            txAtomic.wrap(buffer, writer.fpduOffset()).response(irq.headRequestId(), irq.headValue());
            writer.finish();
            irq.pop();
            return BUILT;
        }
        final long remaining = irq.headLength() - irq.headSent();
        final SoftMemoryRegion source = irq.headSource();
        final int payload = (int) Math.min(remaining, MAX_SEGMENT);
        final long sourceOffset = irq.headSourceOffset() + irq.headSent();
        if (!writer.fits(FpduHeader.TAGGED_LENGTH, payload)) {
            return NO_ROOM;
        }
        final boolean last = payload == remaining;
        final ByteBuffer buffer = writer.begin(FpduHeader.TAGGED_LENGTH, payload);
        txHeader.wrap(buffer, writer.fpduOffset()).control(RdmapOpcode.READ_RESPONSE, last, 0)
            .tagged(irq.headSinkStag(), irq.headSinkOffset() + irq.headSent());
        if (payload > 0) {
            writer.copyPayload(source.segment(), sourceOffset, payload);
        }
        writer.finish();
        irq.addSent(payload);
        if (last) {
            irq.pop();
        }
        return BUILT;
    }

    // ================================================================================================= receive

    @Override
    public int onReady(final SelectionKey readyKey) {
        int work = 0;
        if (readyKey.isValid() && readyKey.isWritable()) {
            readyKey.interestOpsAnd(~SelectionKey.OP_WRITE);
            drive();
            work++;
        }
        if (readyKey.isValid() && readyKey.isReadable()) {
            if (pollerActive(System.nanoTime()) && lingerDeadline == Long.MAX_VALUE) {
                handOffToPoller(readyKey);
            } else {
                work += readable();
            }
        }
        return work;
    }

    /**
     * While an application thread spins on this QP's completion queues, it reads the stream itself (see
     * {@link SoftCompletionQueue#POLL_PROGRESS}); waking the agent for every message as well would only steal its
     * core. So the agent stops watching for input and looks again every {@link #POLL_HANDOFF_NANOS}: when the
     * spinning has stopped it watches the socket again (at most that long later).
     */
    private static final long POLL_HANDOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long POLLING_WINDOW_NANOS = TimeUnit.MICROSECONDS.toNanos(50);
    private long handOffDeadline = Long.MAX_VALUE;

    private boolean pollerActive(final long now) {
        return SoftCompletionQueue.POLL_PROGRESS && (recvCq.spunOnWithin(now, POLLING_WINDOW_NANOS) || sendCq.spunOnWithin(now, POLLING_WINDOW_NANOS));
    }

    private void handOffToPoller(final SelectionKey readyKey) {
        readyKey.interestOpsAnd(~SelectionKey.OP_READ);
        handOffDeadline = System.nanoTime() + POLL_HANDOFF_NANOS;
        agent.armTimer(this);
    }

    /** Agent timer: still polled? look again later; else watch the socket again and read what waits. */
    private int checkHandOff(final long now) {
        if (now - handOffDeadline < 0) {
            return 0;
        }
        if (recvCq.spunOnWithin(now, POLLING_WINDOW_NANOS) || sendCq.spunOnWithin(now, POLLING_WINDOW_NANOS)) {
            handOffDeadline = now + POLL_HANDOFF_NANOS;
            return 0;
        }
        handOffDeadline = Long.MAX_VALUE;
        if (key != null && key.isValid() && !reader.isPaused()) {
            key.interestOpsOr(SelectionKey.OP_READ);
        }
        return readable();
    }

    /** Receive ownership: the I/O agent and polling threads ({@link #progress}) take turns reading the stream. */
    private final AtomicBoolean rxOwner = new AtomicBoolean();

    private int readable() {
        if (!rxOwner.compareAndSet(false, true)) {
            return 0; // a polling thread is reading; what it leaves stays ready for the next select
        }
        try {
            if (lingerDeadline != Long.MAX_VALUE || reader.hasFailed()) {
                return drainLinger();
            }
            return read();
        } finally {
            rxOwner.set(false);
        }
    }

    private int read() {
        try {
            final int n = reader.onReadable(channel);
            if (n < 0) {
                connectionLost("peer closed the connection");
            } else if (n > 0) {
                readsWithBytes++; // a plain counter: the sweep only needs to see that it moved
            }
            return Math.max(0, n);
        } catch (final IOException e) {
            endCause = DisconnectReason.CONNECTION_LOST; // a reset, not the peer's orderly close
            connectionLost(e.getMessage());
            return 1;
        }
    }

    @Override
    void progress() {
        if (reader == null || closed || lingerDeadline != Long.MAX_VALUE || !rxOwner.compareAndSet(false, true)) {
            return;
        }
        try {
            if (!reader.isPaused() && !reader.hasFailed() && !closed) {
                read();
            }
        } finally {
            rxOwner.set(false);
        }
    }

    private void firstFpduSeen() {
        if (holdTransmit) {
            holdTransmit = false;
            drive();
        }
    }

    /** Whether the DDP and RDMAP versions are 1; else sends the Terminate the RFCs name and moves to ERR. */
    private boolean versionsSupported(final FpduHeader header) {
        if (header.ddpVersion() != FpduHeader.DDP_VERSION) {
            terminate(header, TerminateMessage.LAYER_DDP, header.isTagged() ? TerminateMessage.DDP_TAGGED_BUFFER
                : TerminateMessage.DDP_UNTAGGED_BUFFER, header.isTagged() ? TerminateMessage.DDP_INVALID_VERSION
                : TerminateMessage.DDP_UNTAGGED_INVALID_VERSION, AsyncEvent.Type.QP_FATAL);
            return false;
        }
        if (header.rdmapVersion() != FpduHeader.RDMAP_VERSION) {
            terminate(header, TerminateMessage.LAYER_RDMAP, TerminateMessage.RDMAP_REMOTE_OPERATION,
                TerminateMessage.RDMAP_INVALID_VERSION, AsyncEvent.Type.QP_FATAL);
            return false;
        }
        return true;
    }

    @Override
    public int onDataHeader(final FpduHeader header, final int payloadLength, final Placement placement) {
        firstFpduSeen();
        if (state == QueuePairState.ERR) {
            placement.discard();
            rxSegmentKind = SEGMENT_NONE;
            return FpduReader.ACCEPT;
        }
        if (!versionsSupported(header)) {
            return FpduReader.FAIL;
        }
        rxSegmentLength = payloadLength;
        rxSegmentLast = header.isLast();
        rxSegmentOpcode = header.opcode();
        rxSegmentOpcodeFlags = header.rdmapControl() & FpduHeader.RDMAP_FLAG_IMMEDIATE;
        return switch (header.opcode()) {
            case RdmapOpcode.RDMA_WRITE -> header.isTagged() ? writeHeader(header, payloadLength, placement) : unexpected(header);
            case RdmapOpcode.READ_RESPONSE -> header.isTagged() && type == QueuePairType.RC
                ? readResponseHeader(header, payloadLength, placement) : unexpected(header);
            default -> !header.isTagged() && RdmapOpcode.isSend(header.opcode())
                ? sendHeader(header, payloadLength, placement) : unexpected(header);
        };
    }

    private int unexpected(final FpduHeader header) {
        return terminate(header, TerminateMessage.LAYER_RDMAP, TerminateMessage.RDMAP_REMOTE_OPERATION,
            TerminateMessage.RDMAP_UNEXPECTED_OPCODE, AsyncEvent.Type.QP_REQ_ERR);
    }

    private int writeHeader(final FpduHeader header, final int payloadLength, final Placement placement) {
        if (payloadLength == 0 && header.stag() == CONTROL_STAG && header.isLast() && !rxInWrite) {
            rxSegmentKind = SEGMENT_NONE; // an RTR or a heartbeat: no message, and the last WRITE's length stays
            placement.discard();
            return FpduReader.ACCEPT;
        }
        rxSegmentKind = SEGMENT_WRITE;
        if (!rxInWrite) {
            rxInWrite = true;
            rxWriteLength = 0;
            rxUcDiscarding = false;
        }
        if (payloadLength == 0 || rxUcDiscarding) {
            placement.discard(); // zero-length WRITEs are not validated (RFC 5040 §6.4)
            return FpduReader.ACCEPT;
        }
        final int check = remoteAccess.check(header.stag(), header.taggedOffset(), payloadLength, AccessFlags.REMOTE_WRITE);
        if (check != RemoteAccess.OK) {
            if (type == QueuePairType.UC) {
                rxUcDiscarding = true;
                placement.discard();
                return FpduReader.ACCEPT;
            }
            if (check == RemoteAccess.RIGHTS) {
                return terminate(header, TerminateMessage.LAYER_RDMAP, TerminateMessage.RDMAP_REMOTE_PROTECTION,
                    TerminateMessage.RDMAP_ACCESS_RIGHTS, AsyncEvent.Type.QP_ACCESS_ERR);
            }
            return terminate(header, TerminateMessage.LAYER_DDP, TerminateMessage.DDP_TAGGED_BUFFER,
                RemoteAccess.ddpErrorCode(check), AsyncEvent.Type.QP_ACCESS_ERR);
        }
        placement.region(remoteAccess.region(), remoteAccess.offset(), payloadLength);
        return FpduReader.ACCEPT;
    }

    private int readResponseHeader(final FpduHeader header, final int payloadLength, final Placement placement) {
        rxSegmentKind = SEGMENT_READ_RESPONSE;
        if (orq.isEmpty() || orq.headKind() == OutstandingReads.ATOMIC || header.stag() != orq.headSinkStag()
            || header.taggedOffset() != orq.headSinkOffset() + orq.headPlaced()
            || orq.headPlaced() + payloadLength > orq.headLength() && orq.headKind() != OutstandingReads.PROBE) {
            return terminate(header, TerminateMessage.LAYER_DDP, TerminateMessage.DDP_TAGGED_BUFFER,
                TerminateMessage.DDP_INVALID_STAG, AsyncEvent.Type.QP_FATAL);
        }
        if (orq.headKind() == OutstandingReads.PROBE) {
            // Linux siw answers a zero-length READ that waited in its inbound read queue with the bytes of the
            // request it sent before (a stale sge[0], see SiwQuirksTest). The sink is CONTROL_STAG, never memory:
            // whatever arrives is dropped, and the response still proves that the peer processed what preceded it.
            placement.discard();
            return FpduReader.ACCEPT;
        }
        if (payloadLength == 0) {
            placement.discard();
            return FpduReader.ACCEPT;
        }
        final SendWqe wqe = sq.at(orq.headWqeSeq());
        placement.scatter();
        for (int i = 0; i < wqe.sgeCount; i++) {
            final SoftMemoryRegion region = localAccess.region(wqe.lkeys[i], wqe.addresses[i], wqe.lengths[i] & 0xFFFF_FFFFL, true);
            if (region == null) {
                finish(wqe, WcStatus.LOC_PROT_ERR.code());
                return terminate(header, TerminateMessage.LAYER_DDP, TerminateMessage.DDP_LOCAL_CATASTROPHIC, 0, AsyncEvent.Type.QP_FATAL);
            }
            placement.add(region, wqe.addresses[i] - region.address(), wqe.lengths[i] & 0xFFFF_FFFFL);
        }
        placement.seek(orq.headPlaced());
        return FpduReader.ACCEPT;
    }

    private int sendHeader(final FpduHeader header, final int payloadLength, final Placement placement) {
        rxSegmentKind = SEGMENT_SEND;
        rxSegmentReservedUlp = header.reservedUlp();
        if (header.queueNumber() != RdmapOpcode.QN_SEND) {
            return terminate(header, TerminateMessage.LAYER_DDP, TerminateMessage.DDP_UNTAGGED_BUFFER, TerminateMessage.DDP_INVALID_QN, AsyncEvent.Type.QP_FATAL);
        }
        if (header.msn() != rxMsn[RdmapOpcode.QN_SEND]) {
            return terminate(header, TerminateMessage.LAYER_DDP, TerminateMessage.DDP_UNTAGGED_BUFFER, TerminateMessage.DDP_INVALID_MSN, AsyncEvent.Type.QP_FATAL);
        }
        if (!rxRecvActive) {
            if (header.messageOffset() != 0) {
                return terminate(header, TerminateMessage.LAYER_DDP, TerminateMessage.DDP_UNTAGGED_BUFFER, TerminateMessage.DDP_INVALID_MO, AsyncEvent.Type.QP_FATAL);
            }
            final int verdict = takeReceiveOrWait(header);
            if (verdict != FpduReader.ACCEPT) {
                return verdict;
            }
            if (rxUcDiscarding) {
                placement.discard();
                return FpduReader.ACCEPT;
            }
        } else if (rxUcDiscarding) {
            placement.discard();
            return FpduReader.ACCEPT;
        } else if (header.messageOffset() != rxRecvPlaced) {
            return terminate(header, TerminateMessage.LAYER_DDP, TerminateMessage.DDP_UNTAGGED_BUFFER, TerminateMessage.DDP_INVALID_MO, AsyncEvent.Type.QP_FATAL);
        }
        if (rxRecvPlaced + payloadLength > rxRecv.totalLength()) {
            if (type == QueuePairType.UC) {
                rxUcDiscarding = true;
                placement.discard();
                return FpduReader.ACCEPT;
            }
            completeReceive(rxRecv.wrId, WcStatus.LOC_LEN_ERR.code(), WcOpcode.RECV, 0, 0, 0, 0, true);
            rxRecvActive = false;
            return terminate(header, TerminateMessage.LAYER_DDP, TerminateMessage.DDP_UNTAGGED_BUFFER,
                TerminateMessage.DDP_MESSAGE_TOO_LONG, AsyncEvent.Type.QP_REQ_ERR);
        }
        placement.scatter();
        for (int i = 0; i < rxRecv.sgeCount; i++) {
            final long length = rxRecv.lengths[i] & 0xFFFF_FFFFL;
            if (length == 0) {
                continue;
            }
            final SoftMemoryRegion region = localAccess.region(rxRecv.lkeys[i], rxRecv.addresses[i], length, true);
            if (region == null) {
                completeReceive(rxRecv.wrId, WcStatus.LOC_PROT_ERR.code(), WcOpcode.RECV, 0, 0, 0, 0, true);
                rxRecvActive = false;
                return terminate(header, TerminateMessage.LAYER_DDP, TerminateMessage.DDP_LOCAL_CATASTROPHIC, 0, AsyncEvent.Type.QP_FATAL);
            }
            placement.add(region, rxRecv.addresses[i] - region.address(), length);
        }
        placement.seek(rxRecvPlaced);
        return FpduReader.ACCEPT;
    }

    /**
     * Set (before trying to take a receive) while the stream waits for one: a thread that posts a receive after
     * a failed take is then sure to see it and resume the stream (the two sides order through the receive
     * queue's lock and this volatile).
     */
    private volatile boolean awaitingReceive;

    /** Takes a receive for a new untagged message; without one, waits as RNR does (RC) or drops (UC). */
    private int takeReceiveOrWait(final FpduHeader header) {
        awaitingReceive = true;
        if (takeReceive(rxRecv)) {
            awaitingReceive = false;
            rxRecvActive = true;
            rxRecvPlaced = 0;
            rxUcDiscarding = false;
            rnrDeadline = Long.MAX_VALUE;
            return FpduReader.ACCEPT;
        }
        if (type == QueuePairType.UC) {
            awaitingReceive = false;
            rxUcDiscarding = true;
            rxRecvActive = true;
            rxRecvPlaced = 0;
            return FpduReader.ACCEPT;
        }
        final long now = System.nanoTime();
        if (rnrDeadline == Long.MAX_VALUE) {
            final long wait = rnrWaitNanos();
            rnrDeadline = wait == Long.MAX_VALUE ? Long.MAX_VALUE : now + wait;
        }
        if (rnrDeadline != Long.MAX_VALUE && now - rnrDeadline >= 0) {
            rnrDeadline = Long.MAX_VALUE;
            awaitingReceive = false;
            return terminate(header, TerminateMessage.LAYER_DDP, TerminateMessage.DDP_UNTAGGED_BUFFER,
                TerminateMessage.DDP_NO_BUFFER, AsyncEvent.Type.QP_REQ_ERR);
        }
        final SelectionKey k = key; // null until the agent has registered the channel
        if (k != null && k.isValid()) { // a connection closing meanwhile has cancelled it
            k.interestOpsAnd(~SelectionKey.OP_READ);
        }
        agent.execute(() -> agent.armTimer(this));
        return FpduReader.PAUSE;
    }

    /** How long an incoming SEND waits for a receive: min_rnr_timer × (rnr_retry + 1); rnr_retry 7 = forever. */
    private long rnrWaitNanos() {
        if (rnrRetry >= 7) {
            return Long.MAX_VALUE;
        }
        return QueuePairAttributes.rnrTimerNanos(minRnrTimer) * (rnrRetry + 1);
    }

    volatile int rnrRetry = 7;
    volatile int minRnrTimer = 12;
    /** Local ACK timeout, IB encoding (4.096 µs × 2^timeout, 0 = wait forever); see {@link #transportTimeoutNanos}. */
    volatile int ackTimeout = DEFAULT_ACK_TIMEOUT;
    volatile int retryCount = 7;

    /**
     * Default local ACK timeout of a soft QP: 18, 1.07 s, so that with 7 retries a peer that stops answering fails
     * the work waiting on it after about 8.6 s (rdma_cm's default for RoCE is of that order; TCP itself would take
     * 15 minutes, tcp_retries2). {@code -Drdmablock.soft.ackTimeout=N} changes it; 0 waits forever.
     */
    static final int DEFAULT_ACK_TIMEOUT = Integer.getInteger("rdmablock.soft.ackTimeout", 18);
    /** The shortest transport timeout honoured: four sweeps, so that two heartbeats fit in it (see onSweep). */
    static final long MIN_TRANSPORT_TIMEOUT_NANOS = 4 * IoAgent.SWEEP_NANOS;
    /** Idle time after which TCP keepalive probes an idle connection, and their interval and count (60 s, 10 s, 6). */
    private static final int KEEPALIVE_IDLE_SECONDS = 60;
    private static final int KEEPALIVE_INTERVAL_SECONDS = 10;
    private static final int KEEPALIVE_COUNT = 6;

    /**
     * How long work may wait on a silent peer before it fails with RETRY_EXC_ERR: the IB transport's local ACK
     * timeout × (retry_cnt + 1), at least {@link #MIN_TRANSPORT_TIMEOUT_NANOS}; Long.MAX_VALUE when the timeout is 0.
     */
    long transportTimeoutNanos() {
        final int timeout = ackTimeout;
        if (timeout == 0) {
            return Long.MAX_VALUE;
        }
        final long ack = 4096L << Math.min(timeout, 31); // 4.096 µs × 2^timeout
        return Math.max(MIN_TRANSPORT_TIMEOUT_NANOS, ack * (retryCount + 1));
    }

    /**
     * The agent's liveness sweep (every {@link IoAgent#SWEEP_NANOS}). iWARP leaves a silent peer to TCP, which gives
     * up after about 15 minutes when data is unacknowledged and never when nothing is sent; InfiniBand fails the
     * oldest request with RETRY_EXC_ERR after timeout × (retry_cnt + 1) without an acknowledgement. The soft
     * provider does the latter: while work waits on the peer (posted and not retired, or a READ/atomic/probe
     * outstanding) and nothing at all has arrived for half the transport timeout, it sends a confirmation read even
     * for unsignaled work (any live peer answers it); when nothing has arrived for the whole timeout, the work fails
     * and the connection is dropped. A side whose reader is stalled waiting for a receive (RNR) is not reading its
     * peer's answers, so it sends zero-length WRITE heartbeats instead, and does not judge its peer meanwhile.
     */
    @Override
    public int onSweep(final long now) {
        if (closed || state == QueuePairState.ERR) {
            return 0;
        }
        final long moved = readsWithBytes + writer.bytesWritten(); // bytes in, or bytes the peer's TCP acknowledged
        if (moved != movedSeenBySweep) {
            movedSeenBySweep = moved;
            heardOrWaitingSince = now;
        }
        if (reader.isPaused()) {
            if (now - lastHeartbeat >= 2 * IoAgent.SWEEP_NANOS) {
                lastHeartbeat = now;
                heartbeatDue = true;
                drive();
            }
            waitingForPeer = false;
            return 0;
        }
        final boolean waiting = sq.head() < sq.tail() || !orq.isEmpty();
        if (!waiting) {
            waitingForPeer = false;
            return 0;
        }
        if (!waitingForPeer) {
            waitingForPeer = true;
            heardOrWaitingSince = now;
            return 0;
        }
        final long timeout = transportTimeoutNanos();
        final long silent = now - heardOrWaitingSince;
        if (timeout != Long.MAX_VALUE && silent >= timeout) {
            transportTimedOut(silent);
            return 1;
        }
        if (silent >= timeout / 2 && orq.isEmpty() && !probeDue) {
            probeDue = true;
            drive();
            return 1;
        }
        return 0;
    }

    /** The peer stayed silent for the transport timeout: the oldest waiting request fails, the rest flush. */
    private void transportTimedOut(final long silentNanos) {
        LOG.log(System.Logger.Level.DEBUG, "QP {0}: peer silent for {1} ms with work waiting: retries exceeded", qpn,
            TimeUnit.NANOSECONDS.toMillis(silentNanos));
        for (long seq = sq.head(); seq < sq.tail(); seq++) {
            final SendWqe wqe = sq.at(seq);
            if (wqe.state != SendWqe.DONE) {
                confirmUpTo(seq); // transmitted before it and confirmed meanwhile: those stay successes
                finish(wqe, WcStatus.RETRY_EXC_ERR.code());
                retire();
                break;
            }
        }
        terminatePending = false;
        endCause = DisconnectReason.TRANSPORT_TIMEOUT;
        enterError();
        abort(); // an unanswering peer gets no goodbye: the connection is reset and the disconnect raised
    }

    /**
     * Why the connection ended, where the QP saw it: TRANSPORT_TIMEOUT after the peer stayed silent, CONNECTION_LOST
     * after a socket error; null otherwise (an orderly close by the peer, or an end this side caused).
     */
    DisconnectReason endCause() {
        return endCause;
    }

    /** TCP keepalive on the connection: an idle connection to a vanished host is reset by the kernel in time. */
    private static void keepAlive(final SocketChannel connected) {
        try {
            connected.setOption(java.net.StandardSocketOptions.SO_KEEPALIVE, true);
            connected.setOption(jdk.net.ExtendedSocketOptions.TCP_KEEPIDLE, KEEPALIVE_IDLE_SECONDS);
            connected.setOption(jdk.net.ExtendedSocketOptions.TCP_KEEPINTERVAL, KEEPALIVE_INTERVAL_SECONDS);
            connected.setOption(jdk.net.ExtendedSocketOptions.TCP_KEEPCOUNT, KEEPALIVE_COUNT);
        } catch (final IOException | UnsupportedOperationException ignored) {
            // not every platform has the options: the transport timeout still covers connections with work
        }
    }

    @Override
    public long nextDeadline() {
        if (lingerDeadline != Long.MAX_VALUE) {
            return lingerDeadline;
        }
        return Math.min(rnrDeadline, handOffDeadline);
    }

    @Override
    public int onTimer(final long now) {
        if (lingerDeadline != Long.MAX_VALUE && now - lingerDeadline >= 0) {
            closeChannel();
            return 1;
        }
        int work = 0;
        if (reader.isPaused() && rnrDeadline != Long.MAX_VALUE && now - rnrDeadline >= 0) {
            resumeReading();
            work++;
        }
        if (handOffDeadline != Long.MAX_VALUE) {
            work += checkHandOff(now);
        }
        return work;
    }

    @Override
    void receivePosted() {
        final IoAgent a = agent;
        if (a != null && awaitingReceive) {
            a.execute(this::resumeReading);
        }
    }

    /** Agent thread: goes on with a stream paused for a receive. */
    private void resumeReading() {
        while (!rxOwner.compareAndSet(false, true)) {
            Thread.onSpinWait(); // a poller holds it only to see that the reader is paused
        }
        try {
            if (!reader.isPaused() || closed) {
                return;
            }
            reader.resume();
            if (!reader.isPaused() && key != null && key.isValid()) {
                if (handOffDeadline == Long.MAX_VALUE) {
                    key.interestOpsOr(SelectionKey.OP_READ);
                }
                read();
            }
        } finally {
            rxOwner.set(false);
        }
    }

    @Override
    public int onDataEnd() {
        switch (rxSegmentKind) {
            case SEGMENT_WRITE -> {
                rxWriteLength += rxSegmentLength;
                if (rxSegmentLast) {
                    rxInWrite = false;
                    rxLastWriteLength = rxWriteLength;
                }
            }
            case SEGMENT_READ_RESPONSE -> {
                orq.addPlaced(rxSegmentLength);
                if (rxSegmentLast) {
                    final int kind = orq.headKind();
                    final long seq = orq.headWqeSeq();
                    final long cover = orq.headCover();
                    orq.pop();
                    if (kind == OutstandingReads.READ) {
                        finish(sq.at(seq), 0);
                    }
                    confirmUpTo(cover);
                    retire();
                    drive(); // the ORQ has room again
                }
            }
            case SEGMENT_SEND -> {
                rxRecvPlaced += rxSegmentLength;
                if (rxSegmentLast) {
                    rxMsn[RdmapOpcode.QN_SEND]++;
                    rxRecvActive = false;
                    if (!rxUcDiscarding) {
                        return completeSend();
                    }
                    rxUcDiscarding = false;
                }
            }
            default -> {
            }
        }
        return FpduReader.ACCEPT;
    }

    private int completeSend() {
        final boolean solicited = RdmapOpcode.hasSolicitedEvent(rxSegmentOpcode);
        int flags = 0;
        int extra = 0;
        if (RdmapOpcode.hasInvalidate(rxSegmentOpcode)) {
            if (!(device.stags().lookup(rxSegmentReservedUlp) instanceof SoftMemoryWindow window)
                || window.pd() != pd || window.boundQp() != this) {
                completeReceive(rxRecv.wrId, WcStatus.REM_INV_REQ_ERR.code(), WcOpcode.RECV, 0, 0, 0, 0, true);
                return terminate(null, TerminateMessage.LAYER_RDMAP, TerminateMessage.RDMAP_REMOTE_OPERATION,
                    TerminateMessage.RDMAP_CANNOT_INVALIDATE, AsyncEvent.Type.QP_REQ_ERR);
            }
            window.invalidate();
            flags = WorkCompletions.FLAG_WITH_INV;
            extra = rxSegmentReservedUlp;
        } else if ((rxSegmentOpcodeFlags & FpduHeader.RDMAP_FLAG_IMMEDIATE) != 0) {
            flags = WorkCompletions.FLAG_WITH_IMM;
            extra = rxSegmentReservedUlp;
        }
        completeReceive(rxRecv.wrId, 0, WcOpcode.RECV, (int) rxRecvPlaced, extra, 0, flags, solicited);
        return FpduReader.ACCEPT;
    }

    private int rxSegmentOpcodeFlags;

    @Override
    public int onControl(final FpduHeader header, final ByteBuffer buffer) {
        firstFpduSeen();
        if (header.opcode() == RdmapOpcode.TERMINATE) {
            onTerminate(header, buffer);
            return FpduReader.FAIL;
        }
        if (state == QueuePairState.ERR) {
            return FpduReader.ACCEPT;
        }
        if (!versionsSupported(header)) {
            return FpduReader.FAIL;
        }
        final int opcode = header.opcode();
        final int queue = RdmapOpcode.queueOf(opcode);
        if (queue < 0 || header.queueNumber() != queue) {
            return queue < 0 ? unexpected(header) : terminate(header, TerminateMessage.LAYER_DDP,
                TerminateMessage.DDP_UNTAGGED_BUFFER, TerminateMessage.DDP_INVALID_QN, AsyncEvent.Type.QP_FATAL);
        }
        if (header.msn() != rxMsn[queue]) {
            return terminate(header, TerminateMessage.LAYER_DDP, TerminateMessage.DDP_UNTAGGED_BUFFER, TerminateMessage.DDP_INVALID_MSN, AsyncEvent.Type.QP_FATAL);
        }
        if (type == QueuePairType.UC && opcode != RdmapOpcode.IMMEDIATE_DATA && opcode != RdmapOpcode.IMMEDIATE_DATA_WITH_SE) {
            return unexpected(header);
        }
        final int verdict = switch (opcode) {
            case RdmapOpcode.READ_REQUEST -> onReadRequest(header, buffer);
            case RdmapOpcode.ATOMIC_REQUEST -> onAtomicRequest(header, buffer);
            case RdmapOpcode.ATOMIC_RESPONSE -> onAtomicResponse(header, buffer);
            case RdmapOpcode.IMMEDIATE_DATA, RdmapOpcode.IMMEDIATE_DATA_WITH_SE -> onImmediate(header, buffer);
            default -> unexpected(header);
        };
        if (verdict == FpduReader.ACCEPT) {
            rxMsn[queue]++;
        }
        return verdict;
    }

    private int onReadRequest(final FpduHeader header, final ByteBuffer buffer) {
        if (irq.isFull()) {
            return irdExceeded(header);
        }
        rxReadRequest.wrap(buffer, header.offset());
        final int size = rxReadRequest.size();
        SoftMemoryRegion source = null;
        long sourceOffset = 0;
        if (size != 0) {
            final int check = remoteAccess.check(rxReadRequest.sourceStag(), rxReadRequest.sourceOffset(), size & 0xFFFF_FFFFL, AccessFlags.REMOTE_READ);
            if (check != RemoteAccess.OK) {
                return remoteProtectionError(header, check);
            }
            source = remoteAccess.region();
            sourceOffset = remoteAccess.offset();
        }
        irq.pushRead(rxReadRequest.sinkStag(), rxReadRequest.sinkOffset(), source, sourceOffset, size & 0xFFFF_FFFFL);
        drive();
        return FpduReader.ACCEPT;
    }

    private int onAtomicRequest(final FpduHeader header, final ByteBuffer buffer) {
        if (irq.isFull()) {
            return irdExceeded(header);
        }
        rxAtomic.wrap(buffer, header.offset());
        final long to = rxAtomic.remoteOffset();
        int check = remoteAccess.check(rxAtomic.remoteStag(), to, 8, AccessFlags.REMOTE_ATOMIC);
        if (check == RemoteAccess.OK && (to & 7) != 0) {
            check = RemoteAccess.BOUNDS;
        }
        if (check != RemoteAccess.OK) {
            return remoteProtectionError(header, check);
        }
        final MemorySegment memory = remoteAccess.region().segment();
        final long resolvedOffset = remoteAccess.offset();
        final long original;
        if (rxAtomic.atomicOpcode() == AtomicMessage.COMPARE_SWAP) {
            original = (long) ATOMIC_LONG.compareAndExchange(memory, resolvedOffset, rxAtomic.compareData(), rxAtomic.addOrSwapData());
        } else if (rxAtomic.atomicOpcode() == AtomicMessage.FETCH_ADD) {
            original = (long) ATOMIC_LONG.getAndAdd(memory, resolvedOffset, rxAtomic.addOrSwapData());
        } else {
            return unexpected(header);
        }
        irq.pushAtomic(rxAtomic.requestId(), original);
        drive();
        return FpduReader.ACCEPT;
    }

    private int onAtomicResponse(final FpduHeader header, final ByteBuffer buffer) {
        rxAtomic.wrap(buffer, header.offset());
        if (orq.isEmpty() || orq.headKind() != OutstandingReads.ATOMIC || orq.headRequestId() != rxAtomic.responseRequestId()) {
            return unexpected(header);
        }
        final SendWqe wqe = sq.at(orq.headWqeSeq());
        final SoftMemoryRegion region = localAccess.region(wqe.lkeys[0], wqe.addresses[0], 8, true);
        final long cover = orq.headCover();
        orq.pop();
        if (region == null) {
            finish(wqe, WcStatus.LOC_PROT_ERR.code());
        } else {
            region.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, wqe.addresses[0] - region.address(), rxAtomic.responseValue());
            finish(wqe, 0);
        }
        confirmUpTo(cover);
        retire();
        if (region == null) {
            enterError();
            return FpduReader.FAIL;
        }
        drive();
        return FpduReader.ACCEPT;
    }

    /** RFC 7306 Immediate Data: completes a receive as RECV_RDMA_WITH_IMM for the RDMA WRITE before it. */
    private int onImmediate(final FpduHeader header, final ByteBuffer buffer) {
        final int verdict = takeReceiveOrWait(header);
        if (verdict != FpduReader.ACCEPT) {
            return verdict;
        }
        if (rxUcDiscarding) {
            rxUcDiscarding = false;
            rxRecvActive = false;
            return FpduReader.ACCEPT; // UC without a receive: dropped
        }
        rxRecvActive = false;
        rxAtomic.wrap(buffer, header.offset());
        completeReceive(rxRecv.wrId, 0, WcOpcode.RECV_RDMA_WITH_IMM, (int) rxLastWriteLength, rxAtomic.immediate(), 0,
            WorkCompletions.FLAG_WITH_IMM, header.opcode() == RdmapOpcode.IMMEDIATE_DATA_WITH_SE);
        return FpduReader.ACCEPT;
    }

    /** The peer has more READ/atomic requests in flight than the IRD it was granted. */
    private int irdExceeded(final FpduHeader header) {
        return terminate(header, TerminateMessage.LAYER_RDMAP, TerminateMessage.RDMAP_REMOTE_OPERATION,
            TerminateMessage.RDMAP_CATASTROPHIC_STREAM, AsyncEvent.Type.QP_REQ_ERR);
    }

    /** Terminates for a failed {@link RemoteAccess} check of a READ source or atomic target (RDMAP remote protection). */
    private int remoteProtectionError(final FpduHeader header, final int check) {
        return terminate(header, TerminateMessage.LAYER_RDMAP, TerminateMessage.RDMAP_REMOTE_PROTECTION,
            RemoteAccess.rdmapErrorCode(check), AsyncEvent.Type.QP_ACCESS_ERR);
    }

    @Override
    public void onStreamError(final int layer, final int errorType, final int errorCode, final String reason) {
        LOG.log(System.Logger.Level.DEBUG, "QP {0}: stream error: {1}", qpn, reason);
        terminate(null, layer, errorType, errorCode, AsyncEvent.Type.QP_FATAL);
    }

    // ============================================================================================== terminate

    /**
     * Sends a Terminate naming the message at {@code header} (null: a stream error with no message to name),
     * raises {@code event} and moves the QP to ERR. UC sends none: it only drops the stream.
     */
    private int terminate(final FpduHeader header, final int layer, final int errorType, final int errorCode, final AsyncEvent.Type event) {
        if (type == QueuePairType.UC) {
            fatal(event, "UC stream error " + layer + "/" + errorType + "/" + errorCode);
            return FpduReader.FAIL;
        }
        if (!terminatePending && state != QueuePairState.ERR) {
            final int attached = header == null ? 0 : header.headerLength() - Fpdu.LENGTH_SIZE
                + (header.opcode() == RdmapOpcode.READ_REQUEST && !header.isTagged() ? ReadRequest.HEADER_LENGTH : 0);
            terminateFpdu.build(layer, errorType, errorCode, header, attached, writer.crcEnabled());
            terminatePending = true;
        }
        fatal(event, "terminate " + layer + "/" + errorType + "/0x" + Integer.toHexString(errorCode));
        return FpduReader.FAIL;
    }

    /** A Terminate from the peer: completes the failing request with the mapped status and moves to ERR. */
    private void onTerminate(final FpduHeader header, final ByteBuffer buffer) {
        rxTerminate.wrap(buffer, header.offset());
        final int status = TerminateFpdu.completionStatus(rxTerminate.layer(), rxTerminate.errorType(), rxTerminate.errorCode());
        LOG.log(System.Logger.Level.DEBUG, "QP {0}: peer terminated {1}/{2}/0x{3}", qpn, rxTerminate.layer(),
            rxTerminate.errorType(), Integer.toHexString(rxTerminate.errorCode()));
        long failing = -1;
        if (rxTerminate.hasDdpHeader()) {
            failing = findTerminated(buffer, rxTerminate.terminatedFpduOffset());
        }
        final long end = txSeq;
        if (failing < 0) {
            failing = confirmedEnd < end ? confirmedEnd : -1;
            while (failing >= 0 && failing < end && sq.at(failing).state == SendWqe.DONE) {
                failing++;
            }
            if (failing >= end) {
                failing = -1;
            }
        }
        if (failing >= 0) {
            confirmUpTo(failing);
            finish(sq.at(failing), status);
            retire();
        }
        if (state != QueuePairState.ERR) {
            terminatePending = false;
            enterError();
        }
    }

    /** The send queue sequence of the message a Terminate's attached header describes, or -1. */
    private long findTerminated(final ByteBuffer buffer, final int fpduOffset) {
        terminatedHeader.wrap(buffer, fpduOffset);
        final boolean tagged = terminatedHeader.isTagged();
        for (long seq = confirmedEnd; seq < txSeq; seq++) {
            final SendWqe wqe = sq.at(seq);
            if (wqe.state == SendWqe.DONE) {
                continue;
            }
            if (tagged) {
                if ((wqe.opcode == SendOpcode.RDMA_WRITE || wqe.opcode == SendOpcode.RDMA_WRITE_WITH_IMM)
                    && wqe.rkey == terminatedHeader.stag()) {
                    final long to = terminatedHeader.taggedOffset();
                    if (to - wqe.remoteAddress >= 0 && to - wqe.remoteAddress <= wqe.totalLength) {
                        return seq;
                    }
                }
            } else if (wqe.queueNumber == terminatedHeader.queueNumber() && wqe.msn == terminatedHeader.msn()
                && wqe.state != SendWqe.POSTED) {
                return seq;
            }
        }
        return -1;
    }

    /** Everything before {@code end} that was transmitted has been processed by the peer: it completes. */
    private void confirmUpTo(final long end) {
        for (long seq = Math.max(confirmedEnd, sq.head()); seq < end; seq++) {
            final SendWqe wqe = sq.at(seq);
            if (wqe.state != SendWqe.DONE && !wqe.opcode.needsResponse()) {
                finish(wqe, 0);
            }
        }
        confirmedEnd = Math.max(confirmedEnd, end);
    }

    // =================================================================================================== close

    @Override
    void errorEntered() {
        if (channel != null) {
            drive();
        }
    }

    /** On ERR: after a pending Terminate, close our half and drain the peer's bytes until it closes (or a timeout). */
    private void finishOutput() throws IOException {
        if (terminatePending) {
            channel.write(terminateFpdu.buffer());
            if (terminateFpdu.buffer().hasRemaining()) {
                armWrite();
                return;
            }
            terminatePending = false;
        }
        if (!outputShut) {
            outputShut = true;
            try {
                channel.shutdownOutput();
            } catch (final IOException ignored) {
                // already gone
            }
            agent.execute(this::startLinger);
        }
    }

    private void startLinger() {
        if (closed) {
            return;
        }
        lingerDeadline = System.nanoTime() + LINGER_NANOS;
        agent.armTimer(this);
        if (key != null && key.isValid()) {
            key.interestOps(SelectionKey.OP_READ);
        }
        drainLinger();
    }

    private final ByteBuffer lingerBuffer = ByteBuffer.allocateDirect(4096);

    private int drainLinger() {
        try {
            int n;
            do {
                n = channel.read(lingerBuffer.clear());
            } while (n > 0);
            if (n < 0) {
                closeChannel();
            }
        } catch (final IOException e) {
            closeChannel();
        }
        return 1;
    }

    /** The peer closed or the socket failed. */
    private void connectionLost(final String reason) {
        LOG.log(System.Logger.Level.DEBUG, "QP {0}: connection lost: {1}", qpn, reason);
        terminatePending = false;
        enterError();
        agent.execute(this::closeChannel);
    }

    /**
     * Drops the connection at once, as the death of this process would: no Terminate, no lingering; the peer sees
     * the socket vanish. Used when the provider closes.
     */
    void abort() {
        if (channel != null && !closed) {
            try {
                channel.setOption(java.net.StandardSocketOptions.SO_LINGER, 0);
            } catch (final IOException | RuntimeException ignored) {
                // closing anyway
            }
            closeChannel();
        }
        enterError();
    }

    /** Disconnects (rdma_disconnect): the QP moves to ERR and the peer sees the connection close. */
    void disconnect() {
        enterError();
    }

    private void closeChannel() {
        if (closed) {
            return;
        }
        closed = true;
        lingerDeadline = Long.MAX_VALUE;
        agent.unwatch(this);
        if (recvReadiness != null) {
            recvCq.unwatch(recvReadiness);
        }
        if (sendReadiness != null) {
            sendCq.unwatch(sendReadiness);
        }
        try {
            channel.close();
        } catch (final IOException ignored) {
            // closing anyway
        }
        orq.clear();
        irq.clear();
        final Runnable callback = onClosed;
        if (callback != null) {
            callback.run();
        }
    }

    /** Transmit and receive progress, for diagnostics. */
    String describe() {
        final SelectionKey k = key;
        return "QP " + qpn + " " + state + " txSeq=" + txSeq + " sq=[" + sq.head() + "," + sq.tail() + ") wqeStarted=" + wqeStarted
            + " unconfirmedEnd=" + unconfirmedEnd + " coveredEnd=" + coveredEnd + " signaled=" + unconfirmedSignaled
            + " confirmedEnd=" + confirmedEnd + " orqEmpty=" + (orq == null || orq.isEmpty()) + " irqEmpty=" + (irq == null || irq.isEmpty())
            + " writerEmpty=" + (writer == null || writer.isEmpty()) + " blocked=" + (writer != null && writer.isBlocked())
            + " owner=" + txOwner.get() + " wanted=" + txWanted + " hold=" + holdTransmit
            + " interest=" + (k == null ? "none" : k.isValid() ? k.interestOps() : "invalid") + " paused=" + (reader != null && reader.isPaused());
    }

    @Override
    void resetTransport() {
        if (channel != null) {
            throw new VerbsException(VerbsException.EINVAL, "a connected soft QP cannot be reset; create a new one");
        }
    }

    @Override
    void closeTransport() {
        if (channel != null && !closed) {
            agent.execute(this::closeChannel);
        }
    }

    /** Applies connection parameters that an iWARP QP takes from the connection manager. */
    void connectionParameters(final int retryCount, final int rnrRetryCount) {
        this.retryCount = retryCount;
        this.rnrRetry = rnrRetryCount;
    }

    @Override
    public void modify(final QueuePairAttributes attributes) {
        if (attributes.has(QueuePairAttributes.RNR_RETRY)) {
            rnrRetry = attributes.rnrRetry();
        }
        if (attributes.has(QueuePairAttributes.TIMEOUT)) {
            ackTimeout = attributes.timeout();
        }
        if (attributes.has(QueuePairAttributes.RETRY_CNT)) {
            retryCount = attributes.retryCount();
        }
        if (attributes.has(QueuePairAttributes.MIN_RNR_TIMER)) {
            minRnrTimer = attributes.minRnrTimer();
        }
        super.modify(attributes);
    }
}

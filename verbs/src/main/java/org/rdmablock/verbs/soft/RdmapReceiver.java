package org.rdmablock.verbs.soft;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;

import org.rdmablock.verbs.AccessFlags;
import org.rdmablock.verbs.AsyncEvent;
import org.rdmablock.verbs.QueuePairAttributes;
import org.rdmablock.verbs.QueuePairState;
import org.rdmablock.verbs.QueuePairType;
import org.rdmablock.verbs.WcOpcode;
import org.rdmablock.verbs.WcStatus;
import org.rdmablock.verbs.WorkCompletions;
import org.rdmablock.verbs.soft.wire.AtomicMessage;
import org.rdmablock.verbs.soft.wire.FpduHeader;
import org.rdmablock.verbs.soft.wire.RdmapOpcode;
import org.rdmablock.verbs.soft.wire.ReadRequest;
import org.rdmablock.verbs.soft.wire.TerminateMessage;

/**
 * The receive side of a {@link SoftConnectedQueuePair}: what the {@link FpduReader} hands over from the peer's
 * stream. It checks every FPDU (DDP and RDMAP versions, queue numbers, MSNs, the QP's state) and, as the
 * responder, places RDMA WRITE and SEND payload directly into registered memory after checking STags, bounds,
 * rights and the QP's state ({@link RemoteAccess}), as a NIC does: RDMA WRITE and READ need no action from the
 * remote application. It executes atomics, queues READ and atomic responses for the {@link RdmapTransmitter} (the
 * IRQ), completes receives (SEND, SEND with invalidate or immediate, RFC 7306 Immediate Data) and makes an
 * incoming SEND wait for a receive as RNR does. The answers to this side's own requests (READ and atomic
 * responses, the peer's Terminate) go to {@link RequesterCompletion}. A violation sends a Terminate (RFC 5040 §4.8,
 * {@link ConnectionTeardown#terminate}) and moves the QP to ERR; UC drops bad messages silently, as UC does.
 *
 * <p><b>Threads.</b> Runs on whichever thread holds the receive ownership of the stream ({@link InboundStream}):
 * the QP's I/O agent, or a thread polling one of the QP's completion queues. The fields are that owner's only,
 * except {@link #awaitingReceive}, which a thread posting a receive reads.
 */
final class RdmapReceiver implements FpduReader.Handler {
    private static final VarHandle ATOMIC_LONG = ValueLayout.JAVA_LONG.varHandle();

    private static final int SEGMENT_NONE = 0;
    private static final int SEGMENT_WRITE = 1;
    private static final int SEGMENT_READ_RESPONSE = 2;
    private static final int SEGMENT_SEND = 3;

    private final SoftConnectedQueuePair qp;
    private final QueuePairType type;
    private final LocalAccess localAccess;
    private final int[] rxMsn = new int[RdmapOpcode.QUEUE_COUNT];
    private final ReceiveQueue.ReceiveWqe rxRecv;
    private boolean rxRecvActive;
    private long rxRecvPlaced;
    private int rxSegmentKind;
    private int rxSegmentLength;
    private boolean rxSegmentLast;
    private int rxSegmentOpcode;
    private int rxSegmentOpcodeFlags;
    private int rxSegmentReservedUlp;
    private boolean rxInWrite;
    private long rxWriteLength;
    private long rxLastWriteLength;
    private boolean rxUcDiscarding;
    private final RemoteAccess remoteAccess;
    private final ReadRequest rxReadRequest = new ReadRequest();
    private final AtomicMessage rxAtomic = new AtomicMessage();
    /** When a SEND waiting for a receive gives up (RNR retries exceeded); Long.MAX_VALUE: not waiting, or forever. */
    long rnrDeadline = Long.MAX_VALUE;
    /**
     * Set (before trying to take a receive) while the stream waits for one: a thread that posts a receive after
     * a failed take is then sure to see it and resume the stream (the two sides order through the receive
     * queue's lock and this volatile).
     */
    volatile boolean awaitingReceive;

    RdmapReceiver(final SoftConnectedQueuePair qp) {
        this.qp = qp;
        this.type = qp.type;
        this.localAccess = qp.localAccess;
        this.rxRecv = new ReceiveQueue.ReceiveWqe(qp.maxRecvSge());
        this.remoteAccess = new RemoteAccess(qp.device.stags(), qp.pd, qp);
        for (int q = 0; q < RdmapOpcode.QUEUE_COUNT; q++) {
            rxMsn[q] = 1;
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
        qp.transmitter.firstFpduSeen();
        if (qp.state == QueuePairState.ERR) {
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

    /** Terminates for an opcode this QP does not take here (RDMAP remote operation error). */
    int unexpected(final FpduHeader header) {
        return terminate(header, TerminateMessage.LAYER_RDMAP, TerminateMessage.RDMAP_REMOTE_OPERATION,
            TerminateMessage.RDMAP_UNEXPECTED_OPCODE, AsyncEvent.Type.QP_REQ_ERR);
    }

    private int writeHeader(final FpduHeader header, final int payloadLength, final Placement placement) {
        if (payloadLength == 0 && header.stag() == SoftConnectedQueuePair.CONTROL_STAG && header.isLast() && !rxInWrite) {
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
        return qp.completion.readResponseHeader(header, payloadLength, placement);
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
            qp.completeReceive(rxRecv.wrId, WcStatus.LOC_LEN_ERR.code(), WcOpcode.RECV, 0, 0, 0, 0, true);
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
                qp.completeReceive(rxRecv.wrId, WcStatus.LOC_PROT_ERR.code(), WcOpcode.RECV, 0, 0, 0, 0, true);
                rxRecvActive = false;
                return terminate(header, TerminateMessage.LAYER_DDP, TerminateMessage.DDP_LOCAL_CATASTROPHIC, 0, AsyncEvent.Type.QP_FATAL);
            }
            placement.add(region, rxRecv.addresses[i] - region.address(), length);
        }
        placement.seek(rxRecvPlaced);
        return FpduReader.ACCEPT;
    }

    /**
     * The QP entered ERR: the receive a SEND was being placed into completes with WR_FLUSH_ERR, as the queued ones
     * do. Taken off the queue, it would otherwise never complete (a CRC error or a silent peer in the middle of a
     * message), and a consumer that counts its posted receives would wait for it forever. The stream's holder
     * ({@link InboundStream#flushReceiveInProgress}).
     */
    void flushInProgress() {
        if (rxRecvActive && !rxUcDiscarding) {
            qp.completeReceive(rxRecv.wrId, WcStatus.WR_FLUSH_ERR.code(), WcOpcode.RECV, 0, 0, 0, 0, true);
        }
        rxRecvActive = false;
    }

    /** Takes a receive for a new untagged message; without one, waits as RNR does (RC) or drops (UC). */
    private int takeReceiveOrWait(final FpduHeader header) {
        awaitingReceive = true;
        if (qp.takeReceive(rxRecv)) {
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
        final SelectionKey key = qp.key; // null until the agent has registered the channel
        if (key != null && key.isValid()) { // a connection closing meanwhile has cancelled it
            key.interestOpsAnd(~SelectionKey.OP_READ);
        }
        final IoAgent agent = qp.agent;
        agent.execute(() -> agent.armTimer(qp));
        return FpduReader.PAUSE;
    }

    /** How long an incoming SEND waits for a receive: min_rnr_timer × (rnr_retry + 1); rnr_retry 7 = forever. */
    private long rnrWaitNanos() {
        final int rnrRetry = qp.rnrRetry;
        if (rnrRetry >= 7) {
            return Long.MAX_VALUE;
        }
        return QueuePairAttributes.rnrTimerNanos(qp.minRnrTimer) * (rnrRetry + 1);
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
            case SEGMENT_READ_RESPONSE -> qp.completion.readResponsePlaced(rxSegmentLength, rxSegmentLast);
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
            if (!(qp.device.stags().lookup(rxSegmentReservedUlp) instanceof SoftMemoryWindow window)
                || window.pd() != qp.pd || window.boundQp() != qp) {
                qp.completeReceive(rxRecv.wrId, WcStatus.REM_INV_REQ_ERR.code(), WcOpcode.RECV, 0, 0, 0, 0, true);
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
        qp.completeReceive(rxRecv.wrId, 0, WcOpcode.RECV, (int) rxRecvPlaced, extra, 0, flags, solicited);
        return FpduReader.ACCEPT;
    }

    @Override
    public int onControl(final FpduHeader header, final ByteBuffer buffer) {
        qp.transmitter.firstFpduSeen();
        if (header.opcode() == RdmapOpcode.TERMINATE) {
            qp.completion.onTerminate(header, buffer);
            return FpduReader.FAIL;
        }
        if (qp.state == QueuePairState.ERR) {
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
            case RdmapOpcode.ATOMIC_RESPONSE -> qp.completion.onAtomicResponse(header, buffer);
            case RdmapOpcode.IMMEDIATE_DATA, RdmapOpcode.IMMEDIATE_DATA_WITH_SE -> onImmediate(header, buffer);
            default -> unexpected(header);
        };
        if (verdict == FpduReader.ACCEPT) {
            rxMsn[queue]++;
        }
        return verdict;
    }

    private int onReadRequest(final FpduHeader header, final ByteBuffer buffer) {
        if (qp.irq.isFull()) {
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
        qp.irq.pushRead(rxReadRequest.sinkStag(), rxReadRequest.sinkOffset(), source, sourceOffset, size & 0xFFFF_FFFFL);
        qp.transmitter.drive();
        return FpduReader.ACCEPT;
    }

    private int onAtomicRequest(final FpduHeader header, final ByteBuffer buffer) {
        if (qp.irq.isFull()) {
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
        qp.irq.pushAtomic(rxAtomic.requestId(), original);
        qp.transmitter.drive();
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
        qp.completeReceive(rxRecv.wrId, 0, WcOpcode.RECV_RDMA_WITH_IMM, (int) rxLastWriteLength, rxAtomic.immediate(), 0,
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
        SoftConnectedQueuePair.LOG.log(System.Logger.Level.DEBUG, "QP {0}: stream error: {1}", qp.qpn, reason);
        terminate(null, layer, errorType, errorCode, AsyncEvent.Type.QP_FATAL);
    }

    private int terminate(final FpduHeader header, final int layer, final int errorType, final int errorCode, final AsyncEvent.Type event) {
        return qp.teardown.terminate(header, layer, errorType, errorCode, event);
    }
}

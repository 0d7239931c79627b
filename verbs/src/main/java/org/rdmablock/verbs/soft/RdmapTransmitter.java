package org.rdmablock.verbs.soft;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.util.concurrent.atomic.AtomicBoolean;

import org.rdmablock.verbs.AccessFlags;
import org.rdmablock.verbs.AsyncEvent;
import org.rdmablock.verbs.QueuePairState;
import org.rdmablock.verbs.QueuePairType;
import org.rdmablock.verbs.SendFlags;
import org.rdmablock.verbs.SendOpcode;
import org.rdmablock.verbs.WcStatus;
import org.rdmablock.verbs.soft.wire.AtomicMessage;
import org.rdmablock.verbs.soft.wire.FpduHeader;
import org.rdmablock.verbs.soft.wire.RdmapOpcode;
import org.rdmablock.verbs.soft.wire.ReadRequest;

/**
 * The transmit side of a {@link SoftConnectedQueuePair}: turns the send queue and the responses owed to the peer
 * into FPDUs (SEND, RDMA WRITE with its RFC 7306 Immediate Data, READ and atomic requests, READ and atomic
 * responses, the zero-length WRITE of the RTR and of heartbeats, confirmation reads) in the {@link FpduWriter} and
 * writes them without blocking. It owns the transmit sequence ({@code txSeq}), the outgoing MSNs and the
 * bookkeeping of what awaits the peer's confirmation ({@code unconfirmedEnd}, {@code coveredEnd}); it pushes the
 * READ/atomic/probe requests it issues onto the ORQ and pops the responses it finishes from the IRQ.
 *
 * <p><b>Threads.</b> Any thread that posts work, and the I/O agent when the socket becomes writable or a response
 * is owed, tries to become the transmit owner ({@link #drive()}); the owner builds FPDUs from the owed responses
 * and the send queue and writes them without blocking. A poster therefore usually writes its own message at once,
 * with no thread hand-off; what the socket does not take is finished by the agent when it becomes writable. Only
 * the owner writes the fields below that are not volatile (the receive side reads {@code txSeq} when the peer
 * terminates, and the diagnostics read them racily); the other threads leave a note ({@code txWanted},
 * {@code probeDue}, {@code heartbeatDue}) and the owner loops once more.
 */
final class RdmapTransmitter {
    /** Largest payload of one FPDU ({@link Configuration#MAX_SEGMENT_PROP_NAME}). */
    static final int MAX_SEGMENT = Configuration.maxSegment();

    private static final int BUILT = 1;
    private static final int NOTHING = 0;
    private static final int NO_ROOM = -1;

    private final SoftConnectedQueuePair qp;
    private final SendQueue sq;
    /**
     * Whether SENDs and WRITEs complete once the peer confirms them (RC by default: a later READ response, or a
     * zero-length READ of our own); else once TCP has their bytes (UC, and an RC QP made to complete on transmit).
     */
    private final boolean confirms;
    /** Staging and writing of FPDUs; set by {@link #connect}. */
    FpduWriter writer;

    /** Passive side of a peer-to-peer connection: nothing may be sent before the first FPDU arrives (RFC 5044 §7.1). */
    volatile boolean holdTransmit;
    private volatile boolean rtrPending;
    /** Set by the sweep: the next transmit builds a confirmation read even for unsignaled work (it proves the peer). */
    volatile boolean probeDue;
    /** Set by the sweep while this side's reader waits for a receive: the next transmit sends a heartbeat. */
    volatile boolean heartbeatDue;

    // ---- owned by the transmit owner ----
    final AtomicBoolean txOwner = new AtomicBoolean();
    volatile boolean txWanted;
    long txSeq;
    boolean wqeStarted;
    private final SendGather gather;
    private final FpduHeader txHeader = new FpduHeader();
    private final ReadRequest txReadRequest = new ReadRequest();
    private final AtomicMessage txAtomic = new AtomicMessage();
    private final int[] txMsn = new int[RdmapOpcode.QUEUE_COUNT];
    private boolean preferResponses;
    private boolean immediatePending;
    /** Send queue sequence of the last transmitted SEND/WRITE awaiting confirmation, +1; 0 when none. */
    long unconfirmedEnd;
    boolean unconfirmedSignaled;
    /** Highest {@code cover} of any ORQ entry issued. */
    long coveredEnd;
    /** Without confirmation: WQEs built whose bytes are not yet all written. */
    private long builtEnd;
    private long writtenEnd;

    RdmapTransmitter(final SoftConnectedQueuePair qp, final boolean completesOnTransmit) {
        this.qp = qp;
        this.sq = qp.sq;
        this.confirms = qp.type == QueuePairType.RC && !completesOnTransmit;
        this.gather = new SendGather(qp.localAccess, qp.caps.maxSendSge());
        for (int q = 0; q < RdmapOpcode.QUEUE_COUNT; q++) {
            txMsn[q] = 1;
        }
    }

    /**
     * Prepares for a connection being attached (before the QP reaches RTS).
     *
     * @param sendRtr        send a zero-length RDMA WRITE first (RFC 6581 RTR, active side of peer-to-peer)
     * @param awaitFirstFpdu hold transmission until the peer's first FPDU (passive side of peer-to-peer)
     */
    void connect(final boolean crc, final boolean sendRtr, final boolean awaitFirstFpdu) {
        this.writer = new FpduWriter(crc);
        this.holdTransmit = awaitFirstFpdu;
        this.rtrPending = sendRtr;
    }

    /** The peer's first FPDU arrived: a passive peer-to-peer side may transmit now. Receive owner. */
    void firstFpduSeen() {
        if (holdTransmit) {
            holdTransmit = false;
            drive();
        }
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
                qp.teardown.connectionLost(e.getMessage());
                return;
            } catch (final RuntimeException | InternalError e) {
                // InternalError: a fault copying from registered memory (a mapped file cut short under it); the QP
                // fails, not the posting thread
                SoftConnectedQueuePair.LOG.log(System.Logger.Level.ERROR, "QP " + qp.qpn + ": transmit failed", e);
                txOwner.set(false);
                qp.fatal(AsyncEvent.Type.QP_FATAL, "transmit failed: " + e);
                return;
            }
            txOwner.set(false);
        }
    }

    private void transmit() throws IOException {
        if (qp.channel == null || qp.teardown.closed) {
            return;
        }
        if (!writer.flush(qp.channel)) {
            armWrite();
            return;
        }
        if (qp.state == QueuePairState.ERR) {
            qp.teardown.finishOutput();
            return;
        }
        if (holdTransmit) {
            return;
        }
        completeWritten();
        while (qp.state != QueuePairState.ERR) {
            final int built = buildNext();
            if (built == NOTHING) {
                break;
            }
            if (built == NO_ROOM && writer.isEmpty()) {
                throw new IllegalStateException("an FPDU does not fit in an empty staging buffer");
            }
            if (built == NO_ROOM) {
                if (!writer.flush(qp.channel)) {
                    armWrite();
                    return;
                }
                completeWritten();
            }
        }
        if (!writer.flush(qp.channel)) {
            armWrite();
            return;
        }
        completeWritten();
        if (qp.state == QueuePairState.ERR) {
            qp.teardown.finishOutput();
        }
    }

    /**
     * Without confirmation: work requests whose bytes all went to TCP complete now; a READ or atomic completes on its
     * response, and the ones after it wait for it to retire (completions keep posting order).
     */
    private void completeWritten() {
        if (writer.isEmpty() && writtenEnd < builtEnd) {
            for (long seq = writtenEnd; seq < builtEnd; seq++) {
                final SendWqe wqe = sq.at(seq);
                if (wqe.state != SendWqe.DONE && !wqe.opcode.needsResponse()) {
                    qp.finish(wqe, 0);
                }
            }
            writtenEnd = builtEnd;
            qp.retire();
        }
    }

    /** The socket took less than was staged: the agent finishes when it becomes writable. */
    void armWrite() {
        final SelectionKey k = qp.key;
        if (k != null && k.isValid()) {
            k.interestOpsOr(SelectionKey.OP_WRITE);
            qp.agent.wakeup();
        } else if (k == null) {
            qp.agent.execute(this::drive);
        }
    }

    /** Builds the next FPDU: BUILT, NOTHING to send now, or NO_ROOM until the staging buffer is flushed. */
    private int buildNext() {
        if (rtrPending) {
            final int built = buildControlWrite();
            if (built == BUILT) {
                rtrPending = false;
            }
            return built;
        }
        final InboundRequests irq = qp.irq;
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
     * A zero-length RDMA WRITE to {@link SoftConnectedQueuePair#CONTROL_STAG}: the RFC 6581 RTR, and the heartbeat
     * of a side whose reader waits for a receive (see {@link PeerLiveness#onSweep}). Zero-length WRITEs are not
     * validated (RFC 5040 §6.4) and complete nothing at the peer.
     */
    private int buildControlWrite() {
        if (!writer.fits(FpduHeader.TAGGED_LENGTH, 0)) {
            return NO_ROOM;
        }
        txHeader.wrap(writer.begin(FpduHeader.TAGGED_LENGTH, 0), writer.fpduOffset())
            .control(RdmapOpcode.RDMA_WRITE, true, 0).tagged(SoftConnectedQueuePair.CONTROL_STAG, 0);
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
            final OutstandingReads orq = qp.orq;
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
        qp.finish(wqe, status.code());
        txSeq++;
        wqeStarted = false;
        qp.retire();
        qp.enterError();
    }

    /** BIND_MW and LOCAL_INV: executed in send queue order, with no wire traffic. */
    private void executeLocal(final SendWqe wqe) {
        final SoftProtectionDomain pd = qp.pd;
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
            window.bind(qp, region, wqe.bindAddress, wqe.bindLength, wqe.bindAccess);
        } else if (qp.device.stags().lookup(wqe.invalidateRkey) instanceof SoftMemoryWindow window && window.pd() == pd) {
            window.invalidate();
        } else {
            failLocal(wqe, WcStatus.MW_BIND_ERR);
            return;
        }
        if (unconfirmedEnd > coveredEnd) {
            unconfirmedSignaled |= wqe.signaled; // its completion waits for the unconfirmed requests before it
        }
        qp.finish(wqe, 0);
        txSeq++;
        qp.retire();
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
        if (!confirms) {
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
        final int sinkStag = wqe.sgeCount > 0 ? wqe.lkeys[0] : SoftConnectedQueuePair.CONTROL_STAG;
        final long sinkOffset = wqe.sgeCount > 0 ? wqe.addresses[0] : 0;
        txReadRequest.wrap(buffer, writer.fpduOffset()).set(sinkStag, sinkOffset, (int) wqe.totalLength, wqe.rkey, wqe.remoteAddress);
        writer.finish();
        qp.orq.push(OutstandingReads.READ, txSeq, txSeq + 1, sinkStag, sinkOffset, wqe.totalLength, 0);
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
        qp.orq.push(OutstandingReads.ATOMIC, txSeq, txSeq + 1, wqe.lkeys[0], wqe.addresses[0], 8, wqe.msn);
        coveredEnd = txSeq + 1;
        wqeStarted = false;
        txSeq++;
        return BUILT;
    }

    /**
     * A zero-length READ that confirms the SENDs and WRITEs before it, when signaled work waits on it (see
     * {@link RequesterCompletion} for why RC completions wait for the peer).
     */
    private int buildConfirmationIfNeeded() {
        if (!confirms || unconfirmedEnd <= coveredEnd || qp.orq.isFull()) {
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
        txReadRequest.wrap(buffer, writer.fpduOffset())
            .set(SoftConnectedQueuePair.CONTROL_STAG, 0, 0, SoftConnectedQueuePair.CONTROL_STAG, 0);
        writer.finish();
        qp.orq.push(OutstandingReads.PROBE, -1, unconfirmedEnd, SoftConnectedQueuePair.CONTROL_STAG, 0, 0, 0);
        coveredEnd = unconfirmedEnd;
        unconfirmedSignaled = false;
        probeDue = false;
        return BUILT;
    }

    /** One segment of the oldest response owed to the peer (this side as responder). */
    private int buildResponse() {
        final InboundRequests irq = qp.irq;
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
}

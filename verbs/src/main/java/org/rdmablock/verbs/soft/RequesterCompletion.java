package org.rdmablock.verbs.soft;

import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;

import org.rdmablock.verbs.AsyncEvent;
import org.rdmablock.verbs.QueuePairState;
import org.rdmablock.verbs.SendOpcode;
import org.rdmablock.verbs.WcStatus;
import org.rdmablock.verbs.soft.wire.AtomicMessage;
import org.rdmablock.verbs.soft.wire.FpduHeader;
import org.rdmablock.verbs.soft.wire.TerminateMessage;

/**
 * The requester's half of the receive side of a {@link SoftConnectedQueuePair}: the peer's answers to this side's
 * requests, and the completion of send queue work from them. It places READ responses into the requester's
 * scatter list, writes the original value of an atomic back, matches both against the ORQ that the
 * {@link RdmapTransmitter} filled, and maps the peer's Terminate onto the request that failed. It owns
 * {@code confirmedEnd}, the send queue sequence up to which the peer has processed everything.
 *
 * <h2>Completion semantics</h2>
 * iWARP completes a SEND or WRITE locally once TCP has taken it and reports remote errors only by Terminate. To
 * give the InfiniBand semantics that verbs users expect (a failed WRITE completes with REM_ACCESS_ERR), an RC QP
 * completes SEND and WRITE work requests only when the peer has processed them: a later RDMA READ or atomic
 * response proves that, and when none is pending the QP issues a zero-length RDMA READ of its own (a standard
 * iWARP way to confirm placement) once signaled work awaits confirmation. A Terminate names the failing message,
 * which completes with the matching status; those before it complete successfully, those after it flush.
 * UC completes at transmission and its responder drops bad messages silently, as UC does.
 *
 * <p><b>Threads.</b> The receive owner ({@link InboundStream}: the I/O agent or a thread polling the QP's
 * completion queues), and the agent's liveness sweep ({@link PeerLiveness}) when the transport times out.
 */
final class RequesterCompletion {
    private final SoftConnectedQueuePair qp;
    private final SendQueue sq;
    /** Everything before it that was transmitted has been processed by the peer. */
    long confirmedEnd;
    private final AtomicMessage rxAtomic = new AtomicMessage();
    private final TerminateMessage rxTerminate = new TerminateMessage();
    private final FpduHeader terminatedHeader = new FpduHeader();

    RequesterCompletion(final SoftConnectedQueuePair qp) {
        this.qp = qp;
        this.sq = qp.sq;
    }

    /** A READ response segment starts: checks it against the oldest outstanding request and sets its placement. */
    int readResponseHeader(final FpduHeader header, final int payloadLength, final Placement placement) {
        final OutstandingReads orq = qp.orq;
        if (orq.isEmpty() || orq.headKind() == OutstandingReads.ATOMIC || header.stag() != orq.headSinkStag()
            || header.taggedOffset() != orq.headSinkOffset() + orq.headPlaced()
            || orq.headPlaced() + payloadLength > orq.headLength() && orq.headKind() != OutstandingReads.PROBE) {
            return qp.teardown.terminate(header, TerminateMessage.LAYER_DDP, TerminateMessage.DDP_TAGGED_BUFFER,
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
            final SoftMemoryRegion region = qp.localAccess.region(wqe.lkeys[i], wqe.addresses[i], wqe.lengths[i] & 0xFFFF_FFFFL, true);
            if (region == null) {
                qp.finish(wqe, WcStatus.LOC_PROT_ERR.code());
                return qp.teardown.terminate(header, TerminateMessage.LAYER_DDP, TerminateMessage.DDP_LOCAL_CATASTROPHIC, 0, AsyncEvent.Type.QP_FATAL);
            }
            placement.add(region, wqe.addresses[i] - region.address(), wqe.lengths[i] & 0xFFFF_FFFFL);
        }
        placement.seek(orq.headPlaced());
        return FpduReader.ACCEPT;
    }

    /** A READ response segment of {@code length} bytes is placed; the last one completes its request. */
    void readResponsePlaced(final int length, final boolean last) {
        final OutstandingReads orq = qp.orq;
        orq.addPlaced(length);
        if (last) {
            final int kind = orq.headKind();
            final long seq = orq.headWqeSeq();
            final long cover = orq.headCover();
            orq.pop();
            if (kind == OutstandingReads.READ) {
                qp.finish(sq.at(seq), 0);
            }
            confirmUpTo(cover);
            qp.retire();
            qp.transmitter.drive(); // the ORQ has room again
        }
    }

    int onAtomicResponse(final FpduHeader header, final ByteBuffer buffer) {
        rxAtomic.wrap(buffer, header.offset());
        final OutstandingReads orq = qp.orq;
        if (orq.isEmpty() || orq.headKind() != OutstandingReads.ATOMIC || orq.headRequestId() != rxAtomic.responseRequestId()) {
            return qp.receiver.unexpected(header);
        }
        final SendWqe wqe = sq.at(orq.headWqeSeq());
        final SoftMemoryRegion region = qp.localAccess.region(wqe.lkeys[0], wqe.addresses[0], 8, true);
        final long cover = orq.headCover();
        orq.pop();
        if (region == null) {
            qp.finish(wqe, WcStatus.LOC_PROT_ERR.code());
        } else {
            region.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, wqe.addresses[0] - region.address(), rxAtomic.responseValue());
            qp.finish(wqe, 0);
        }
        confirmUpTo(cover);
        qp.retire();
        if (region == null) {
            qp.enterError();
            return FpduReader.FAIL;
        }
        qp.transmitter.drive();
        return FpduReader.ACCEPT;
    }

    /** A Terminate from the peer: completes the failing request with the mapped status and moves to ERR. */
    void onTerminate(final FpduHeader header, final ByteBuffer buffer) {
        rxTerminate.wrap(buffer, header.offset());
        final int status = TerminateFpdu.completionStatus(rxTerminate.layer(), rxTerminate.errorType(), rxTerminate.errorCode());
        SoftConnectedQueuePair.LOG.log(System.Logger.Level.DEBUG, "QP {0}: peer terminated {1}/{2}/0x{3}", qp.qpn, rxTerminate.layer(),
            rxTerminate.errorType(), Integer.toHexString(rxTerminate.errorCode()));
        long failing = -1;
        if (rxTerminate.hasDdpHeader()) {
            failing = findTerminated(buffer, rxTerminate.terminatedFpduOffset());
        }
        final long end = qp.transmitter.txSeq;
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
            qp.finish(sq.at(failing), status);
            qp.retire();
        }
        if (qp.state != QueuePairState.ERR) {
            qp.teardown.terminatePending = false;
            qp.enterError();
        }
    }

    /** The send queue sequence of the message a Terminate's attached header describes, or -1. */
    private long findTerminated(final ByteBuffer buffer, final int fpduOffset) {
        terminatedHeader.wrap(buffer, fpduOffset);
        final boolean tagged = terminatedHeader.isTagged();
        for (long seq = confirmedEnd; seq < qp.transmitter.txSeq; seq++) {
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
    void confirmUpTo(final long end) {
        for (long seq = Math.max(confirmedEnd, sq.head()); seq < end; seq++) {
            final SendWqe wqe = sq.at(seq);
            if (wqe.state != SendWqe.DONE && !wqe.opcode.needsResponse()) {
                qp.finish(wqe, 0);
            }
        }
        confirmedEnd = Math.max(confirmedEnd, end);
    }
}

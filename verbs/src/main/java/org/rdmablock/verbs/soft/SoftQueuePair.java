package org.rdmablock.verbs.soft;

import org.rdmablock.verbs.AccessFlags;
import org.rdmablock.verbs.AsyncEvent;
import org.rdmablock.verbs.PostFailedException;
import org.rdmablock.verbs.CompletionQueue;
import org.rdmablock.verbs.ProtectionDomain;
import org.rdmablock.verbs.QueuePair;
import org.rdmablock.verbs.QueuePairAttributes;
import org.rdmablock.verbs.QueuePairCapabilities;
import org.rdmablock.verbs.QueuePairInitAttributes;
import org.rdmablock.verbs.QueuePairState;
import org.rdmablock.verbs.QueuePairType;
import org.rdmablock.verbs.ReceiveWorkRequest;
import org.rdmablock.verbs.SendOpcode;
import org.rdmablock.verbs.SendWorkRequest;
import org.rdmablock.verbs.SharedReceiveQueue;
import org.rdmablock.verbs.VerbsException;
import org.rdmablock.verbs.WcOpcode;
import org.rdmablock.verbs.WcStatus;

/**
 * What every soft QP shares: posting and its validation, the state machine, completion in posting order, and
 * flushing on ERR. Subclasses move the messages: {@link SoftConnectedQueuePair} over TCP (iWARP),
 * {@link SoftDatagramQueuePair} over UDP.
 */
abstract sealed class SoftQueuePair implements QueuePair permits SoftConnectedQueuePair, SoftDatagramQueuePair {
    final SoftProtectionDomain pd;
    final SoftDevice device;
    final QueuePairType type;
    final int qpn;
    final QueuePairCapabilities caps;
    final SoftCompletionQueue sendCq;
    final SoftCompletionQueue recvCq;
    final SoftSharedReceiveQueue srq;
    final ReceiveQueue rq;
    final SendQueue sq;
    final LocalAccess localAccess;
    final boolean signalAll;
    private final Object retireLock = new Object();
    private final ReceiveQueue.ReceiveWqe flushScratch;
    volatile QueuePairState state = QueuePairState.RESET;
    /** Remote access this QP grants as responder ({@link AccessFlags} remote bits). */
    volatile int responderAccess = AccessFlags.REMOTE_READ | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_ATOMIC;
    volatile int qkey;
    private volatile boolean closed;

    SoftQueuePair(final SoftProtectionDomain pd, final QueuePairInitAttributes attributes) {
        this.pd = pd;
        this.device = pd.device();
        this.type = attributes.type();
        if (!(attributes.sendCq() instanceof SoftCompletionQueue scq) || !(attributes.receiveCq() instanceof SoftCompletionQueue rcq)) {
            throw new VerbsException(VerbsException.EINVAL, "completion queues of another provider");
        }
        if (attributes.srq() != null && !(attributes.srq() instanceof SoftSharedReceiveQueue)) {
            throw new VerbsException(VerbsException.EINVAL, "shared receive queue of another provider");
        }
        final QueuePairCapabilities asked = attributes.capabilities();
        if (asked.maxSendWr() <= 0 || asked.maxSendWr() > SoftDevice.MAX_QP_WR || asked.maxRecvWr() < 0
            || asked.maxRecvWr() > SoftDevice.MAX_QP_WR || asked.maxSendSge() <= 0 || asked.maxSendSge() > SoftDevice.MAX_SGE
            || asked.maxRecvSge() < 0 || asked.maxRecvSge() > SoftDevice.MAX_SGE || asked.maxInlineData() < 0
            || asked.maxInlineData() > SoftDevice.MAX_INLINE) {
            throw new VerbsException(VerbsException.EINVAL, "QP capabilities " + asked + " outside the soft device's limits");
        }
        this.caps = asked;
        this.sendCq = scq;
        this.recvCq = rcq;
        this.srq = (SoftSharedReceiveQueue) attributes.srq();
        this.rq = srq == null ? new ReceiveQueue(Math.max(1, asked.maxRecvWr()), Math.max(1, asked.maxRecvSge())) : null;
        this.sq = new SendQueue(asked.maxSendWr(), asked.maxSendSge(), asked.maxInlineData());
        this.localAccess = new LocalAccess(device.stags(), pd);
        this.signalAll = attributes.signalAll();
        this.flushScratch = new ReceiveQueue.ReceiveWqe(rq == null ? 1 : rq.maxSge());
        this.qpn = device.register(this);
        scq.attach(this);
        if (rcq != scq) {
            rcq.attach(this);
        }
        if (srq != null) {
            srq.attach(this);
        }
    }

    @Override
    public ProtectionDomain protectionDomain() {
        return pd;
    }

    @Override
    public int qpNum() {
        return qpn;
    }

    @Override
    public QueuePairType type() {
        return type;
    }

    @Override
    public QueuePairState state() {
        return state;
    }

    @Override
    public QueuePairCapabilities capabilities() {
        return caps;
    }

    @Override
    public CompletionQueue sendCompletionQueue() {
        return sendCq;
    }

    @Override
    public CompletionQueue receiveCompletionQueue() {
        return recvCq;
    }

    @Override
    public SharedReceiveQueue sharedReceiveQueue() {
        return srq;
    }

    // ---- posting ---------------------------------------------------------------------------------------------

    @Override
    public final void postSend(final SendWorkRequest first) {
        final QueuePairState current = state;
        if (!current.canPostSend()) {
            throw new PostFailedException(VerbsException.EINVAL, "cannot post a send in state " + current + " (needs RTS)", 0);
        }
        int count = 0;
        for (SendWorkRequest wr = first; wr != null; wr = wr.next()) {
            validate(wr); // the whole chain is checked before any of it is queued
            count++;
        }
        sq.post(first, count, signalAll, localAccess);
        if (state == QueuePairState.ERR) {
            flushSendQueue();
        } else {
            sendPosted();
        }
    }

    private void validate(final SendWorkRequest wr) {
        final SendOpcode opcode = wr.opcode();
        if (!type.supports(opcode)) {
            throw new PostFailedException(VerbsException.EINVAL, opcode + " is not supported on a " + type + " QP", 0);
        }
        if (wr.sgl().count() > caps.maxSendSge()) {
            throw new PostFailedException(VerbsException.EINVAL, "send work request has " + wr.sgl().count() + " SGEs, max " + caps.maxSendSge(), 0);
        }
        if ((wr.flags() & org.rdmablock.verbs.SendFlags.INLINE) != 0 && wr.sgl().totalLength() > caps.maxInlineData()) {
            throw new PostFailedException(VerbsException.EINVAL, "inline send of " + wr.sgl().totalLength() + " bytes exceeds max_inline_data " + caps.maxInlineData(), 0);
        }
        if (opcode.isAtomic() && (wr.sgl().count() != 1 || wr.sgl().length(0) != 8)) {
            throw new PostFailedException(VerbsException.EINVAL, "an atomic needs one 8-byte SGE for the original value", 0);
        }
        if (type == QueuePairType.UD && !(wr.addressHandle() instanceof SoftAddressHandle)) {
            throw new PostFailedException(VerbsException.EINVAL, "a UD send needs an address handle of this provider", 0);
        }
        if (opcode == SendOpcode.BIND_MW && (!(wr.memoryWindow() instanceof SoftMemoryWindow) || !(wr.bindRegion() instanceof SoftMemoryRegion))) {
            throw new PostFailedException(VerbsException.EINVAL, "BIND_MW needs a memory window and region of this provider", 0);
        }
    }

    @Override
    public final void postReceive(final ReceiveWorkRequest first) {
        if (srq != null) {
            throw new PostFailedException(VerbsException.EINVAL, "this QP receives through its shared receive queue", 0);
        }
        final QueuePairState current = state;
        if (!current.canPostReceive()) {
            throw new PostFailedException(VerbsException.EINVAL, "cannot post a receive in state " + current, 0);
        }
        rq.post(first);
        if (state == QueuePairState.ERR) {
            flushReceiveQueue();
        } else {
            receivePosted();
        }
    }

    /** New send work is queued: start moving it. */
    abstract void sendPosted();

    /** New receive work is queued (a responder waiting for a buffer may go on). */
    void receivePosted() {
    }

    /** Makes transport progress on the calling thread, if another thread is not already (see CQ polling). */
    void progress() {
    }

    /** A thread polling this QP's CQ is going to sleep on its completion channel (see {@link InboundStream#pollerSleeping}). */
    void pollerSleeping() {
    }

    // ---- state -----------------------------------------------------------------------------------------------

    @Override
    public void modify(final QueuePairAttributes attributes) {
        if (attributes.has(QueuePairAttributes.ACCESS_FLAGS)) {
            responderAccess = attributes.accessFlags();
        }
        if (attributes.has(QueuePairAttributes.QKEY)) {
            qkey = attributes.qkey();
        }
        if (!attributes.has(QueuePairAttributes.STATE)) {
            return;
        }
        final QueuePairState next = attributes.state();
        synchronized (this) {
            final QueuePairState current = state;
            if (!current.canMoveTo(next)) {
                throw new VerbsException(VerbsException.EINVAL, "QP " + qpn + ": no transition " + current + " -> " + next);
            }
            checkTransition(current, next, attributes);
            if (next == QueuePairState.ERR) {
                enterError();
                return;
            }
            if (next == QueuePairState.RESET) {
                state = QueuePairState.RESET;
                reset();
                return;
            }
            state = next;
        }
        transitioned(next);
    }

    /** Rejects transitions the transport cannot make (e.g. RTR of a connected QP outside the CM). */
    abstract void checkTransition(QueuePairState current, QueuePairState next, QueuePairAttributes attributes);

    /** Runs after a successful move to {@code next} (not ERR or RESET). */
    void transitioned(final QueuePairState next) {
    }

    /** Moves to {@code next} from inside the provider (connection manager), skipping the user-level checks. */
    final synchronized void moveTo(final QueuePairState next) {
        if (state != QueuePairState.ERR) {
            state = next;
        }
    }

    /** Moves the QP to ERR and flushes its work; idempotent. */
    final void enterError() {
        synchronized (this) {
            if (state == QueuePairState.ERR) {
                return;
            }
            state = QueuePairState.ERR;
        }
        errorEntered();
        flushSendQueue();
        flushReceiveQueue();
        if (srq != null) {
            pd.context().raise(AsyncEvent.ofQp(AsyncEvent.Type.QP_LAST_WQE_REACHED, this));
        }
    }

    /** Transport teardown on ERR (close the connection, flush work in progress on the agent). */
    abstract void errorEntered();

    /** An affiliated error: raises {@code event} for this QP and moves it to ERR. */
    final void fatal(final AsyncEvent.Type event, final String reason) {
        if (state != QueuePairState.ERR && !closed) {
            System.getLogger(SoftQueuePair.class.getName()).log(System.Logger.Level.DEBUG, "QP {0}: {1}", qpn, reason);
            pd.context().raise(AsyncEvent.ofQp(event, this));
            enterError();
        }
    }

    private void reset() {
        sq.clear();
        if (rq != null) {
            rq.clear();
        }
        resetTransport();
    }

    /** Forgets transport state on RESET. */
    abstract void resetTransport();

    // ---- completion ------------------------------------------------------------------------------------------

    /** Finishes a work request with {@code status}; it completes when all before it have. */
    final void finish(final SendWqe wqe, final int status) {
        wqe.status = status;
        wqe.state = SendWqe.DONE;
    }

    /** Completes finished work requests in posting order; signaled ones and errors produce completions. */
    final void retire() {
        synchronized (retireLock) {
            long h = sq.head();
            final long t = sq.tail();
            while (h < t) {
                final SendWqe wqe = sq.at(h);
                if (wqe.state != SendWqe.DONE) {
                    break;
                }
                final boolean report = wqe.signaled || wqe.status != 0;
                final long wrId = wqe.wrId;
                final int status = wqe.status;
                final int opcode = wqe.opcode.completionOpcode().code;
                final int byteLen = wqe.opcode.needsResponse() ? (int) wqe.totalLength : 0;
                // the slot is free before its completion is visible: a poller that sees it may post again at once
                sq.advanceHead(++h);
                if (report) {
                    sendCq.add(wrId, status, opcode, byteLen, 0, qpn, 0, 0, status != 0);
                }
            }
        }
    }

    /** Completes every unfinished send work request with WR_FLUSH_ERR. */
    final void flushSendQueue() {
        synchronized (retireLock) {
            for (long seq = sq.head(); seq < sq.tail(); seq++) {
                final SendWqe wqe = sq.at(seq);
                if (wqe.state != SendWqe.DONE) {
                    finish(wqe, WcStatus.WR_FLUSH_ERR.code());
                }
            }
        }
        retire();
    }

    /** Completes every posted receive with WR_FLUSH_ERR (a shared receive queue keeps its work). */
    final void flushReceiveQueue() {
        if (rq != null) {
            rq.drain(flushScratch, wqe -> completeReceive(wqe.wrId, WcStatus.WR_FLUSH_ERR.code(), WcOpcode.RECV, 0, 0, 0, 0, false));
        }
    }

    /** Adds a receive completion. */
    final void completeReceive(final long wrId, final int status, final WcOpcode opcode, final int byteLen,
                               final int immOrRkey, final int srcQp, final int flags, final boolean solicited) {
        recvCq.add(wrId, status, opcode.code, byteLen, immOrRkey, qpn, srcQp, flags, solicited || status != 0);
    }

    /** Takes the next receive work request from the private queue or the SRQ. */
    final boolean takeReceive(final ReceiveQueue.ReceiveWqe out) {
        return srq != null ? srq.take(out) : rq.take(out);
    }

    final int maxRecvSge() {
        return srq != null ? srq.queue().maxSge() : rq.maxSge();
    }

    // ---- teardown --------------------------------------------------------------------------------------------

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        synchronized (this) {
            state = QueuePairState.ERR;
        }
        closeTransport();
        device.unregister(qpn);
        sendCq.detach(this);
        recvCq.detach(this);
        if (srq != null) {
            srq.detach(this);
        }
        pd.released(this);
    }

    /** Releases sockets and agent registrations. */
    abstract void closeTransport();

    @Override
    public String toString() {
        return type + " QP " + qpn + " (" + state + ")";
    }
}

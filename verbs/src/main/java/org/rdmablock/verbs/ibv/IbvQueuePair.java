package org.rdmablock.verbs.ibv;

import static org.rdmablock.verbs.ibv.WorkRequestLayout.ATOMIC_COMPARE_ADD;
import static org.rdmablock.verbs.ibv.WorkRequestLayout.ATOMIC_REMOTE_ADDR;
import static org.rdmablock.verbs.ibv.WorkRequestLayout.ATOMIC_RKEY;
import static org.rdmablock.verbs.ibv.WorkRequestLayout.ATOMIC_SWAP;
import static org.rdmablock.verbs.ibv.WorkRequestLayout.BIND_ACCESS;
import static org.rdmablock.verbs.ibv.WorkRequestLayout.BIND_ADDR;
import static org.rdmablock.verbs.ibv.WorkRequestLayout.BIND_LENGTH;
import static org.rdmablock.verbs.ibv.WorkRequestLayout.BIND_MR;
import static org.rdmablock.verbs.ibv.WorkRequestLayout.BIND_MW;
import static org.rdmablock.verbs.ibv.WorkRequestLayout.BIND_RKEY;
import static org.rdmablock.verbs.ibv.WorkRequestLayout.RDMA_REMOTE_ADDR;
import static org.rdmablock.verbs.ibv.WorkRequestLayout.RDMA_RKEY;
import static org.rdmablock.verbs.ibv.WorkRequestLayout.SEND_FLAGS;
import static org.rdmablock.verbs.ibv.WorkRequestLayout.SEND_IMM_DATA;
import static org.rdmablock.verbs.ibv.WorkRequestLayout.SEND_NEXT;
import static org.rdmablock.verbs.ibv.WorkRequestLayout.SEND_NUM_SGE;
import static org.rdmablock.verbs.ibv.WorkRequestLayout.SEND_OPCODE;
import static org.rdmablock.verbs.ibv.WorkRequestLayout.SEND_SG_LIST;
import static org.rdmablock.verbs.ibv.WorkRequestLayout.SEND_WR_ID;
import static org.rdmablock.verbs.ibv.WorkRequestLayout.SEND_WR_SIZE;
import static org.rdmablock.verbs.ibv.WorkRequestLayout.CHAIN;
import static org.rdmablock.verbs.ibv.WorkRequestLayout.SGE_SIZE;
import static org.rdmablock.verbs.ibv.WorkRequestLayout.UD_AH;
import static org.rdmablock.verbs.ibv.WorkRequestLayout.UD_REMOTE_QKEY;
import static org.rdmablock.verbs.ibv.WorkRequestLayout.UD_REMOTE_QPN;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.ByteOrder;

import org.rdmablock.verbs.CompletionQueue;
import org.rdmablock.verbs.ProtectionDomain;
import org.rdmablock.verbs.PostFailedException;
import org.rdmablock.verbs.QueuePair;
import org.rdmablock.verbs.QueuePairAttributes;
import org.rdmablock.verbs.QueuePairCapabilities;
import org.rdmablock.verbs.QueuePairInitAttributes;
import org.rdmablock.verbs.QueuePairState;
import org.rdmablock.verbs.QueuePairType;
import org.rdmablock.verbs.ReceiveWorkRequest;
import org.rdmablock.verbs.ScatterGatherList;
import org.rdmablock.verbs.SendOpcode;
import org.rdmablock.verbs.SendWorkRequest;
import org.rdmablock.verbs.SharedReceiveQueue;
import org.rdmablock.verbs.VerbsException;
import org.rdmablock.verbs.ibv.bindings.Rdma;
import org.rdmablock.verbs.ibv.bindings.ibv_context;
import org.rdmablock.verbs.ibv.bindings.ibv_context_ops;
import org.rdmablock.verbs.ibv.bindings.ibv_qp;
import org.rdmablock.verbs.ibv.bindings.ibv_qp_attr;
import org.rdmablock.verbs.ibv.bindings.ibv_qp_cap;
import org.rdmablock.verbs.ibv.bindings.ibv_qp_init_attr;

/**
 * A queue pair ({@code struct ibv_qp}), made by ibv_create_qp or, for a connection, rdma_create_qp. Posting
 * copies the Java work requests into preallocated native {@code ibv_send_wr} entries and calls the provider's
 * post_send function pointer, cached at creation; nothing is allocated per post.
 */
final class IbvQueuePair implements QueuePair {
    private static final MethodHandle CREATE_QP = Native.withErrno(Rdma.ibv_create_qp$address(), Rdma.ibv_create_qp$descriptor());
    private static final MethodHandle RDMA_CREATE_QP = Native.withErrno(Rdma.rdma_create_qp$address(), Rdma.rdma_create_qp$descriptor());
    private static final boolean LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    private final IbvProtectionDomain pd;
    final MemorySegment qp;
    private final MemorySegment cmId;
    private final QueuePairType type;
    private final int qpn;
    private final QueuePairCapabilities caps;
    private final CompletionQueue sendCq;
    private final CompletionQueue receiveCq;
    private final IbvSharedReceiveQueue srq;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment postSend;
    private final ReceivePoster receivePoster;
    private final int maxSendSge;
    private final MemorySegment sendWrs;
    private final MemorySegment sendSges;
    private final MemorySegment badWr;
    private boolean closed;

    private IbvQueuePair(final IbvProtectionDomain pd, final MemorySegment qp, final MemorySegment cmId,
                         final QueuePairInitAttributes attributes, final QueuePairCapabilities caps) {
        this.pd = pd;
        this.qp = qp;
        this.cmId = cmId;
        this.type = attributes.type();
        this.qpn = ibv_qp.qp_num(qp);
        this.caps = caps;
        this.sendCq = attributes.sendCq();
        this.receiveCq = attributes.receiveCq();
        this.srq = (IbvSharedReceiveQueue) attributes.srq();
        final MemorySegment ops = ibv_context.ops(pd.ibvContext().context);
        this.postSend = ibv_context_ops.post_send(ops);
        this.receivePoster = srq == null
            ? new ReceivePoster(arena, qp, ibv_context_ops.post_recv(ops), false, caps.maxRecvSge()) : null;
        this.maxSendSge = Math.max(1, caps.maxSendSge());
        this.sendWrs = arena.allocate(SEND_WR_SIZE * CHAIN, 8);
        this.sendSges = arena.allocate(SGE_SIZE * CHAIN * maxSendSge, 8);
        this.badWr = arena.allocate(ValueLayout.ADDRESS);
    }

    /** Creates a QP; with {@code cmId}, through rdma_create_qp (which moves a connected QP to INIT). */
    static IbvQueuePair create(final IbvProtectionDomain pd, final QueuePairInitAttributes attributes, final MemorySegment cmId) {
        if (!(attributes.sendCq() instanceof IbvCompletionQueue send) || !(attributes.receiveCq() instanceof IbvCompletionQueue recv)) {
            throw new VerbsException(VerbsException.EINVAL, "completion queues of another provider");
        }
        if (attributes.srq() != null && !(attributes.srq() instanceof IbvSharedReceiveQueue)) {
            throw new VerbsException(VerbsException.EINVAL, "shared receive queue of another provider");
        }
        try (Arena scratch = Arena.ofConfined()) {
            final MemorySegment init = scratch.allocate(ibv_qp_init_attr.layout());
            ibv_qp_init_attr.send_cq(init, send.cq);
            ibv_qp_init_attr.recv_cq(init, recv.cq);
            if (attributes.srq() != null) {
                ibv_qp_init_attr.srq(init, ((IbvSharedReceiveQueue) attributes.srq()).srq);
            }
            final QueuePairCapabilities asked = attributes.capabilities();
            final MemorySegment cap = ibv_qp_init_attr.cap(init);
            ibv_qp_cap.max_send_wr(cap, asked.maxSendWr());
            ibv_qp_cap.max_recv_wr(cap, attributes.srq() != null ? 0 : asked.maxRecvWr());
            ibv_qp_cap.max_send_sge(cap, asked.maxSendSge());
            ibv_qp_cap.max_recv_sge(cap, attributes.srq() != null ? 0 : asked.maxRecvSge());
            ibv_qp_cap.max_inline_data(cap, asked.maxInlineData());
            ibv_qp_init_attr.qp_type(init, attributes.type().code);
            ibv_qp_init_attr.sq_sig_all(init, attributes.signalAll() ? 1 : 0);
            final MemorySegment qp;
            try {
                if (cmId != null) {
                    final int rc = (int) RDMA_CREATE_QP.invokeExact(Native.state(), cmId, pd.pd, init);
                    if (rc != 0) {
                        throw Native.failure("rdma_create_qp", Native.errno());
                    }
                    qp = org.rdmablock.verbs.ibv.bindings.rdma_cm_id.qp(cmId);
                } else {
                    qp = (MemorySegment) CREATE_QP.invokeExact(Native.state(), pd.pd, init);
                    if (qp.equals(MemorySegment.NULL)) {
                        throw Native.failure("ibv_create_qp(" + attributes.type() + ", " + asked + ")", Native.errno());
                    }
                }
            } catch (final VerbsException e) {
                throw e;
            } catch (final Throwable e) {
                throw new VerbsException(VerbsException.EIO, "create QP: " + e, e);
            }
            final QueuePairCapabilities granted = new QueuePairCapabilities(ibv_qp_cap.max_send_wr(cap),
                attributes.srq() != null ? asked.maxRecvWr() : ibv_qp_cap.max_recv_wr(cap), ibv_qp_cap.max_send_sge(cap),
                attributes.srq() != null ? asked.maxRecvSge() : ibv_qp_cap.max_recv_sge(cap), ibv_qp_cap.max_inline_data(cap));
            final IbvQueuePair created = new IbvQueuePair(pd, qp.reinterpret(ibv_qp.sizeof()), cmId, attributes, granted);
            pd.ibvContext().register(qp, created);
            return created;
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

    /** Queries the device (the QP may have moved to ERR on its own). */
    @Override
    public QueuePairState state() {
        try (Arena scratch = Arena.ofConfined()) {
            final MemorySegment attr = scratch.allocate(ibv_qp_attr.layout());
            final MemorySegment init = scratch.allocate(ibv_qp_init_attr.layout());
            IbvContext.check(Rdma.ibv_query_qp(qp, attr, QueuePairAttributes.STATE, init), "ibv_query_qp");
            return QueuePairState.of(ibv_qp_attr.qp_state(attr));
        }
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
        return receiveCq;
    }

    @Override
    public SharedReceiveQueue sharedReceiveQueue() {
        return srq;
    }

    /**
     * Copies the chain into the preallocated native requests, {@link WorkRequestLayout#CHAIN} at a time, and posts
     * each batch. Every request is checked before the first batch goes, so a malformed chain is refused whole; the
     * device may still refuse a request part way (a full queue): the exception then counts what was posted before
     * it, from the batches already posted and the device's {@code bad_wr}.
     */
    @Override
    public void postSend(final SendWorkRequest first) {
        for (SendWorkRequest wr = first; wr != null; wr = wr.next()) {
            if (wr.sgl().count() > maxSendSge) {
                throw new PostFailedException(VerbsException.EINVAL, "send work request has " + wr.sgl().count() + " SGEs, max " + maxSendSge, 0);
            }
        }
        synchronized (sendWrs) {
            SendWorkRequest wr = first;
            int posted = 0;
            while (wr != null) {
                int count = 0;
                for (; wr != null && count < CHAIN; wr = wr.next(), count++) {
                    fill(count, wr, wr.next() != null && count + 1 < CHAIN);
                }
                final int rc = ibv_context_ops.post_send.invoke(postSend, qp, sendWrs, badWr);
                if (rc != 0) {
                    throw new PostFailedException(rc, "ibv_post_send failed: " + Native.describe(rc)
                        + (rc == VerbsException.ENOMEM ? " (send queue full)" : ""), posted + refusedIndex(badWr, sendWrs, SEND_WR_SIZE, count));
                }
                posted += count;
            }
        }
    }

    /**
     * Index in the posted batch of the request the device refused ({@code *bad_wr}), i.e. how many of the batch it
     * took; the whole batch when the pointer names none of it.
     */
    static int refusedIndex(final MemorySegment badWr, final MemorySegment wrs, final long wrSize, final int count) {
        final long refused = badWr.get(ValueLayout.ADDRESS, 0).address() - wrs.address();
        return refused >= 0 && refused < wrSize * count && refused % wrSize == 0 ? (int) (refused / wrSize) : 0;
    }

    private void fill(final int index, final SendWorkRequest wr, final boolean linked) {
        final ScatterGatherList sgl = wr.sgl();
        final MemorySegment w = sendWrs;
        final long base = index * SEND_WR_SIZE;
        final long sgeBase = (long) index * maxSendSge * SGE_SIZE;
        final SendOpcode opcode = wr.opcode();
        w.set(ValueLayout.JAVA_LONG, base + SEND_WR_ID, wr.wrId());
        w.set(ValueLayout.JAVA_LONG, base + SEND_NEXT, linked ? w.address() + base + SEND_WR_SIZE : 0L);
        w.set(ValueLayout.JAVA_LONG, base + SEND_SG_LIST, sendSges.address() + sgeBase);
        w.set(ValueLayout.JAVA_INT, base + SEND_NUM_SGE, sgl.count());
        w.set(ValueLayout.JAVA_INT, base + SEND_OPCODE, opcode.code);
        w.set(ValueLayout.JAVA_INT, base + SEND_FLAGS, wr.flags());
        final int imm = opcode == SendOpcode.SEND_WITH_INV || opcode == SendOpcode.LOCAL_INV ? wr.invalidateRkey()
            : LITTLE_ENDIAN ? Integer.reverseBytes(wr.immediateData()) : wr.immediateData();
        w.set(ValueLayout.JAVA_INT, base + SEND_IMM_DATA, imm);
        switch (opcode) {
            case RDMA_WRITE, RDMA_WRITE_WITH_IMM, RDMA_READ -> {
                w.set(ValueLayout.JAVA_LONG, base + RDMA_REMOTE_ADDR, wr.remoteAddress());
                w.set(ValueLayout.JAVA_INT, base + RDMA_RKEY, wr.rkey());
            }
            case ATOMIC_CMP_AND_SWP, ATOMIC_FETCH_AND_ADD -> {
                w.set(ValueLayout.JAVA_LONG, base + ATOMIC_REMOTE_ADDR, wr.remoteAddress());
                w.set(ValueLayout.JAVA_LONG, base + ATOMIC_COMPARE_ADD, wr.compareAdd());
                w.set(ValueLayout.JAVA_LONG, base + ATOMIC_SWAP, wr.swap());
                w.set(ValueLayout.JAVA_INT, base + ATOMIC_RKEY, wr.rkey());
            }
            case BIND_MW -> {
                final IbvMemoryWindow window = (IbvMemoryWindow) wr.memoryWindow();
                w.set(ValueLayout.JAVA_LONG, base + BIND_MW, window.mw.address());
                w.set(ValueLayout.JAVA_INT, base + BIND_RKEY, window.bindPosted());
                w.set(ValueLayout.JAVA_LONG, base + BIND_MR, ((IbvMemoryRegion) wr.bindRegion()).mr.address());
                w.set(ValueLayout.JAVA_LONG, base + BIND_ADDR, wr.bindAddress());
                w.set(ValueLayout.JAVA_LONG, base + BIND_LENGTH, wr.bindLength());
                w.set(ValueLayout.JAVA_INT, base + BIND_ACCESS, wr.bindAccess());
            }
            default -> {
                if (type == QueuePairType.UD) {
                    if (!(wr.addressHandle() instanceof IbvAddressHandle ah)) {
                        throw new VerbsException(VerbsException.EINVAL, "a UD send needs an address handle of this provider");
                    }
                    w.set(ValueLayout.JAVA_LONG, base + UD_AH, ah.ah.address());
                    w.set(ValueLayout.JAVA_INT, base + UD_REMOTE_QPN, wr.remoteQpn());
                    w.set(ValueLayout.JAVA_INT, base + UD_REMOTE_QKEY, wr.remoteQkey());
                }
            }
        }
        WorkRequestLayout.writeSges(sendSges, sgeBase, sgl);
    }

    @Override
    public void postReceive(final ReceiveWorkRequest wr) {
        if (receivePoster == null) {
            throw new VerbsException(VerbsException.EINVAL, "this QP receives through its shared receive queue");
        }
        receivePoster.post(wr);
    }

    @Override
    public void modify(final QueuePairAttributes attributes) {
        try (Arena scratch = Arena.ofConfined()) {
            final MemorySegment attr = scratch.allocate(ibv_qp_attr.layout());
            if (attributes.has(QueuePairAttributes.STATE)) {
                ibv_qp_attr.qp_state(attr, attributes.state().code());
            }
            ibv_qp_attr.qkey(attr, attributes.qkey());
            ibv_qp_attr.pkey_index(attr, (short) attributes.pkeyIndex());
            ibv_qp_attr.port_num(attr, (byte) attributes.portNum());
            ibv_qp_attr.qp_access_flags(attr, attributes.accessFlags());
            ibv_qp_attr.path_mtu(attr, attributes.pathMtu());
            ibv_qp_attr.dest_qp_num(attr, attributes.destQpNum());
            ibv_qp_attr.rq_psn(attr, attributes.rqPsn());
            ibv_qp_attr.sq_psn(attr, attributes.sqPsn());
            ibv_qp_attr.max_rd_atomic(attr, (byte) attributes.maxReadAtomic());
            ibv_qp_attr.max_dest_rd_atomic(attr, (byte) attributes.maxDestReadAtomic());
            ibv_qp_attr.min_rnr_timer(attr, (byte) attributes.minRnrTimer());
            ibv_qp_attr.timeout(attr, (byte) attributes.timeout());
            ibv_qp_attr.retry_cnt(attr, (byte) attributes.retryCount());
            ibv_qp_attr.rnr_retry(attr, (byte) attributes.rnrRetry());
            if (attributes.has(QueuePairAttributes.AV)) {
                IbvProtectionDomain.fillAddressVector(ibv_qp_attr.ah_attr(attr), attributes.addressVector());
            }
            final int rc = Rdma.ibv_modify_qp(qp, attr, attributes.mask());
            if (rc != 0) {
                throw new VerbsException(rc, "ibv_modify_qp(mask 0x" + Integer.toHexString(attributes.mask())
                    + (attributes.has(QueuePairAttributes.STATE) ? ", to " + attributes.state() : "") + ") failed: " + Native.describe(rc));
            }
        }
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        pd.ibvContext().unregister(qp);
        if (cmId != null) {
            Rdma.rdma_destroy_qp(cmId);
        } else {
            IbvContext.check(Rdma.ibv_destroy_qp(qp), "ibv_destroy_qp");
        }
        pd.released(this);
        arena.close();
    }
}

package org.rdmablock.verbs.ibv;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import org.rdmablock.verbs.ScatterGatherList;
import org.rdmablock.verbs.ibv.bindings.ibv_mw_bind_info;
import org.rdmablock.verbs.ibv.bindings.ibv_recv_wr;
import org.rdmablock.verbs.ibv.bindings.ibv_send_wr;
import org.rdmablock.verbs.ibv.bindings.ibv_sge;

/**
 * Absolute field offsets of {@code struct ibv_send_wr}, {@code ibv_recv_wr} and {@code ibv_sge}, nested unions
 * flattened, taken from the generated layouts once: the post paths write fields with plain offset stores instead
 * of slicing the unions (a slice is an allocation).
 */
final class WorkRequestLayout {
    static final long SEND_WR_SIZE = ibv_send_wr.sizeof();
    static final long SEND_WR_ID = ibv_send_wr.wr_id$offset();
    static final long SEND_NEXT = ibv_send_wr.next$offset();
    static final long SEND_SG_LIST = ibv_send_wr.sg_list$offset();
    static final long SEND_NUM_SGE = ibv_send_wr.num_sge$offset();
    static final long SEND_OPCODE = ibv_send_wr.opcode$offset();
    static final long SEND_FLAGS = ibv_send_wr.send_flags$offset();
    /** imm_data (big-endian) and invalidate_rkey share this offset. */
    static final long SEND_IMM_DATA = ibv_send_wr.imm_data$offset();
    static final long RDMA_REMOTE_ADDR = ibv_send_wr.wr$offset() + ibv_send_wr.wr.rdma$offset() + ibv_send_wr.wr.rdma.remote_addr$offset();
    static final long RDMA_RKEY = ibv_send_wr.wr$offset() + ibv_send_wr.wr.rdma$offset() + ibv_send_wr.wr.rdma.rkey$offset();
    static final long ATOMIC_REMOTE_ADDR = ibv_send_wr.wr$offset() + ibv_send_wr.wr.atomic$offset() + ibv_send_wr.wr.atomic.remote_addr$offset();
    static final long ATOMIC_COMPARE_ADD = ibv_send_wr.wr$offset() + ibv_send_wr.wr.atomic$offset() + ibv_send_wr.wr.atomic.compare_add$offset();
    static final long ATOMIC_SWAP = ibv_send_wr.wr$offset() + ibv_send_wr.wr.atomic$offset() + ibv_send_wr.wr.atomic.swap$offset();
    static final long ATOMIC_RKEY = ibv_send_wr.wr$offset() + ibv_send_wr.wr.atomic$offset() + ibv_send_wr.wr.atomic.rkey$offset();
    static final long UD_AH = ibv_send_wr.wr$offset() + ibv_send_wr.wr.ud$offset() + ibv_send_wr.wr.ud.ah$offset();
    static final long UD_REMOTE_QPN = ibv_send_wr.wr$offset() + ibv_send_wr.wr.ud$offset() + ibv_send_wr.wr.ud.remote_qpn$offset();
    static final long UD_REMOTE_QKEY = ibv_send_wr.wr$offset() + ibv_send_wr.wr.ud$offset() + ibv_send_wr.wr.ud.remote_qkey$offset();
    static final long BIND_MW = ibv_send_wr.bind_mw$offset() + ibv_send_wr.bind_mw.mw$offset();
    static final long BIND_RKEY = ibv_send_wr.bind_mw$offset() + ibv_send_wr.bind_mw.rkey$offset();
    static final long BIND_INFO = ibv_send_wr.bind_mw$offset() + ibv_send_wr.bind_mw.bind_info$offset();
    static final long BIND_MR = BIND_INFO + ibv_mw_bind_info.mr$offset();
    static final long BIND_ADDR = BIND_INFO + ibv_mw_bind_info.addr$offset();
    static final long BIND_LENGTH = BIND_INFO + ibv_mw_bind_info.length$offset();
    static final long BIND_ACCESS = BIND_INFO + ibv_mw_bind_info.mw_access_flags$offset();

    static final long RECV_WR_SIZE = ibv_recv_wr.sizeof();
    static final long RECV_WR_ID = ibv_recv_wr.wr_id$offset();
    static final long RECV_NEXT = ibv_recv_wr.next$offset();
    static final long RECV_SG_LIST = ibv_recv_wr.sg_list$offset();
    static final long RECV_NUM_SGE = ibv_recv_wr.num_sge$offset();

    static final long SGE_SIZE = ibv_sge.sizeof();
    static final long SGE_ADDR = ibv_sge.addr$offset();
    static final long SGE_LENGTH = ibv_sge.length$offset();
    static final long SGE_LKEY = ibv_sge.lkey$offset();

    /** Work requests per native post call (the preallocated entries); longer chains go out in several calls. */
    static final int CHAIN = 32;

    private WorkRequestLayout() {
    }

    /** Writes {@code sgl} as {@code struct ibv_sge} entries into {@code sges} from {@code sgeBase}. */
    static void writeSges(final MemorySegment sges, final long sgeBase, final ScatterGatherList sgl) {
        for (int i = 0; i < sgl.count(); i++) {
            final long s = sgeBase + i * SGE_SIZE;
            sges.set(ValueLayout.JAVA_LONG, s + SGE_ADDR, sgl.address(i));
            sges.set(ValueLayout.JAVA_INT, s + SGE_LENGTH, sgl.length(i));
            sges.set(ValueLayout.JAVA_INT, s + SGE_LKEY, sgl.lkey(i));
        }
    }
}

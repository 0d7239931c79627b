package org.rdmablock.protocol.srp;

import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every field offset and IU size of the codecs against the structs of Linux {@code include/scsi/srp.h}
 * (declarations transcribed below and laid out by {@link CStructLayout}), and every encoder against a
 * byte image built independently from that layout, then decoded back.
 */
class SrpLayoutTest {
    private static final long TAG = 0x1122_3344_5566_7788L;
    private static final byte[] INITIATOR_ID = range(0x10, 16);
    private static final byte[] TARGET_ID = range(0x80, 16);

    // Transcribed from include/scsi/srp.h.
    static final CStructLayout SRP_DIRECT_BUF = CStructLayout.of("__be64 va", "__be32 key", "__be32 len");
    static final CStructLayout SRP_INDIRECT_BUF = CStructLayout.packed(
            "struct srp_direct_buf table_desc", "__be32 len", "struct srp_direct_buf desc_list[0]");
    static final CStructLayout SRP_IMM_BUF = CStructLayout.of("__be32 len");
    static final CStructLayout SRP_LOGIN_REQ = CStructLayout.of(
            "u8 opcode", "u8 reserved1[7]", "u64 tag", "__be32 req_it_iu_len", "u8 reserved2[4]",
            "__be16 req_buf_fmt", "u8 req_flags", "u8 reserved3[1]", "__be16 imm_data_offset", "u8 reserved4[2]",
            "u8 initiator_port_id[16]", "u8 target_port_id[16]");
    static final CStructLayout SRP_LOGIN_REQ_RDMA = CStructLayout.of(
            "u64 tag", "__be16 req_buf_fmt", "u8 req_flags", "u8 opcode", "__be32 req_it_iu_len",
            "u8 initiator_port_id[16]", "u8 target_port_id[16]", "__be16 imm_data_offset", "u8 reserved[6]");
    static final CStructLayout SRP_LOGIN_RSP = CStructLayout.packed(
            "u8 opcode", "u8 reserved1[3]", "__be32 req_lim_delta", "u64 tag", "__be32 max_it_iu_len",
            "__be32 max_ti_iu_len", "__be16 buf_fmt", "u8 rsp_flags", "u8 reserved2[25]");
    static final CStructLayout SRP_LOGIN_REJ = CStructLayout.of(
            "u8 opcode", "u8 reserved1[3]", "__be32 reason", "u64 tag", "u8 reserved2[8]", "__be16 buf_fmt",
            "u8 reserved3[6]");
    static final CStructLayout SRP_I_LOGOUT = CStructLayout.of("u8 opcode", "u8 reserved[7]", "u64 tag");
    static final CStructLayout SRP_T_LOGOUT = CStructLayout.of(
            "u8 opcode", "u8 sol_not", "u8 reserved[2]", "__be32 reason", "u64 tag");
    static final CStructLayout SRP_TSK_MGMT = CStructLayout.of(
            "u8 opcode", "u8 sol_not", "u8 reserved1[6]", "u64 tag", "u8 reserved2[4]", "struct scsi_lun lun",
            "u8 reserved3[2]", "u8 tsk_mgmt_func", "u8 reserved4", "u64 task_tag", "u8 reserved5[8]");
    static final CStructLayout SRP_CMD = CStructLayout.of(
            "u8 opcode", "u8 sol_not", "u8 reserved1[3]", "u8 buf_fmt", "u8 data_out_desc_cnt",
            "u8 data_in_desc_cnt", "u64 tag", "u8 reserved2[4]", "struct scsi_lun lun", "u8 reserved3",
            "u8 task_attr", "u8 reserved4", "u8 add_cdb_len", "u8 cdb[16]", "u8 add_data[0]");
    static final CStructLayout SRP_RSP = CStructLayout.packed(
            "u8 opcode", "u8 sol_not", "u8 reserved1[2]", "__be32 req_lim_delta", "u64 tag", "u8 reserved2[2]",
            "u8 flags", "u8 status", "__be32 data_out_res_cnt", "__be32 data_in_res_cnt", "__be32 sense_data_len",
            "__be32 resp_data_len", "u8 data[0]");
    static final CStructLayout SRP_CRED_REQ = CStructLayout.of(
            "u8 opcode", "u8 sol_not", "u8 reserved[2]", "__be32 req_lim_delta", "u64 tag");
    static final CStructLayout SRP_CRED_RSP = CStructLayout.of("u8 opcode", "u8 reserved[7]", "u64 tag");
    static final CStructLayout SRP_AER_REQ = CStructLayout.packed(
            "u8 opcode", "u8 sol_not", "u8 reserved[2]", "__be32 req_lim_delta", "u64 tag", "u32 reserved2",
            "struct scsi_lun lun", "__be32 sense_data_len", "u32 reserved3", "u8 sense_data[0]");
    static final CStructLayout SRP_AER_RSP = CStructLayout.of("u8 opcode", "u8 reserved[7]", "u64 tag");

    @Test
    void sizesMatchTheHeader() {
        assertEquals(16, SRP_DIRECT_BUF.size());
        assertEquals(SRP_DIRECT_BUF.size(), SrpDirectBuffer.LENGTH);
        assertEquals(20, SRP_INDIRECT_BUF.size());
        assertEquals(SRP_INDIRECT_BUF.size(), SrpIndirectBuffer.HEADER_LENGTH);
        assertEquals(SRP_IMM_BUF.size(), SrpCommand.IMMEDIATE_DESCRIPTOR_LENGTH);
        assertEquals(64, SrpLoginRequest.LENGTH);
        assertEquals(SRP_LOGIN_REQ.size(), SrpLoginRequest.LENGTH);
        assertEquals(56, SrpLoginRequestRdmaCm.LENGTH);
        assertEquals(SRP_LOGIN_REQ_RDMA.size(), SrpLoginRequestRdmaCm.LENGTH);
        assertEquals(52, SrpLoginResponse.LENGTH);
        assertEquals(SRP_LOGIN_RSP.size(), SrpLoginResponse.LENGTH);
        assertEquals(SRP_LOGIN_REJ.size(), SrpLoginReject.LENGTH);
        assertEquals(SRP_I_LOGOUT.size(), SrpInitiatorLogout.LENGTH);
        assertEquals(SRP_T_LOGOUT.size(), SrpTargetLogout.LENGTH);
        assertEquals(SRP_TSK_MGMT.size(), SrpTaskManagement.LENGTH);
        assertEquals(48, SRP_CMD.size());
        assertEquals(SRP_CMD.size(), SrpCommand.FIXED_LENGTH);
        assertEquals(36, SRP_RSP.size());
        assertEquals(SRP_RSP.size(), SrpResponse.FIXED_LENGTH);
        assertEquals(SRP_CRED_REQ.size(), SrpCreditRequest.LENGTH);
        assertEquals(SRP_CRED_RSP.size(), SrpCreditResponse.LENGTH);
        assertEquals(36, SRP_AER_REQ.size());
        assertEquals(SRP_AER_REQ.size(), SrpAerRequest.FIXED_LENGTH);
        assertEquals(SRP_AER_RSP.size(), SrpAerResponse.LENGTH);
    }

    @Test
    void offsetsMatchTheHeader() {
        assertEquals(SRP_LOGIN_REQ.offsetOf("opcode"), SrpInformationUnit.OPCODE_OFFSET);
        assertEquals(SRP_LOGIN_REQ.offsetOf("tag"), SrpInformationUnit.TAG_OFFSET);
        assertEquals(SRP_DIRECT_BUF.offsetOf("va"), SrpDirectBuffer.VA_OFFSET);
        assertEquals(SRP_DIRECT_BUF.offsetOf("key"), SrpDirectBuffer.KEY_OFFSET);
        assertEquals(SRP_DIRECT_BUF.offsetOf("len"), SrpDirectBuffer.LEN_OFFSET);
        assertEquals(SRP_INDIRECT_BUF.offsetOf("table_desc"), SrpIndirectBuffer.TABLE_DESC_OFFSET);
        assertEquals(SRP_INDIRECT_BUF.offsetOf("len"), SrpIndirectBuffer.TOTAL_LEN_OFFSET);
        assertEquals(SRP_INDIRECT_BUF.offsetOf("desc_list"), SrpIndirectBuffer.DESC_LIST_OFFSET);

        assertEquals(SRP_LOGIN_REQ.offsetOf("req_it_iu_len"), SrpLoginRequest.REQ_IT_IU_LEN_OFFSET);
        assertEquals(SRP_LOGIN_REQ.offsetOf("req_buf_fmt"), SrpLoginRequest.REQ_BUF_FMT_OFFSET);
        assertEquals(SRP_LOGIN_REQ.offsetOf("req_flags"), SrpLoginRequest.REQ_FLAGS_OFFSET);
        assertEquals(SRP_LOGIN_REQ.offsetOf("imm_data_offset"), SrpLoginRequest.IMM_DATA_OFFSET_OFFSET);
        assertEquals(SRP_LOGIN_REQ.offsetOf("initiator_port_id"), SrpLoginRequest.INITIATOR_PORT_ID_OFFSET);
        assertEquals(SRP_LOGIN_REQ.offsetOf("target_port_id"), SrpLoginRequest.TARGET_PORT_ID_OFFSET);

        assertEquals(SRP_LOGIN_REQ_RDMA.offsetOf("tag"), SrpLoginRequestRdmaCm.RDMA_TAG_OFFSET);
        assertEquals(SRP_LOGIN_REQ_RDMA.offsetOf("req_buf_fmt"), SrpLoginRequestRdmaCm.REQ_BUF_FMT_OFFSET);
        assertEquals(SRP_LOGIN_REQ_RDMA.offsetOf("req_flags"), SrpLoginRequestRdmaCm.REQ_FLAGS_OFFSET);
        assertEquals(SRP_LOGIN_REQ_RDMA.offsetOf("opcode"), SrpLoginRequestRdmaCm.RDMA_OPCODE_OFFSET);
        assertEquals(SRP_LOGIN_REQ_RDMA.offsetOf("req_it_iu_len"), SrpLoginRequestRdmaCm.REQ_IT_IU_LEN_OFFSET);
        assertEquals(SRP_LOGIN_REQ_RDMA.offsetOf("initiator_port_id"), SrpLoginRequestRdmaCm.INITIATOR_PORT_ID_OFFSET);
        assertEquals(SRP_LOGIN_REQ_RDMA.offsetOf("target_port_id"), SrpLoginRequestRdmaCm.TARGET_PORT_ID_OFFSET);
        assertEquals(SRP_LOGIN_REQ_RDMA.offsetOf("imm_data_offset"), SrpLoginRequestRdmaCm.IMM_DATA_OFFSET_OFFSET);

        assertEquals(SRP_LOGIN_RSP.offsetOf("req_lim_delta"), SrpLoginResponse.REQ_LIM_DELTA_OFFSET);
        assertEquals(SRP_LOGIN_RSP.offsetOf("tag"), SrpInformationUnit.TAG_OFFSET);
        assertEquals(SRP_LOGIN_RSP.offsetOf("max_it_iu_len"), SrpLoginResponse.MAX_IT_IU_LEN_OFFSET);
        assertEquals(SRP_LOGIN_RSP.offsetOf("max_ti_iu_len"), SrpLoginResponse.MAX_TI_IU_LEN_OFFSET);
        assertEquals(SRP_LOGIN_RSP.offsetOf("buf_fmt"), SrpLoginResponse.BUF_FMT_OFFSET);
        assertEquals(SRP_LOGIN_RSP.offsetOf("rsp_flags"), SrpLoginResponse.RSP_FLAGS_OFFSET);

        assertEquals(SRP_LOGIN_REJ.offsetOf("reason"), SrpLoginReject.REASON_OFFSET);
        assertEquals(SRP_LOGIN_REJ.offsetOf("tag"), SrpInformationUnit.TAG_OFFSET);
        assertEquals(SRP_LOGIN_REJ.offsetOf("buf_fmt"), SrpLoginReject.BUF_FMT_OFFSET);

        assertEquals(SRP_I_LOGOUT.offsetOf("tag"), SrpInformationUnit.TAG_OFFSET);
        assertEquals(SRP_T_LOGOUT.offsetOf("sol_not"), SrpTargetLogout.SOL_NOT_OFFSET);
        assertEquals(SRP_T_LOGOUT.offsetOf("reason"), SrpTargetLogout.REASON_OFFSET);
        assertEquals(SRP_T_LOGOUT.offsetOf("tag"), SrpInformationUnit.TAG_OFFSET);

        assertEquals(SRP_TSK_MGMT.offsetOf("sol_not"), SrpTaskManagement.SOL_NOT_OFFSET);
        assertEquals(SRP_TSK_MGMT.offsetOf("tag"), SrpInformationUnit.TAG_OFFSET);
        assertEquals(SRP_TSK_MGMT.offsetOf("lun"), SrpTaskManagement.LUN_OFFSET);
        assertEquals(SRP_TSK_MGMT.offsetOf("tsk_mgmt_func"), SrpTaskManagement.FUNCTION_OFFSET);
        assertEquals(SRP_TSK_MGMT.offsetOf("task_tag"), SrpTaskManagement.TASK_TAG_OFFSET);

        assertEquals(SRP_CMD.offsetOf("sol_not"), SrpCommand.SOL_NOT_OFFSET);
        assertEquals(SRP_CMD.offsetOf("buf_fmt"), SrpCommand.BUF_FMT_OFFSET);
        assertEquals(SRP_CMD.offsetOf("data_out_desc_cnt"), SrpCommand.DATA_OUT_DESC_CNT_OFFSET);
        assertEquals(SRP_CMD.offsetOf("data_in_desc_cnt"), SrpCommand.DATA_IN_DESC_CNT_OFFSET);
        assertEquals(SRP_CMD.offsetOf("tag"), SrpInformationUnit.TAG_OFFSET);
        assertEquals(SRP_CMD.offsetOf("lun"), SrpCommand.LUN_OFFSET);
        assertEquals(SRP_CMD.offsetOf("task_attr"), SrpCommand.TASK_ATTR_OFFSET);
        assertEquals(SRP_CMD.offsetOf("add_cdb_len"), SrpCommand.ADD_CDB_LEN_OFFSET);
        assertEquals(SRP_CMD.offsetOf("cdb"), SrpCommand.CDB_OFFSET);
        assertEquals(SRP_CMD.offsetOf("add_data"), SrpCommand.ADD_DATA_OFFSET);

        assertEquals(SRP_RSP.offsetOf("sol_not"), SrpResponse.SOL_NOT_OFFSET);
        assertEquals(SRP_RSP.offsetOf("req_lim_delta"), SrpResponse.REQ_LIM_DELTA_OFFSET);
        assertEquals(SRP_RSP.offsetOf("tag"), SrpInformationUnit.TAG_OFFSET);
        assertEquals(SRP_RSP.offsetOf("flags"), SrpResponse.FLAGS_OFFSET);
        assertEquals(SRP_RSP.offsetOf("status"), SrpResponse.STATUS_OFFSET);
        assertEquals(SRP_RSP.offsetOf("data_out_res_cnt"), SrpResponse.DATA_OUT_RES_CNT_OFFSET);
        assertEquals(SRP_RSP.offsetOf("data_in_res_cnt"), SrpResponse.DATA_IN_RES_CNT_OFFSET);
        assertEquals(SRP_RSP.offsetOf("sense_data_len"), SrpResponse.SENSE_DATA_LEN_OFFSET);
        assertEquals(SRP_RSP.offsetOf("resp_data_len"), SrpResponse.RESP_DATA_LEN_OFFSET);
        assertEquals(SRP_RSP.offsetOf("data"), SrpResponse.DATA_OFFSET);

        assertEquals(SRP_CRED_REQ.offsetOf("sol_not"), SrpCreditRequest.SOL_NOT_OFFSET);
        assertEquals(SRP_CRED_REQ.offsetOf("req_lim_delta"), SrpCreditRequest.REQ_LIM_DELTA_OFFSET);
        assertEquals(SRP_CRED_REQ.offsetOf("tag"), SrpInformationUnit.TAG_OFFSET);
        assertEquals(SRP_CRED_RSP.offsetOf("tag"), SrpInformationUnit.TAG_OFFSET);
        assertEquals(SRP_AER_REQ.offsetOf("sol_not"), SrpAerRequest.SOL_NOT_OFFSET);
        assertEquals(SRP_AER_REQ.offsetOf("req_lim_delta"), SrpAerRequest.REQ_LIM_DELTA_OFFSET);
        assertEquals(SRP_AER_REQ.offsetOf("tag"), SrpInformationUnit.TAG_OFFSET);
        assertEquals(SRP_AER_REQ.offsetOf("lun"), SrpAerRequest.LUN_OFFSET);
        assertEquals(SRP_AER_REQ.offsetOf("sense_data_len"), SrpAerRequest.SENSE_DATA_LEN_OFFSET);
        assertEquals(SRP_AER_REQ.offsetOf("sense_data"), SrpAerRequest.SENSE_DATA_OFFSET);
        assertEquals(SRP_AER_RSP.offsetOf("tag"), SrpInformationUnit.TAG_OFFSET);
    }

    @Test
    void opcodesMatchTheHeader() {
        assertEquals(0x00, SrpOpcode.LOGIN_REQ);
        assertEquals(0x01, SrpOpcode.TSK_MGMT);
        assertEquals(0x02, SrpOpcode.CMD);
        assertEquals(0x03, SrpOpcode.I_LOGOUT);
        assertEquals(0xC0, SrpOpcode.LOGIN_RSP);
        assertEquals(0xC1, SrpOpcode.RSP);
        assertEquals(0xC2, SrpOpcode.LOGIN_REJ);
        assertEquals(0x80, SrpOpcode.T_LOGOUT);
        assertEquals(0x81, SrpOpcode.CRED_REQ);
        assertEquals(0x82, SrpOpcode.AER_REQ);
        assertEquals(0x41, SrpOpcode.CRED_RSP);
        assertEquals(0x42, SrpOpcode.AER_RSP);
        assertEquals(0x00010000, SrpLoginReject.REASON_UNABLE_ESTABLISH_CHANNEL);
        assertEquals(0x00010002, SrpLoginReject.REASON_REQ_IT_IU_LENGTH_TOO_LARGE);
        assertEquals(0x00010006, SrpLoginReject.REASON_CHANNEL_LIMIT_REACHED);
    }

    @Test
    void loginRequestImage() {
        CStructLayout l = SRP_LOGIN_REQ;
        byte[] expected = new ByteImage(l.size())
                .u8(l.offsetOf("opcode"), 0x00)
                .tag(l.offsetOf("tag"), TAG)
                .be32(l.offsetOf("req_it_iu_len"), 8260)
                .be16(l.offsetOf("req_buf_fmt"), 0x0006)
                .u8(l.offsetOf("req_flags"), 0x81)
                .be16(l.offsetOf("imm_data_offset"), 68)
                .bytes(l.offsetOf("initiator_port_id"), INITIATOR_ID)
                .bytes(l.offsetOf("target_port_id"), TARGET_ID)
                .toArray();
        MemorySegment s = ByteImage.dirty(l.size());
        new SrpLoginRequest().wrap(s, 0).reset().setTag(TAG).setRequestedMaxInitiatorToTargetIuLength(8260)
                .setRequiredBufferFormats(SrpBufferFormat.SUPPORTS_DIRECT | SrpBufferFormat.SUPPORTS_INDIRECT)
                .setFlags(SrpLoginRequest.IMMEDIATE_DATA_REQUESTED | SrpLoginRequest.MULTICHANNEL_MULTI)
                .setImmediateDataOffset(68).setInitiatorPortId(INITIATOR_ID).setTargetPortId(TARGET_ID);
        assertBytes(expected, s);

        SrpLoginRequest decoded = new SrpLoginRequest().wrap(MemorySegment.ofArray(expected), 0);
        assertEquals(SrpDecodeError.NONE, decoded.validate(expected.length));
        assertEquals(SrpDecodeError.TOO_SHORT, decoded.validate(expected.length - 1));
        assertEquals(TAG, decoded.tag());
        assertEquals(8260, decoded.requestedMaxInitiatorToTargetIuLength());
        assertEquals(0x0006, decoded.requiredBufferFormats());
        assertTrue(decoded.immediateDataRequested());
        assertEquals(SrpLoginRequest.MULTICHANNEL_MULTI, decoded.multichannelAction());
        assertEquals(68, decoded.immediateDataOffset());
        byte[] id = new byte[16];
        decoded.getInitiatorPortId(id);
        assertArrayEquals(INITIATOR_ID, id);
        decoded.getTargetPortId(id);
        assertArrayEquals(TARGET_ID, id);
    }

    @Test
    void rdmaCmLoginRequestImageAndConversion() {
        CStructLayout l = SRP_LOGIN_REQ_RDMA;
        byte[] expected = new ByteImage(l.size())
                .tag(l.offsetOf("tag"), TAG)
                .be16(l.offsetOf("req_buf_fmt"), 0x0006)
                .u8(l.offsetOf("req_flags"), 0x80)
                .u8(l.offsetOf("opcode"), 0x00)
                .be32(l.offsetOf("req_it_iu_len"), 8260)
                .bytes(l.offsetOf("initiator_port_id"), INITIATOR_ID)
                .bytes(l.offsetOf("target_port_id"), TARGET_ID)
                .be16(l.offsetOf("imm_data_offset"), 68)
                .toArray();
        MemorySegment s = ByteImage.dirty(l.size());
        new SrpLoginRequestRdmaCm().wrap(s, 0).reset().setTag(TAG).setRequiredBufferFormats(6)
                .setFlags(0x80).setRequestedMaxInitiatorToTargetIuLength(8260)
                .setInitiatorPortId(INITIATOR_ID).setTargetPortId(TARGET_ID).setImmediateDataOffset(68);
        assertBytes(expected, s);

        SrpLoginRequestRdmaCm rdma = new SrpLoginRequestRdmaCm().wrap(MemorySegment.ofArray(expected), 0);
        assertEquals(SrpDecodeError.NONE, rdma.validate(56));
        assertEquals(SrpDecodeError.TOO_SHORT, rdma.validate(55));
        MemorySegment iuBytes = ByteImage.dirty(64);
        SrpLoginRequest iu = new SrpLoginRequest().wrap(iuBytes, 0);
        rdma.copyTo(iu);
        CStructLayout r = SRP_LOGIN_REQ;
        byte[] expectedIu = new ByteImage(64).tag(r.offsetOf("tag"), TAG).be32(r.offsetOf("req_it_iu_len"), 8260)
                .be16(r.offsetOf("req_buf_fmt"), 6).u8(r.offsetOf("req_flags"), 0x80)
                .be16(r.offsetOf("imm_data_offset"), 68).bytes(r.offsetOf("initiator_port_id"), INITIATOR_ID)
                .bytes(r.offsetOf("target_port_id"), TARGET_ID).toArray();
        assertBytes(expectedIu, iuBytes);

        MemorySegment back = ByteImage.dirty(56);
        new SrpLoginRequestRdmaCm().wrap(back, 0).copyFrom(iu);
        assertBytes(expected, back);
    }

    @Test
    void loginResponseImage() {
        CStructLayout l = SRP_LOGIN_RSP;
        byte[] expected = new ByteImage(l.size())
                .u8(l.offsetOf("opcode"), 0xC0)
                .be32(l.offsetOf("req_lim_delta"), 128)
                .tag(l.offsetOf("tag"), TAG)
                .be32(l.offsetOf("max_it_iu_len"), 8276)
                .be32(l.offsetOf("max_ti_iu_len"), 8260)
                .be16(l.offsetOf("buf_fmt"), 6)
                .u8(l.offsetOf("rsp_flags"), 0x82)
                .toArray();
        MemorySegment s = ByteImage.dirty(l.size());
        new SrpLoginResponse().wrap(s, 0).reset().setRequestLimitDelta(128).setTag(TAG)
                .setMaxInitiatorToTargetIuLength(8276).setMaxTargetToInitiatorIuLength(8260)
                .setSupportedBufferFormats(6)
                .setFlags(SrpLoginResponse.IMMEDIATE_DATA_SUPPORTED | SrpLoginResponse.MULTICHANNEL_MAINTAINED);
        assertBytes(expected, s);
        SrpLoginResponse decoded = new SrpLoginResponse().wrap(MemorySegment.ofArray(expected), 0);
        assertEquals(SrpDecodeError.NONE, decoded.validate(52));
        assertEquals(128, decoded.requestLimitDelta());
        assertEquals(TAG, decoded.tag());
        assertEquals(8276, decoded.maxInitiatorToTargetIuLength());
        assertEquals(8260, decoded.maxTargetToInitiatorIuLength());
        assertEquals(6, decoded.supportedBufferFormats());
        assertTrue(decoded.immediateDataSupported());
    }

    @Test
    void loginRejectImage() {
        CStructLayout l = SRP_LOGIN_REJ;
        byte[] expected = new ByteImage(l.size())
                .u8(l.offsetOf("opcode"), 0xC2)
                .be32(l.offsetOf("reason"), 0x00010002)
                .tag(l.offsetOf("tag"), TAG)
                .be16(l.offsetOf("buf_fmt"), 6)
                .toArray();
        MemorySegment s = ByteImage.dirty(l.size());
        new SrpLoginReject().wrap(s, 0).reset().setReason(SrpLoginReject.REASON_REQ_IT_IU_LENGTH_TOO_LARGE)
                .setTag(TAG).setSupportedBufferFormats(6);
        assertBytes(expected, s);
        SrpLoginReject decoded = new SrpLoginReject().wrap(MemorySegment.ofArray(expected), 0);
        assertEquals(SrpDecodeError.NONE, decoded.validate(32));
        assertEquals(0x00010002, decoded.reason());
        assertEquals(6, decoded.supportedBufferFormats());
    }

    @Test
    void logoutCreditAndAerResponseImages() {
        MemorySegment s = ByteImage.dirty(16);
        new SrpInitiatorLogout().wrap(s, 0).reset().setTag(TAG);
        assertBytes(new ByteImage(16).u8(0, 0x03).tag(SRP_I_LOGOUT.offsetOf("tag"), TAG).toArray(), s);

        s = ByteImage.dirty(16);
        new SrpTargetLogout().wrap(s, 0).reset().setSolicitedNotification(1)
                .setReason(SrpTargetLogout.REASON_INVALID_IU_TYPE).setTag(TAG);
        byte[] tlo = new ByteImage(16).u8(0, 0x80).u8(SRP_T_LOGOUT.offsetOf("sol_not"), 1)
                .be32(SRP_T_LOGOUT.offsetOf("reason"), 2).tag(SRP_T_LOGOUT.offsetOf("tag"), TAG).toArray();
        assertBytes(tlo, s);
        SrpTargetLogout tl = new SrpTargetLogout().wrap(MemorySegment.ofArray(tlo), 0);
        assertEquals(SrpDecodeError.NONE, tl.validate(16));
        assertEquals(2, tl.reason());
        assertEquals(1, tl.solicitedNotification());

        s = ByteImage.dirty(16);
        new SrpCreditRequest().wrap(s, 0).reset().setSolicitedNotification(1).setRequestLimitDelta(-3).setTag(TAG);
        byte[] cred = new ByteImage(16).u8(0, 0x81).u8(SRP_CRED_REQ.offsetOf("sol_not"), 1)
                .be32(SRP_CRED_REQ.offsetOf("req_lim_delta"), -3).tag(SRP_CRED_REQ.offsetOf("tag"), TAG).toArray();
        assertBytes(cred, s);
        assertEquals(-3, new SrpCreditRequest().wrap(MemorySegment.ofArray(cred), 0).requestLimitDelta());

        s = ByteImage.dirty(16);
        new SrpCreditResponse().wrap(s, 0).reset().setTag(TAG);
        assertBytes(new ByteImage(16).u8(0, 0x41).tag(SRP_CRED_RSP.offsetOf("tag"), TAG).toArray(), s);

        s = ByteImage.dirty(16);
        new SrpAerResponse().wrap(s, 0).reset().setTag(TAG);
        assertBytes(new ByteImage(16).u8(0, 0x42).tag(SRP_AER_RSP.offsetOf("tag"), TAG).toArray(), s);
    }

    @Test
    void taskManagementImage() {
        CStructLayout l = SRP_TSK_MGMT;
        long taskTag = 0x0102_0304_0506_0708L;
        byte[] expected = new ByteImage(l.size())
                .u8(l.offsetOf("opcode"), 0x01)
                .u8(l.offsetOf("sol_not"), 0)
                .tag(l.offsetOf("tag"), TAG)
                .be64(l.offsetOf("lun"), 0x0003_0000_0000_0000L)
                .u8(l.offsetOf("tsk_mgmt_func"), 0x01)
                .tag(l.offsetOf("task_tag"), taskTag)
                .toArray();
        MemorySegment s = ByteImage.dirty(l.size());
        new SrpTaskManagement().wrap(s, 0).reset().setTag(TAG).setLun(0x0003_0000_0000_0000L)
                .setFunction(SrpTaskManagement.ABORT_TASK).setTaskTag(taskTag);
        assertBytes(expected, s);
        SrpTaskManagement decoded = new SrpTaskManagement().wrap(MemorySegment.ofArray(expected), 0);
        assertEquals(SrpDecodeError.NONE, decoded.validate(48));
        assertEquals(SrpDecodeError.TOO_SHORT, decoded.validate(47));
        assertEquals(SrpTaskManagement.ABORT_TASK, decoded.function());
        assertEquals(taskTag, decoded.taskTag());
        assertEquals(0x0003_0000_0000_0000L, decoded.lun());
    }

    @Test
    void commandWithDirectDataInImage() {
        CStructLayout l = SRP_CMD;
        byte[] cdb = {(byte) 0x88, 0, 0, 0, 0, 0, 0, 0, 0x12, 0x34, 0, 0, 0, 8, 0, 0};
        int desc = l.offsetOf("add_data");
        byte[] expected = new ByteImage(desc + 16)
                .u8(l.offsetOf("opcode"), 0x02)
                .u8(l.offsetOf("buf_fmt"), 0x01)
                .tag(l.offsetOf("tag"), TAG)
                .be64(l.offsetOf("lun"), 0x0001_0000_0000_0000L)
                .u8(l.offsetOf("task_attr"), SrpCommand.TASK_SIMPLE)
                .bytes(l.offsetOf("cdb"), cdb)
                .be64(desc + SRP_DIRECT_BUF.offsetOf("va"), 0x7F00_1234_5000L)
                .be32(desc + SRP_DIRECT_BUF.offsetOf("key"), 0xABCD)
                .be32(desc + SRP_DIRECT_BUF.offsetOf("len"), 4096)
                .toArray();
        MemorySegment s = ByteImage.dirty(expected.length);
        SrpCommand cmd = new SrpCommand().wrap(s, 0).reset().setTag(TAG).setLun(0x0001_0000_0000_0000L)
                .setTaskAttribute(SrpCommand.TASK_SIMPLE).setCdb(cdb)
                .setBufferFormats(SrpBufferFormat.NONE, SrpBufferFormat.DIRECT);
        cmd.dataInDirect(new SrpDirectBuffer()).set(0x7F00_1234_5000L, 0xABCD, 4096);
        assertEquals(expected.length, cmd.descriptorsEnd());
        assertBytes(expected, s);

        SrpCommand decoded = new SrpCommand().wrap(MemorySegment.ofArray(expected), 0);
        assertEquals(SrpDecodeError.NONE, decoded.validate(expected.length, 0));
        assertEquals(SrpDecodeError.DESCRIPTOR_PAST_END, decoded.validate(expected.length - 1, 0));
        assertEquals(16, decoded.cdbLength());
        assertEquals(0x88, decoded.cdbByte(0));
        assertEquals(4096, decoded.dataInLength());
        assertEquals(0, decoded.dataOutLength());
        SrpDirectBuffer d = decoded.dataInDirect(new SrpDirectBuffer());
        assertEquals(0x7F00_1234_5000L, d.virtualAddress());
        assertEquals(0xABCD, d.key());
        assertEquals(4096, d.length());
    }

    @Test
    void commandWithAdditionalCdbAndIndirectDataOutImage() {
        CStructLayout l = SRP_CMD;
        byte[] cdb = range(0x40, 20);                                  // a 20-byte CDB: 4 additional bytes
        int desc = l.offsetOf("add_data") + 4;
        int list = desc + SRP_INDIRECT_BUF.offsetOf("desc_list");
        byte[] expected = new ByteImage(list + 2 * 16)
                .u8(l.offsetOf("opcode"), 0x02)
                .u8(l.offsetOf("buf_fmt"), 0x20)
                .u8(l.offsetOf("data_out_desc_cnt"), 2)
                .tag(l.offsetOf("tag"), TAG)
                .u8(l.offsetOf("add_cdb_len"), 4)
                .bytes(l.offsetOf("cdb"), cdb)
                .be64(desc + SRP_INDIRECT_BUF.offsetOf("table_desc") + SRP_DIRECT_BUF.offsetOf("va"), 0x1000)
                .be32(desc + SRP_INDIRECT_BUF.offsetOf("table_desc") + SRP_DIRECT_BUF.offsetOf("key"), 7)
                .be32(desc + SRP_INDIRECT_BUF.offsetOf("table_desc") + SRP_DIRECT_BUF.offsetOf("len"), 32)
                .be32(desc + SRP_INDIRECT_BUF.offsetOf("len"), 3072)
                .be64(list, 0x2000).be32(list + 8, 8).be32(list + 12, 1024)
                .be64(list + 16, 0x3000).be32(list + 24, 9).be32(list + 28, 2048)
                .toArray();
        MemorySegment s = ByteImage.dirty(expected.length);
        SrpCommand cmd = new SrpCommand().wrap(s, 0).reset().setTag(TAG).setCdb(cdb)
                .setBufferFormats(SrpBufferFormat.INDIRECT, SrpBufferFormat.NONE).setDataOutDescriptorCount(2);
        cmd.dataOutIndirect(new SrpIndirectBuffer()).setTable(0x1000, 7, 32, 3072)
                .setDescriptor(0, 0x2000, 8, 1024).setDescriptor(1, 0x3000, 9, 2048);
        assertEquals(expected.length, cmd.descriptorsEnd());
        assertBytes(expected, s);

        SrpCommand decoded = new SrpCommand().wrap(MemorySegment.ofArray(expected), 0);
        assertEquals(SrpDecodeError.NONE, decoded.validate(expected.length, 0));
        assertEquals(20, decoded.cdbLength());
        assertEquals(3072, decoded.dataOutLength());
        assertEquals(false, decoded.dataOutTableIsExternal());
        SrpIndirectBuffer ib = decoded.dataOutIndirect(new SrpIndirectBuffer());
        assertEquals(2, ib.tableDescriptorCount());
        assertEquals(0x3000, ib.descriptorVirtualAddress(1));
        assertEquals(9, ib.descriptorKey(1));
        assertEquals(2048, ib.descriptorLength(1));
        MemorySegment copy = MemorySegment.ofArray(new byte[20]);
        decoded.copyCdb(copy, 0);
        assertArrayEquals(cdb, copy.toArray(ValueLayout.JAVA_BYTE));
    }

    @Test
    void commandWithImmediateDataImage() {
        // ib_srp's layout: 16-byte additional CDB room, srp_imm_buf at 64, the data at offset 68.
        CStructLayout l = SRP_CMD;
        byte[] cdb = {0x2A, 0, 0, 0, 0, 0x10, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0};
        int immOffset = 68;
        byte[] payload = range(1, 512);
        byte[] expected = new ByteImage(immOffset + payload.length)
                .u8(l.offsetOf("opcode"), 0x02)
                .u8(l.offsetOf("buf_fmt"), 0x30)
                .tag(l.offsetOf("tag"), TAG)
                .u8(l.offsetOf("add_cdb_len"), 16)
                .bytes(l.offsetOf("cdb"), cdb)
                .be32(l.offsetOf("add_data") + 16 + SRP_IMM_BUF.offsetOf("len"), payload.length)
                .bytes(immOffset, payload)
                .toArray();
        SrpCommand decoded = new SrpCommand().wrap(MemorySegment.ofArray(expected), 0);
        assertEquals(SrpDecodeError.NONE, decoded.validate(expected.length, immOffset));
        assertEquals(SrpDecodeError.IMMEDIATE_DATA_NOT_NEGOTIATED, decoded.validate(expected.length, 0));
        assertEquals(SrpDecodeError.IMMEDIATE_DATA_PAST_END, decoded.validate(expected.length - 1, immOffset));
        assertEquals(512, decoded.dataOutLength());
        assertEquals(immOffset, decoded.immediateDataOffsetInSegment(immOffset));

        MemorySegment s = ByteImage.dirty(expected.length);
        SrpCommand cmd = new SrpCommand().wrap(s, 0).reset().setTag(TAG).setCdb(cdb)
                .setBufferFormats(SrpBufferFormat.IMMEDIATE, SrpBufferFormat.NONE);
        s.set(ValueLayout.JAVA_BYTE, SrpCommand.ADD_CDB_LEN_OFFSET, (byte) 16);   // reserve room like ib_srp
        s.asSlice(48, 16).fill((byte) 0);
        cmd.setImmediateDataLength(payload.length);
        MemorySegment.copy(payload, 0, s, ValueLayout.JAVA_BYTE, immOffset, payload.length);
        assertBytes(expected, s);
    }

    @Test
    void responseImageWithSenseAndResiduals() {
        CStructLayout l = SRP_RSP;
        byte[] sense = range(0x70, 18);
        byte[] expected = new ByteImage(l.size() + sense.length)
                .u8(l.offsetOf("opcode"), 0xC1)
                .be32(l.offsetOf("req_lim_delta"), 1)
                .tag(l.offsetOf("tag"), TAG)
                .u8(l.offsetOf("flags"), SrpResponse.FLAG_SNSVALID | SrpResponse.FLAG_DIUNDER | SrpResponse.FLAG_DOOVER)
                .u8(l.offsetOf("status"), 0x02)
                .be32(l.offsetOf("data_out_res_cnt"), 512)
                .be32(l.offsetOf("data_in_res_cnt"), 4096)
                .be32(l.offsetOf("sense_data_len"), sense.length)
                .bytes(l.offsetOf("data"), sense)
                .toArray();
        MemorySegment s = ByteImage.dirty(expected.length);
        SrpResponse rsp = new SrpResponse().wrap(s, 0).reset().setRequestLimitDelta(1).setTag(TAG).setStatus(2)
                .setDataInUnderflow(4096).setDataOutOverflow(512);
        assertEquals(18, rsp.setSenseData(MemorySegment.ofArray(sense), 0, sense.length, 8260));
        assertEquals(expected.length, rsp.length());
        assertBytes(expected, s);

        SrpResponse decoded = new SrpResponse().wrap(MemorySegment.ofArray(expected), 0);
        assertEquals(SrpDecodeError.NONE, decoded.validate(expected.length));
        assertEquals(SrpDecodeError.DATA_LENGTH_PAST_END, decoded.validate(expected.length - 1));
        assertEquals(2, decoded.status());
        assertEquals(4096, decoded.dataInResidualCount());
        assertEquals(512, decoded.dataOutResidualCount());
        assertEquals(36, decoded.senseDataOffset());
        assertEquals(-1, decoded.responseCode());
    }

    @Test
    void taskManagementResponseImage() {
        CStructLayout l = SRP_RSP;
        byte[] expected = new ByteImage(l.size() + 4)
                .u8(l.offsetOf("opcode"), 0xC1)
                .be32(l.offsetOf("req_lim_delta"), 1)
                .tag(l.offsetOf("tag"), TAG)
                .u8(l.offsetOf("flags"), SrpResponse.FLAG_RSPVALID)
                .be32(l.offsetOf("resp_data_len"), 4)
                .u8(l.offsetOf("data") + 3, SrpTaskManagement.RSP_NOT_SUPPORTED)
                .toArray();
        MemorySegment s = ByteImage.dirty(expected.length);
        SrpResponse rsp = new SrpResponse().wrap(s, 0).reset().setRequestLimitDelta(1).setTag(TAG)
                .setResponseCode(SrpTaskManagement.RSP_NOT_SUPPORTED);
        assertEquals(40, rsp.length());
        assertBytes(expected, s);
        assertEquals(SrpTaskManagement.RSP_NOT_SUPPORTED,
                new SrpResponse().wrap(MemorySegment.ofArray(expected), 0).responseCode());
    }

    @Test
    void aerRequestImage() {
        CStructLayout l = SRP_AER_REQ;
        byte[] sense = range(0x70, 18);
        byte[] expected = new ByteImage(l.size() + sense.length)
                .u8(l.offsetOf("opcode"), 0x82)
                .u8(l.offsetOf("sol_not"), 1)
                .be32(l.offsetOf("req_lim_delta"), 2)
                .tag(l.offsetOf("tag"), TAG)
                .be64(l.offsetOf("lun"), 0x0002_0000_0000_0000L)
                .be32(l.offsetOf("sense_data_len"), sense.length)
                .bytes(l.offsetOf("sense_data"), sense)
                .toArray();
        MemorySegment s = ByteImage.dirty(expected.length);
        SrpAerRequest aer = new SrpAerRequest().wrap(s, 0).reset().setSolicitedNotification(1)
                .setRequestLimitDelta(2).setTag(TAG).setLun(0x0002_0000_0000_0000L)
                .setSenseData(MemorySegment.ofArray(sense), 0, sense.length);
        assertEquals(expected.length, aer.length());
        assertBytes(expected, s);
        SrpAerRequest decoded = new SrpAerRequest().wrap(MemorySegment.ofArray(expected), 0);
        assertEquals(SrpDecodeError.NONE, decoded.validate(expected.length));
        assertEquals(SrpDecodeError.DATA_LENGTH_PAST_END, decoded.validate(expected.length - 1));
        assertEquals(18, decoded.senseDataLength());
        assertEquals(0x0002_0000_0000_0000L, decoded.lun());
    }

    static void assertBytes(byte[] expected, MemorySegment actual) {
        assertEquals(ByteImage.hex(expected), ByteImage.hex(actual.asSlice(0, expected.length).toArray(ValueLayout.JAVA_BYTE)));
    }

    static byte[] range(int start, int length) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (start + i);
        }
        return b;
    }
}

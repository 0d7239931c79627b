package org.rdmablock.protocol.srp;

import org.junit.jupiter.api.Test;
import org.rdmablock.protocol.HeaderPins;
import org.rdmablock.protocol.HeaderPins.Pin;

import java.io.IOException;
import java.net.URISyntaxException;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.rdmablock.protocol.HeaderPins.check;
import static org.rdmablock.protocol.HeaderPins.pin;

/**
 * Every wire constant of the SRP codecs against a literal copied from the C headers that Linux's ib_srp and
 * ib_srpt are built from, never from our own constants (the seed corpus and the layout test encode with
 * those, so a wrong value there is invisible to them). Field offsets are {@link SrpLayoutTest}'s job; this
 * test pins everything else: opcodes, flags, formats, reasons, codes and sizes. {@link #everyConstantIsPinned}
 * makes a new constant fail until it is added here with its source.
 *
 * <p>Sources: {@code include/scsi/srp.h} and {@code drivers/infiniband/ulp/srpt/ib_srpt.h} (Linux, torvalds/linux
 * master). Two groups Linux does not define come from other SRP implementations, named where they are used.
 */
class SrpConstantsTest {

    // include/scsi/srp.h: the anonymous enum of IU type codes.
    private static final List<Pin> OPCODES = List.of(
            pin(SrpOpcode.class, "LOGIN_REQ", 0x00, "SRP_LOGIN_REQ"),
            pin(SrpOpcode.class, "TSK_MGMT", 0x01, "SRP_TSK_MGMT"),
            pin(SrpOpcode.class, "CMD", 0x02, "SRP_CMD"),
            pin(SrpOpcode.class, "I_LOGOUT", 0x03, "SRP_I_LOGOUT"),
            pin(SrpOpcode.class, "LOGIN_RSP", 0xc0, "SRP_LOGIN_RSP"),
            pin(SrpOpcode.class, "RSP", 0xc1, "SRP_RSP"),
            pin(SrpOpcode.class, "LOGIN_REJ", 0xc2, "SRP_LOGIN_REJ"),
            pin(SrpOpcode.class, "T_LOGOUT", 0x80, "SRP_T_LOGOUT"),
            pin(SrpOpcode.class, "CRED_REQ", 0x81, "SRP_CRED_REQ"),
            pin(SrpOpcode.class, "AER_REQ", 0x82, "SRP_AER_REQ"),
            pin(SrpOpcode.class, "CRED_RSP", 0x41, "SRP_CRED_RSP"),
            pin(SrpOpcode.class, "AER_RSP", 0x42, "SRP_AER_RSP"));

    // include/scsi/srp.h: SRP_BUF_FORMAT_* (login mask bits) and SRP_*_DATA_DESC* (srp_cmd.buf_fmt nibbles).
    private static final List<Pin> BUFFER_FORMATS = List.of(
            pin(SrpBufferFormat.class, "SUPPORTS_DIRECT", 0x02, "SRP_BUF_FORMAT_DIRECT = 1 << 1"),
            pin(SrpBufferFormat.class, "SUPPORTS_INDIRECT", 0x04, "SRP_BUF_FORMAT_INDIRECT = 1 << 2"),
            pin(SrpBufferFormat.class, "NONE", 0, "SRP_NO_DATA_DESC"),
            pin(SrpBufferFormat.class, "DIRECT", 1, "SRP_DATA_DESC_DIRECT"),
            pin(SrpBufferFormat.class, "INDIRECT", 2, "SRP_DATA_DESC_INDIRECT"),
            pin(SrpBufferFormat.class, "IMMEDIATE", 3, "SRP_DATA_DESC_IMM"));

    // include/scsi/srp.h: "srp_login_req.flags" and "srp_login_rsp.rsp_flags" enums.
    private static final List<Pin> LOGIN_FLAGS = List.of(
            pin(SrpLoginRequest.class, "MULTICHANNEL_SINGLE", 0, "SRP_MULTICHAN_SINGLE"),
            pin(SrpLoginRequest.class, "MULTICHANNEL_MULTI", 1, "SRP_MULTICHAN_MULTI"),
            pin(SrpLoginRequest.class, "IMMEDIATE_DATA_REQUESTED", 0x80, "SRP_IMMED_REQUESTED"),
            pin(SrpLoginResponse.class, "MULTICHANNEL_NO_CHANNEL", 0x0, "SRP_LOGIN_RSP_MULTICHAN_NO_CHAN"),
            pin(SrpLoginResponse.class, "MULTICHANNEL_TERMINATED", 0x1, "SRP_LOGIN_RSP_MULTICHAN_TERMINATED"),
            pin(SrpLoginResponse.class, "MULTICHANNEL_MAINTAINED", 0x2, "SRP_LOGIN_RSP_MULTICHAN_MAINTAINED"),
            pin(SrpLoginResponse.class, "IMMEDIATE_DATA_SUPPORTED", 0x80, "SRP_LOGIN_RSP_IMMED_SUPP"));

    // include/scsi/srp.h: enum srp_login_rej_reason.
    private static final List<Pin> LOGIN_REJECT_REASONS = List.of(
            pin(SrpLoginReject.class, "REASON_UNABLE_ESTABLISH_CHANNEL", 0x00010000, "SRP_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL"),
            pin(SrpLoginReject.class, "REASON_INSUFFICIENT_RESOURCES", 0x00010001, "SRP_LOGIN_REJ_INSUFFICIENT_RESOURCES"),
            pin(SrpLoginReject.class, "REASON_REQ_IT_IU_LENGTH_TOO_LARGE", 0x00010002, "SRP_LOGIN_REJ_REQ_IT_IU_LENGTH_TOO_LARGE"),
            pin(SrpLoginReject.class, "REASON_UNABLE_ASSOCIATE_CHANNEL", 0x00010003, "SRP_LOGIN_REJ_UNABLE_ASSOCIATE_CHANNEL"),
            pin(SrpLoginReject.class, "REASON_UNSUPPORTED_DESCRIPTOR_FORMAT", 0x00010004, "SRP_LOGIN_REJ_UNSUPPORTED_DESCRIPTOR_FMT"),
            pin(SrpLoginReject.class, "REASON_MULTI_CHANNEL_UNSUPPORTED", 0x00010005, "SRP_LOGIN_REJ_MULTI_CHANNEL_UNSUPPORTED"),
            pin(SrpLoginReject.class, "REASON_CHANNEL_LIMIT_REACHED", 0x00010006, "SRP_LOGIN_REJ_CHANNEL_LIMIT_REACHED"));

    // Linux defines no SRP_T_LOGOUT reason codes (ib_srpt never sends T_LOGOUT). These are the TLO_* values of
    // the OpenFabrics Windows initiator, ulp/srp/kernel/srp.h (enum target_logout_reason_code_enum), which
    // follow T10 SRP r16a table 23 (5 reserved). iPXE's include/ipxe/srp.h numbers 5..8 differently
    // (data-out format 5, data-in format 6, "invalid IU length" 8); we follow the table.
    private static final List<Pin> TARGET_LOGOUT_REASONS = List.of(
            pin(SrpTargetLogout.class, "REASON_NONE", 0x0000, "TLO_NO_REASON"),
            pin(SrpTargetLogout.class, "REASON_INACTIVE_CHANNEL", 0x0001, "TLO_INACTIVE_RDMA_CHANNEL"),
            pin(SrpTargetLogout.class, "REASON_INVALID_IU_TYPE", 0x0002, "TLO_INVALID_IU_TYPE_RECEIVED_BY_TARGET"),
            pin(SrpTargetLogout.class, "REASON_UNEXPECTED_RESPONSE", 0x0003, "TLO_RESPONSE_WITH_NO_OUTSTANDING_TARGET_PORT_REQUEST"),
            pin(SrpTargetLogout.class, "REASON_MULTICHANNEL_ACTION", 0x0004, "TLO_DISCONNECT_DUE_TO_MULTI_CHANNEL_ACTION_ON_NEW_LOGIN"),
            pin(SrpTargetLogout.class, "REASON_UNSUPPORTED_DATA_OUT_FORMAT", 0x0006, "TLO_UNSUPPORTED_FORMAT_FOR_DATA_OUT_BUFFER_DESCRIPTOR"),
            pin(SrpTargetLogout.class, "REASON_UNSUPPORTED_DATA_IN_FORMAT", 0x0007, "TLO_UNSUPPORTED_FORMAT_FOR_DATA_IN_BUFFER_DESCRIPTOR"),
            pin(SrpTargetLogout.class, "REASON_INVALID_DATA_OUT_COUNT", 0x0008, "TLO_INVALID_COUNT_VALUE_IN_DATA_OUT_BUFFER_DESCRIPTOR_COUNT"),
            pin(SrpTargetLogout.class, "REASON_INVALID_DATA_IN_COUNT", 0x0009, "TLO_INVALID_COUNT_VALUE_IN_DATA_IN_BUFFER_DESCRIPTOR_COUNT"));

    // Functions: include/scsi/srp.h SRP_TSK_*. Response codes: drivers/infiniband/ulp/srpt/ib_srpt.h
    // SRP_TSK_MGMT_* ("table 24 in the SRP specification"); ib_srpt has no name for 0x02, which is QEMU's
    // hw/scsi/srp.h SRP_TSK_MGMT_FIELDS_INVALID (the same table's REQUEST FIELDS INVALID).
    private static final List<Pin> TASK_MANAGEMENT = List.of(
            pin(SrpTaskManagement.class, "ABORT_TASK", 0x01, "SRP_TSK_ABORT_TASK"),
            pin(SrpTaskManagement.class, "ABORT_TASK_SET", 0x02, "SRP_TSK_ABORT_TASK_SET"),
            pin(SrpTaskManagement.class, "CLEAR_TASK_SET", 0x04, "SRP_TSK_CLEAR_TASK_SET"),
            pin(SrpTaskManagement.class, "LUN_RESET", 0x08, "SRP_TSK_LUN_RESET"),
            pin(SrpTaskManagement.class, "CLEAR_ACA", 0x40, "SRP_TSK_CLEAR_ACA"),
            pin(SrpTaskManagement.class, "RSP_COMPLETE", 0x00, "ib_srpt.h SRP_TSK_MGMT_SUCCESS"),
            pin(SrpTaskManagement.class, "RSP_INVALID_FIELDS", 0x02, "qemu hw/scsi/srp.h SRP_TSK_MGMT_FIELDS_INVALID"),
            pin(SrpTaskManagement.class, "RSP_NOT_SUPPORTED", 0x04, "ib_srpt.h SRP_TSK_MGMT_FUNC_NOT_SUPP"),
            pin(SrpTaskManagement.class, "RSP_FAILED", 0x05, "ib_srpt.h SRP_TSK_MGMT_FAILED"));

    // include/scsi/srp.h: SRP_RSP_FLAG_*.
    private static final List<Pin> RESPONSE_FLAGS = List.of(
            pin(SrpResponse.class, "FLAG_RSPVALID", 0x01, "SRP_RSP_FLAG_RSPVALID = 1 << 0"),
            pin(SrpResponse.class, "FLAG_SNSVALID", 0x02, "SRP_RSP_FLAG_SNSVALID = 1 << 1"),
            pin(SrpResponse.class, "FLAG_DOOVER", 0x04, "SRP_RSP_FLAG_DOOVER = 1 << 2"),
            pin(SrpResponse.class, "FLAG_DOUNDER", 0x08, "SRP_RSP_FLAG_DOUNDER = 1 << 3"),
            pin(SrpResponse.class, "FLAG_DIOVER", 0x10, "SRP_RSP_FLAG_DIOVER = 1 << 4"),
            pin(SrpResponse.class, "FLAG_DIUNDER", 0x20, "SRP_RSP_FLAG_DIUNDER = 1 << 5"));

    // drivers/infiniband/ulp/srpt/ib_srpt.h: SRP_CMD_* task attributes ("table 21 in the SRP specification").
    private static final List<Pin> TASK_ATTRIBUTES = List.of(
            pin(SrpCommand.class, "TASK_SIMPLE", 0x0, "SRP_CMD_SIMPLE_Q"),
            pin(SrpCommand.class, "TASK_HEAD_OF_QUEUE", 0x1, "SRP_CMD_HEAD_OF_Q"),
            pin(SrpCommand.class, "TASK_ORDERED", 0x2, "SRP_CMD_ORDERED_Q"),
            pin(SrpCommand.class, "TASK_ACA", 0x4, "SRP_CMD_ACA"));

    // Sizes: the sizes srp.h states in its comments, the sizeof() ib_srpt.h annotates (/*48*/ etc.), or the sum
    // of the struct's members as declared in srp.h (written out here, so no layout code is involved).
    private static final List<Pin> SIZES = List.of(
            pin(SrpLoginRequest.class, "LENGTH", 64, "sizeof(struct srp_login_req) = 1+7+8+4+4+2+1+1+2+2+16+16"),
            pin(SrpLoginRequest.class, "PORT_ID_LENGTH", 16, "u8 initiator_port_id[16]"),
            pin(SrpInformationUnit.class, "TAG_END", 16, "every IU: u8 opcode; u8 reserved[7]; u64 tag: 8 + 8"),
            pin(SrpLoginRequestRdmaCm.class, "LENGTH", 56, "srp_login_req_rdma: \"92 - 36 = 56 bytes of private data\""),
            pin(SrpLoginResponse.class, "LENGTH", 52, "srp_login_rsp: \"the size of the LOGIN_RSP structure to be 52 bytes\""),
            pin(SrpLoginReject.class, "LENGTH", 32, "sizeof(struct srp_login_rej) = 1+3+4+8+8+2+6"),
            pin(SrpInitiatorLogout.class, "LENGTH", 16, "sizeof(struct srp_i_logout) = 1+7+8"),
            pin(SrpTargetLogout.class, "LENGTH", 16, "sizeof(struct srp_t_logout) = 1+1+2+4+8"),
            pin(SrpTaskManagement.class, "LENGTH", 48, "sizeof(struct srp_tsk_mgmt) = 1+1+6+8+4+8+2+1+1+8+8"),
            pin(SrpCommand.class, "FIXED_LENGTH", 48, "ib_srpt.h sizeof(struct srp_cmd)/*48*/"),
            pin(SrpCommand.class, "CDB_LENGTH", 16, "srp_cmd: u8 cdb[16]"),
            pin(SrpCommand.class, "IMMEDIATE_DESCRIPTOR_LENGTH", 4, "sizeof(struct srp_imm_buf) = __be32 len"),
            pin(SrpResponse.class, "FIXED_LENGTH", 36, "ib_srpt.h sizeof(struct srp_rsp)/*36*/"),
            pin(SrpCreditRequest.class, "LENGTH", 16, "sizeof(struct srp_cred_req) = 1+1+2+4+8"),
            pin(SrpCreditResponse.class, "LENGTH", 16, "sizeof(struct srp_cred_rsp) = 1+7+8"),
            pin(SrpAerRequest.class, "FIXED_LENGTH", 36, "srp_aer_req: \"the fixed portion of the AER_REQ structure to be 36 bytes\""),
            pin(SrpAerResponse.class, "LENGTH", 16, "sizeof(struct srp_aer_rsp) = 1+7+8"),
            pin(SrpDirectBuffer.class, "LENGTH", 16, "ib_srpt.h sizeof(struct srp_direct_buf)/*16*/"),
            pin(SrpIndirectBuffer.class, "HEADER_LENGTH", 20, "ib_srpt.h sizeof(struct srp_indirect_buf)/*20*/"));

    private static final List<List<Pin>> ALL = List.of(OPCODES, BUFFER_FORMATS, LOGIN_FLAGS, LOGIN_REJECT_REASONS,
            TARGET_LOGOUT_REASONS, TASK_MANAGEMENT, RESPONSE_FLAGS, TASK_ATTRIBUTES, SIZES);

    @Test
    void opcodes() {
        check(OPCODES);
    }

    @Test
    void bufferFormats() {
        check(BUFFER_FORMATS);
    }

    @Test
    void loginRequestAndResponseFlags() {
        check(LOGIN_FLAGS);
    }

    @Test
    void loginRejectReasons() {
        check(LOGIN_REJECT_REASONS);
    }

    @Test
    void targetLogoutReasons() {
        check(TARGET_LOGOUT_REASONS);
    }

    @Test
    void taskManagementFunctionsAndResponseCodes() {
        check(TASK_MANAGEMENT);
    }

    @Test
    void responseFlags() {
        check(RESPONSE_FLAGS);
    }

    @Test
    void taskAttributes() {
        check(TASK_ATTRIBUTES);
    }

    @Test
    void informationUnitSizes() {
        check(SIZES);
    }

    /**
     * Every public constant of every class in the package, other than field offsets, has a pin above: a
     * constant added without a header literal to check it against fails here.
     */
    @Test
    void everyConstantIsPinned() throws IOException, URISyntaxException {
        assertTrue(HeaderPins.packageClasses(SrpOpcode.class).size() >= 18);
        assertEquals(Set.of(), HeaderPins.unpinned(SrpOpcode.class, ALL), "constants without a literal from the headers");
    }
}

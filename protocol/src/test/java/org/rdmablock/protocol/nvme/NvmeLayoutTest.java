package org.rdmablock.protocol.nvme;

import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Every field offset and size of the NVMe codecs against the structs of Linux {@code include/linux/nvme.h} and
 * {@code nvme-rdma.h} (declarations transcribed below, laid out by {@link NvmeStructLayout}), and every encoder against
 * a little-endian byte image built from that layout independently of the codecs, then decoded back.
 */
class NvmeLayoutTest {
    // Transcribed from include/linux/nvme.h.
    static final NvmeStructLayout COMMON_COMMAND = NvmeStructLayout.of("__u8 opcode", "__u8 flags", "__u16 command_id",
            "__le32 nsid", "__le32 cdw2[2]", "__le64 metadata", "union nvme_data_ptr dptr", "__le32 cdw10", "__le32 cdw11",
            "__le32 cdw12", "__le32 cdw13", "__le32 cdw14", "__le32 cdw15");
    static final NvmeStructLayout RW_COMMAND = NvmeStructLayout.of("__u8 opcode", "__u8 flags", "__u16 command_id",
            "__le32 nsid", "__le32 cdw2", "__le32 cdw3", "__le64 metadata", "union nvme_data_ptr dptr", "__le64 slba",
            "__le16 length", "__le16 control", "__le32 dsmgmt", "__le32 reftag", "__le16 lbat", "__le16 lbatm");
    static final NvmeStructLayout SGL_DESC = NvmeStructLayout.of("__le64 addr", "__le32 length", "__u8 rsvd[3]",
            "__u8 type");
    static final NvmeStructLayout KEYED_SGL_DESC = NvmeStructLayout.of("__le64 addr", "__u8 length[3]", "__u8 key[4]",
            "__u8 type");
    static final NvmeStructLayout COMPLETION = NvmeStructLayout.of("union nvme_result result", "__le16 sq_head",
            "__le16 sq_id", "__u16 command_id", "__le16 status");
    static final NvmeStructLayout DSM_RANGE = NvmeStructLayout.of("__le32 cattr", "__le32 nlb", "__le64 slba");
    static final NvmeStructLayout FABRICS_COMMON = NvmeStructLayout.of("__u8 opcode", "__u8 resv1", "__u16 command_id",
            "__u8 fctype", "__u8 resv2[35]", "__u8 ts[24]");
    static final NvmeStructLayout CONNECT_COMMAND = NvmeStructLayout.of("__u8 opcode", "__u8 resv1", "__u16 command_id",
            "__u8 fctype", "__u8 resv2[19]", "union nvme_data_ptr dptr", "__le16 recfmt", "__le16 qid", "__le16 sqsize",
            "__u8 cattr", "__u8 resv3", "__le32 kato", "__u8 resv4[12]");
    static final NvmeStructLayout CONNECT_DATA = NvmeStructLayout.of("uuid_t hostid", "__le16 cntlid", "char resv4[238]",
            "char subsysnqn[256]", "char hostnqn[256]", "char resv5[256]");
    static final NvmeStructLayout PROPERTY_SET = NvmeStructLayout.of("__u8 opcode", "__u8 resv1", "__u16 command_id",
            "__u8 fctype", "__u8 resv2[35]", "__u8 attrib", "__u8 resv3[3]", "__le32 offset", "__le64 value",
            "__u8 resv4[8]");
    static final NvmeStructLayout PROPERTY_GET = NvmeStructLayout.of("__u8 opcode", "__u8 resv1", "__u16 command_id",
            "__u8 fctype", "__u8 resv2[35]", "__u8 attrib", "__u8 resv3[3]", "__le32 offset", "__u8 resv4[16]");
    static final NvmeStructLayout IDENTIFY = NvmeStructLayout.of("__u8 opcode", "__u8 flags", "__u16 command_id",
            "__le32 nsid", "__u64 rsvd2[2]", "union nvme_data_ptr dptr", "__u8 cns", "__u8 rsvd3", "__le16 ctrlid",
            "__le16 cnssid", "__u8 rsvd11", "__u8 csi", "__u32 rsvd12[4]");
    static final NvmeStructLayout ID_CTRL = NvmeStructLayout.of("__le16 vid", "__le16 ssvid", "char sn[20]",
            "char mn[40]", "char fr[8]", "__u8 rab", "__u8 ieee[3]", "__u8 cmic", "__u8 mdts", "__le16 cntlid",
            "__le32 ver", "__le32 rtd3r", "__le32 rtd3e", "__le32 oaes", "__le32 ctratt", "__u8 rsvd100[11]",
            "__u8 cntrltype", "__u8 fguid[16]", "__le16 crdt1", "__le16 crdt2", "__le16 crdt3", "__u8 rsvd134[122]",
            "__le16 oacs", "__u8 acl", "__u8 aerl", "__u8 frmw", "__u8 lpa", "__u8 elpe", "__u8 npss", "__u8 avscc",
            "__u8 apsta", "__le16 wctemp", "__le16 cctemp", "__le16 mtfa", "__le32 hmpre", "__le32 hmmin",
            "__u8 tnvmcap[16]", "__u8 unvmcap[16]", "__le32 rpmbs", "__le16 edstt", "__u8 dsto", "__u8 fwug",
            "__le16 kas", "__le16 hctma", "__le16 mntmt", "__le16 mxtmt", "__le32 sanicap", "__le32 hmminds",
            "__le16 hmmaxd", "__le16 nvmsetidmax", "__le16 endgidmax", "__u8 anatt", "__u8 anacap", "__le32 anagrpmax",
            "__le32 nanagrpid", "__u8 rsvd352[160]", "__u8 sqes", "__u8 cqes", "__le16 maxcmd", "__le32 nn",
            "__le16 oncs", "__le16 fuses", "__u8 fna", "__u8 vwc", "__le16 awun", "__le16 awupf", "__u8 nvscc",
            "__u8 nwpc", "__le16 acwu", "__u8 rsvd534[2]", "__le32 sgls", "__le32 mnan", "__u8 rsvd544[224]",
            "char subnqn[256]", "__u8 rsvd1024[768]", "__le32 ioccsz", "__le32 iorcsz", "__le16 icdoff", "__u8 ctrattr",
            "__u8 msdbd", "__u8 rsvd1804[2]", "__u8 dctype", "__u8 rsvd1807[241]", "struct nvme_id_power_state psd[32]",
            "__u8 vs[1024]");
    static final NvmeStructLayout ID_NS = NvmeStructLayout.of("__le64 nsze", "__le64 ncap", "__le64 nuse", "__u8 nsfeat",
            "__u8 nlbaf", "__u8 flbas", "__u8 mc", "__u8 dpc", "__u8 dps", "__u8 nmic", "__u8 rescap", "__u8 fpi",
            "__u8 dlfeat", "__le16 nawun", "__le16 nawupf", "__le16 nacwu", "__le16 nabsn", "__le16 nabo",
            "__le16 nabspf", "__le16 noiob", "__u8 nvmcap[16]", "__le16 npwg", "__le16 npwa", "__le16 npdg",
            "__le16 npda", "__le16 nows", "__u8 rsvd74[18]", "__le32 anagrpid", "__u8 rsvd96[3]", "__u8 nsattr",
            "__le16 nvmsetid", "__le16 endgid", "__u8 nguid[16]", "__u8 eui64[8]", "struct nvme_lbaf lbaf[64]",
            "__u8 vs[3712]");
    static final NvmeStructLayout LBAF = NvmeStructLayout.of("__le16 ms", "__u8 ds", "__u8 rp");
    static final NvmeStructLayout ERROR_SLOT = NvmeStructLayout.of("__le64 error_count", "__le16 sqid", "__le16 cmdid",
            "__le16 status_field", "__le16 param_error_location", "__le64 lba", "__le32 nsid", "__u8 vs", "__u8 resv[3]",
            "__le64 cs", "__u8 resv2[24]");
    static final NvmeStructLayout GET_LOG_PAGE = NvmeStructLayout.of("__u8 opcode", "__u8 flags", "__u16 command_id",
            "__le32 nsid", "__u64 rsvd2[2]", "union nvme_data_ptr dptr", "__u8 lid", "__u8 lsp", "__le16 numdl",
            "__le16 numdu", "__le16 lsi", "__le64 lpo", "__u8 rsvd14[3]", "__u8 csi", "__u32 rsvd15");
    static final NvmeStructLayout DISC_HDR = NvmeStructLayout.of("__le64 genctr", "__le64 numrec", "__le16 recfmt",
            "__u8 resv14[1006]");
    static final NvmeStructLayout DISC_ENTRY = NvmeStructLayout.of("__u8 trtype", "__u8 adrfam", "__u8 subtype",
            "__u8 treq", "__le16 portid", "__le16 cntlid", "__le16 asqsz", "__le16 eflags", "__u8 resv10[20]",
            "char trsvcid[32]", "__u8 resv64[192]", "char subnqn[256]", "char traddr[256]", "__u8 qptype", "__u8 prtype",
            "__u8 cms", "__u8 resv3[5]", "__u16 pkey", "__u8 resv10b[246]");
    static final NvmeStructLayout SMART_LOG = NvmeStructLayout.of("__u8 critical_warning", "__u8 temperature[2]",
            "__u8 avail_spare", "__u8 spare_thresh", "__u8 percent_used", "__u8 endu_grp_crit_warn_sumry",
            "__u8 rsvd7[25]", "__u8 data_units_read[16]", "__u8 data_units_written[16]", "__u8 host_reads[16]",
            "__u8 host_writes[16]", "__u8 ctrl_busy_time[16]", "__u8 power_cycles[16]", "__u8 power_on_hours[16]",
            "__u8 unsafe_shutdowns[16]", "__u8 media_errors[16]", "__u8 num_err_log_entries[16]",
            "__le32 warning_temp_time", "__le32 critical_comp_time", "__le16 temp_sensor[8]",
            "__le32 thm_temp1_trans_count", "__le32 thm_temp2_trans_count", "__le32 thm_temp1_total_time",
            "__le32 thm_temp2_total_time", "__u8 rsvd232[280]");
    static final NvmeStructLayout NS_ID_DESC = NvmeStructLayout.of("__u8 nidt", "__u8 nidl", "__le16 reserved");
    // Transcribed from include/linux/nvme-rdma.h (the newer header, with cntlid).
    static final NvmeStructLayout CM_REQ = NvmeStructLayout.of("__le16 recfmt", "__le16 qid", "__le16 hrqsize",
            "__le16 hsqsize", "__le16 cntlid", "u8 rsvd[22]");
    static final NvmeStructLayout CM_REP = NvmeStructLayout.of("__le16 recfmt", "__le16 crqsize", "u8 rsvd[28]");
    static final NvmeStructLayout CM_REJ = NvmeStructLayout.of("__le16 recfmt", "__le16 sts");

    @Test
    void sizesAreTheHeadersStructs() {
        assertEquals(COMMON_COMMAND.size(), NvmeSubmission.LENGTH);
        assertEquals(RW_COMMAND.size(), NvmeSubmission.LENGTH);
        assertEquals(CONNECT_COMMAND.size(), NvmeSubmission.LENGTH);
        assertEquals(PROPERTY_SET.size(), NvmeSubmission.LENGTH);
        assertEquals(PROPERTY_GET.size(), NvmeSubmission.LENGTH);
        assertEquals(FABRICS_COMMON.size(), NvmeSubmission.LENGTH);
        assertEquals(SGL_DESC.size(), NvmeSglDescriptor.LENGTH);
        assertEquals(KEYED_SGL_DESC.size(), NvmeSglDescriptor.LENGTH);
        assertEquals(COMPLETION.size(), NvmeCompletion.LENGTH);
        assertEquals(CONNECT_DATA.size(), NvmfConnectData.LENGTH);
        assertEquals(CM_REQ.size(), NvmeRdmaCmRequest.LENGTH);
        assertEquals(CM_REP.size(), NvmeRdmaCmReply.LENGTH);
        assertEquals(CM_REJ.size(), NvmeRdmaCmReject.LENGTH);
    }

    @Test
    void offsetsAreTheHeadersMembers() {
        assertEquals(COMMON_COMMAND.offsetOf("opcode"), NvmeSubmission.OPCODE_OFFSET);
        assertEquals(COMMON_COMMAND.offsetOf("flags"), NvmeSubmission.FLAGS_OFFSET);
        assertEquals(COMMON_COMMAND.offsetOf("command_id"), NvmeSubmission.COMMAND_ID_OFFSET);
        assertEquals(COMMON_COMMAND.offsetOf("nsid"), NvmeSubmission.NSID_OFFSET);
        assertEquals(COMMON_COMMAND.offsetOf("metadata"), NvmeSubmission.METADATA_OFFSET);
        assertEquals(COMMON_COMMAND.offsetOf("dptr"), NvmeSubmission.DPTR_OFFSET);
        assertEquals(COMMON_COMMAND.offsetOf("cdw10"), NvmeSubmission.CDW10_OFFSET);
        assertEquals(FABRICS_COMMON.offsetOf("fctype"), NvmeSubmission.FCTYPE_OFFSET);
        assertEquals(RW_COMMAND.offsetOf("slba"), NvmeSubmission.SLBA_OFFSET);
        assertEquals(RW_COMMAND.offsetOf("length"), NvmeSubmission.NLB_OFFSET);
        assertEquals(RW_COMMAND.offsetOf("control"), NvmeSubmission.CONTROL_OFFSET);
        assertEquals(RW_COMMAND.offsetOf("dsmgmt"), NvmeSubmission.DSMGMT_OFFSET);

        assertEquals(SGL_DESC.offsetOf("addr"), NvmeSglDescriptor.ADDRESS_OFFSET);
        assertEquals(SGL_DESC.offsetOf("length"), NvmeSglDescriptor.LENGTH_OFFSET);
        assertEquals(SGL_DESC.offsetOf("rsvd"), NvmeSglDescriptor.RESERVED_OFFSET);
        assertEquals(SGL_DESC.offsetOf("type"), NvmeSglDescriptor.IDENTIFIER_OFFSET);
        assertEquals(KEYED_SGL_DESC.offsetOf("length"), NvmeSglDescriptor.KEYED_LENGTH_OFFSET);
        assertEquals(KEYED_SGL_DESC.offsetOf("key"), NvmeSglDescriptor.KEY_OFFSET);
        assertEquals(KEYED_SGL_DESC.offsetOf("type"), NvmeSglDescriptor.IDENTIFIER_OFFSET);

        assertEquals(DSM_RANGE.size(), NvmeDsmRange.LENGTH);
        assertEquals(DSM_RANGE.offsetOf("cattr"), NvmeDsmRange.CONTEXT_ATTRIBUTES_OFFSET);
        assertEquals(DSM_RANGE.offsetOf("nlb"), NvmeDsmRange.BLOCKS_OFFSET);
        assertEquals(DSM_RANGE.offsetOf("slba"), NvmeDsmRange.LBA_OFFSET);

        assertEquals(COMPLETION.offsetOf("result"), NvmeCompletion.RESULT_OFFSET);
        assertEquals(COMPLETION.offsetOf("sq_head"), NvmeCompletion.SQ_HEAD_OFFSET);
        assertEquals(COMPLETION.offsetOf("sq_id"), NvmeCompletion.SQ_ID_OFFSET);
        assertEquals(COMPLETION.offsetOf("command_id"), NvmeCompletion.COMMAND_ID_OFFSET);
        assertEquals(COMPLETION.offsetOf("status"), NvmeCompletion.STATUS_OFFSET);

        assertEquals(CONNECT_COMMAND.offsetOf("dptr"), NvmeSubmission.DPTR_OFFSET);
        assertEquals(CONNECT_COMMAND.offsetOf("recfmt"), NvmfConnectCommand.RECFMT_OFFSET);
        assertEquals(CONNECT_COMMAND.offsetOf("qid"), NvmfConnectCommand.QID_OFFSET);
        assertEquals(CONNECT_COMMAND.offsetOf("sqsize"), NvmfConnectCommand.SQSIZE_OFFSET);
        assertEquals(CONNECT_COMMAND.offsetOf("cattr"), NvmfConnectCommand.CATTR_OFFSET);
        assertEquals(CONNECT_COMMAND.offsetOf("kato"), NvmfConnectCommand.KATO_OFFSET);
        assertEquals(CONNECT_DATA.offsetOf("hostid"), NvmfConnectData.HOST_ID_OFFSET);
        assertEquals(CONNECT_DATA.offsetOf("cntlid"), NvmfConnectData.CNTLID_OFFSET);
        assertEquals(CONNECT_DATA.offsetOf("subsysnqn"), NvmfConnectData.SUBSYSTEM_NQN_OFFSET);
        assertEquals(CONNECT_DATA.offsetOf("hostnqn"), NvmfConnectData.HOST_NQN_OFFSET);
        assertEquals(CONNECT_DATA.offsetOf("resv5") - CONNECT_DATA.offsetOf("hostnqn"), NvmfConnectData.NQN_FIELD_LENGTH);
        assertEquals(PROPERTY_SET.offsetOf("attrib"), NvmfPropertyCommand.ATTRIB_OFFSET);
        assertEquals(PROPERTY_SET.offsetOf("offset"), NvmfPropertyCommand.PROPERTY_OFFSET);
        assertEquals(PROPERTY_SET.offsetOf("value"), NvmfPropertyCommand.VALUE_OFFSET);
        assertEquals(PROPERTY_GET.offsetOf("attrib"), NvmfPropertyCommand.ATTRIB_OFFSET);
        assertEquals(PROPERTY_GET.offsetOf("offset"), NvmfPropertyCommand.PROPERTY_OFFSET);

        assertEquals(CM_REQ.offsetOf("recfmt"), NvmeRdmaCmRequest.RECFMT_OFFSET);
        assertEquals(CM_REQ.offsetOf("qid"), NvmeRdmaCmRequest.QID_OFFSET);
        assertEquals(CM_REQ.offsetOf("hrqsize"), NvmeRdmaCmRequest.HRQSIZE_OFFSET);
        assertEquals(CM_REQ.offsetOf("hsqsize"), NvmeRdmaCmRequest.HSQSIZE_OFFSET);
        assertEquals(CM_REQ.offsetOf("cntlid"), NvmeRdmaCmRequest.CNTLID_OFFSET);
        assertEquals(CM_REP.offsetOf("recfmt"), NvmeRdmaCmReply.RECFMT_OFFSET);
        assertEquals(CM_REP.offsetOf("crqsize"), NvmeRdmaCmReply.CRQSIZE_OFFSET);
        assertEquals(CM_REJ.offsetOf("recfmt"), NvmeRdmaCmReject.RECFMT_OFFSET);
        assertEquals(CM_REJ.offsetOf("sts"), NvmeRdmaCmReject.STATUS_OFFSET);
    }

    private static ByteBuffer image(final int length) {
        return ByteBuffer.allocate(length).order(ByteOrder.LITTLE_ENDIAN);
    }

    private static MemorySegment encodeSpace(final int length) {
        return MemorySegment.ofArray(new byte[length]);
    }

    private static byte[] bytes(final MemorySegment segment) {
        return segment.toArray(ValueLayout.JAVA_BYTE);
    }

    @Test
    void identifyStructuresAreTheHeadersMembers() {
        assertEquals(IDENTIFY.size(), NvmeSubmission.LENGTH);
        assertEquals(IDENTIFY.offsetOf("cns"), NvmeIdentify.CNS_OFFSET);
        assertEquals(IDENTIFY.offsetOf("ctrlid"), NvmeIdentify.CNTID_OFFSET);
        assertEquals(IDENTIFY.offsetOf("csi"), NvmeIdentify.CSI_OFFSET);
        assertEquals(NS_ID_DESC.size(), NvmeIdentify.DESCRIPTOR_HEADER_LENGTH);
        assertEquals(ID_CTRL.size(), NvmeIdentifyController.LENGTH);
        assertEquals(ID_CTRL.size(), NvmeIdentify.DATA_LENGTH);
        final String[][] controller = {{"vid", "VID"}, {"ssvid", "SSVID"}, {"sn", "SN"}, {"mn", "MN"}, {"fr", "FR"},
            {"rab", "RAB"}, {"ieee", "IEEE"}, {"cmic", "CMIC"}, {"mdts", "MDTS"}, {"cntlid", "CNTLID"}, {"ver", "VER"},
            {"oaes", "OAES"}, {"ctratt", "CTRATT"}, {"cntrltype", "CNTRLTYPE"}, {"acl", "ACL"}, {"aerl", "AERL"},
            {"lpa", "LPA"}, {"elpe", "ELPE"}, {"kas", "KAS"}, {"sqes", "SQES"}, {"cqes", "CQES"}, {"maxcmd", "MAXCMD"},
            {"nn", "NN"}, {"oncs", "ONCS"}, {"vwc", "VWC"}, {"sgls", "SGLS"}, {"subnqn", "SUBNQN"}, {"ioccsz", "IOCCSZ"},
            {"iorcsz", "IORCSZ"}, {"icdoff", "ICDOFF"}, {"ctrattr", "FCATT"}, {"msdbd", "MSDBD"}, {"psd", "PSD"}};
        for (final String[] field : controller) {
            assertEquals(ID_CTRL.offsetOf(field[0]), constant(NvmeIdentifyController.class, field[1] + "_OFFSET"), field[0]);
        }
        assertEquals(ID_CTRL.offsetOf("mn") - ID_CTRL.offsetOf("sn"), NvmeIdentifyController.SN_LENGTH);
        assertEquals(ID_CTRL.offsetOf("fr") - ID_CTRL.offsetOf("mn"), NvmeIdentifyController.MN_LENGTH);
        assertEquals(ID_CTRL.offsetOf("rab") - ID_CTRL.offsetOf("fr"), NvmeIdentifyController.FR_LENGTH);

        assertEquals(ID_NS.size(), NvmeIdentifyNamespace.LENGTH);
        final String[][] namespace = {{"nsze", "NSZE"}, {"ncap", "NCAP"}, {"nuse", "NUSE"}, {"nsfeat", "NSFEAT"},
            {"nlbaf", "NLBAF"}, {"flbas", "FLBAS"}, {"nmic", "NMIC"}, {"dlfeat", "DLFEAT"}, {"nsattr", "NSATTR"},
            {"nguid", "NGUID"}, {"eui64", "EUI64"}, {"lbaf", "LBAF"}};
        for (final String[] field : namespace) {
            assertEquals(ID_NS.offsetOf(field[0]), constant(NvmeIdentifyNamespace.class, field[1] + "_OFFSET"), field[0]);
        }
        assertEquals(LBAF.size(), NvmeIdentifyNamespace.LBAF_LENGTH);
        assertEquals(LBAF.offsetOf("ds"), NvmeIdentifyNamespace.LBAF_DATA_SIZE);
    }

    @Test
    void logPagesAreTheHeadersMembers() {
        assertEquals(GET_LOG_PAGE.size(), NvmeSubmission.LENGTH);
        assertEquals(GET_LOG_PAGE.offsetOf("lid"), NvmeGetLogPage.LID_OFFSET);
        assertEquals(GET_LOG_PAGE.offsetOf("lsp"), NvmeGetLogPage.LSP_OFFSET);
        assertEquals(GET_LOG_PAGE.offsetOf("numdl"), NvmeGetLogPage.NUMDL_OFFSET);
        assertEquals(GET_LOG_PAGE.offsetOf("numdu"), NvmeGetLogPage.NUMDU_OFFSET);
        assertEquals(GET_LOG_PAGE.offsetOf("lpo"), NvmeGetLogPage.LPO_OFFSET);
        assertEquals(DISC_HDR.size(), NvmfDiscoveryLog.RECORD_LENGTH);
        assertEquals(DISC_ENTRY.size(), NvmfDiscoveryLog.RECORD_LENGTH);
        assertEquals(DISC_HDR.offsetOf("genctr"), NvmfDiscoveryLog.GENCTR_OFFSET);
        assertEquals(DISC_HDR.offsetOf("numrec"), NvmfDiscoveryLog.NUMREC_OFFSET);
        assertEquals(DISC_HDR.offsetOf("recfmt"), NvmfDiscoveryLog.RECFMT_OFFSET);
        final String[][] entry = {{"trtype", "TRTYPE"}, {"adrfam", "ADRFAM"}, {"subtype", "SUBTYPE"}, {"treq", "TREQ"},
            {"portid", "PORTID"}, {"cntlid", "CNTLID"}, {"asqsz", "ASQSZ"}, {"trsvcid", "TRSVCID"}, {"subnqn", "SUBNQN"},
            {"traddr", "TRADDR"}, {"qptype", "RDMA_QPTYPE"}, {"prtype", "RDMA_PRTYPE"}, {"cms", "RDMA_CMS"},
            {"pkey", "RDMA_PKEY"}};
        for (final String[] field : entry) {
            assertEquals(DISC_ENTRY.offsetOf(field[0]), constant(NvmfDiscoveryLog.class, field[1] + "_OFFSET"), field[0]);
        }
        assertEquals(DISC_ENTRY.offsetOf("resv64") - DISC_ENTRY.offsetOf("trsvcid"), NvmfDiscoveryLog.TRSVCID_LENGTH);
        assertEquals(DISC_ENTRY.offsetOf("qptype") - DISC_ENTRY.offsetOf("traddr"), NvmfDiscoveryLog.TRADDR_LENGTH);
        assertEquals(SMART_LOG.size(), NvmeSmartLog.LENGTH);
        final String[][] smart = {{"critical_warning", "CRITICAL_WARNING"}, {"temperature", "TEMPERATURE"},
            {"avail_spare", "AVAILABLE_SPARE"}, {"spare_thresh", "SPARE_THRESHOLD"}, {"percent_used", "PERCENT_USED"},
            {"data_units_read", "DATA_UNITS_READ"}, {"data_units_written", "DATA_UNITS_WRITTEN"},
            {"host_reads", "HOST_READS"}, {"host_writes", "HOST_WRITES"}, {"power_on_hours", "POWER_ON_HOURS"},
            {"media_errors", "MEDIA_ERRORS"}, {"num_err_log_entries", "ERROR_LOG_ENTRIES"}};
        for (final String[] field : smart) {
            assertEquals(SMART_LOG.offsetOf(field[0]), constant(NvmeSmartLog.class, field[1] + "_OFFSET"), field[0]);
        }
    }

    @Test
    void aDiscoveryEntryAndAGetLogPageAreTheirBytes() {
        final ByteBuffer image = image(2048);
        image.putLong(DISC_HDR.offsetOf("genctr"), 5);
        image.putLong(DISC_HDR.offsetOf("numrec"), 1);
        final int e = NvmfDiscoveryLog.RECORD_LENGTH;
        image.put(e + DISC_ENTRY.offsetOf("trtype"), (byte) 1);
        image.put(e + DISC_ENTRY.offsetOf("adrfam"), (byte) 1);
        image.put(e + DISC_ENTRY.offsetOf("subtype"), (byte) 2);
        image.put(e + DISC_ENTRY.offsetOf("treq"), (byte) 2);
        image.putShort(e + DISC_ENTRY.offsetOf("portid"), (short) 1);
        image.putShort(e + DISC_ENTRY.offsetOf("cntlid"), (short) 0xFFFF);
        image.putShort(e + DISC_ENTRY.offsetOf("asqsz"), (short) 32);
        final byte[] port = "4420".getBytes(StandardCharsets.US_ASCII);
        for (int i = 0; i < NvmfDiscoveryLog.TRSVCID_LENGTH; i++) {
            image.put(e + DISC_ENTRY.offsetOf("trsvcid") + i, i < port.length ? port[i] : (byte) ' ');
        }
        image.put(e + DISC_ENTRY.offsetOf("subnqn"), "nqn.2026-12.org.rdmablock:a".getBytes(StandardCharsets.US_ASCII));
        final byte[] address = "192.0.2.15".getBytes(StandardCharsets.US_ASCII);
        for (int i = 0; i < NvmfDiscoveryLog.TRADDR_LENGTH; i++) {
            image.put(e + DISC_ENTRY.offsetOf("traddr") + i, i < address.length ? address[i] : (byte) ' ');
        }
        image.put(e + DISC_ENTRY.offsetOf("qptype"), (byte) 1);
        image.put(e + DISC_ENTRY.offsetOf("prtype"), (byte) 1);
        image.put(e + DISC_ENTRY.offsetOf("cms"), (byte) 1);
        final MemorySegment out = encodeSpace(2048);
        final NvmfDiscoveryLog log = new NvmfDiscoveryLog().wrap(out, 0).reset().setHeader(5, 1);
        final NvmfDiscoveryLog.Entry written = log.entry(new NvmfDiscoveryLog.Entry(), 0).reset()
                .setRdmaSubsystem("nqn.2026-12.org.rdmablock:a", "192.0.2.15", 4420, 1, 32);
        assertArrayEquals(image.array(), bytes(out));
        assertEquals("192.0.2.15", written.address());
        assertEquals("4420", written.serviceId());
        assertEquals("nqn.2026-12.org.rdmablock:a", written.subsystemNqn());

        final ByteBuffer get = image(64);
        get.put(GET_LOG_PAGE.offsetOf("lid"), (byte) 0x70);
        get.putShort(GET_LOG_PAGE.offsetOf("numdl"), (short) 0xFFFF);   // 0x1FFFF + 1 dwords = 512 KiB
        get.putShort(GET_LOG_PAGE.offsetOf("numdu"), (short) 0x0001);
        get.putLong(GET_LOG_PAGE.offsetOf("lpo"), 1024);
        final MemorySegment getOut = encodeSpace(64);
        final NvmeGetLogPage page = new NvmeGetLogPage().wrap(getOut, 0).set(NvmeGetLogPage.LOG_DISCOVERY, 512 << 10, 1024);
        assertArrayEquals(get.array(), bytes(getOut));
        assertEquals(512 << 10, page.bytes());
        assertEquals(1024, page.logOffset());
        assertThrows(IllegalArgumentException.class, () -> page.set(NvmeGetLogPage.LOG_SMART, 6, 0), "not whole dwords");

        final NvmeSmartLog smart = new NvmeSmartLog().wrap(encodeSpace(512), 0).reset()
                .setTraffic(512_001, 0, 3, 0).setHealth(310, 100, 10, 0);
        assertEquals(2, smart.dataUnitsRead(), "rounded up to whole units of 1000 sectors");
        assertEquals(310, smart.temperature());
    }

    @Test
    void anErrorLogEntryIsTheHeadersSlot() {
        assertEquals(ERROR_SLOT.size(), NvmeErrorLogEntry.LENGTH);
        final String[][] slot = {{"error_count", "ERROR_COUNT"}, {"sqid", "SQID"}, {"cmdid", "CMDID"},
            {"status_field", "STATUS"}, {"param_error_location", "PARAMETER_LOCATION"}, {"lba", "LBA"}, {"nsid", "NSID"}};
        for (final String[] field : slot) {
            assertEquals(ERROR_SLOT.offsetOf(field[0]), constant(NvmeErrorLogEntry.class, field[1] + "_OFFSET"), field[0]);
        }
        final ByteBuffer image = image(64);
        image.putLong(ERROR_SLOT.offsetOf("error_count"), 9);
        image.putShort(ERROR_SLOT.offsetOf("sqid"), (short) 2);
        image.putShort(ERROR_SLOT.offsetOf("cmdid"), (short) 0x42);
        image.putShort(ERROR_SLOT.offsetOf("status_field"), (short) (0x4080 << 1)); // LBA_RANGE | DNR, past the phase bit
        image.putShort(ERROR_SLOT.offsetOf("param_error_location"), (short) 0xFFFF);
        image.putLong(ERROR_SLOT.offsetOf("lba"), 77);
        image.putInt(ERROR_SLOT.offsetOf("nsid"), 1);
        final MemorySegment out = encodeSpace(64);
        final NvmeErrorLogEntry entry = new NvmeErrorLogEntry().wrap(out, 0).reset()
                .set(9, 2, 0x42, NvmeStatus.LBA_RANGE | NvmeStatus.DO_NOT_RETRY).setLocation(0xFFFF, 77, 1);
        assertArrayEquals(image.array(), bytes(out));
        assertEquals(NvmeStatus.LBA_RANGE | NvmeStatus.DO_NOT_RETRY, entry.status());
    }

    @Test
    void theNamespaceListsAreLittleEndianIdsAndTypedDescriptors() {
        final MemorySegment out = encodeSpace(4096);
        out.fill((byte) 0x55);
        assertEquals(2, NvmeNamespaceLists.writeActive(out, 0, new long[]{1, 2, 5}, 1), "ids above the command's nsid");
        final ByteBuffer active = image(4096);
        active.putInt(0, 2);
        active.putInt(4, 5);
        assertArrayEquals(active.array(), bytes(out), "the rest zeroes");

        assertEquals(1, NvmeNamespaceLists.writeChanged(out, 0, new long[1025]));
        assertEquals(0xFFFF_FFFFL, NvmeNamespaceLists.id(out, 0, 0), "overflowed");
        assertEquals(0, NvmeNamespaceLists.id(out, 0, 1));

        final byte[] nguid = new byte[16];
        final byte[] eui64 = new byte[8];
        java.util.Arrays.fill(nguid, (byte) 0xA1);
        java.util.Arrays.fill(eui64, (byte) 0xB2);
        assertEquals(4 + 16 + 4 + 8, NvmeNamespaceLists.writeDescriptors(out, 0, nguid, eui64));
        final ByteBuffer descriptors = image(4096);
        descriptors.put(NS_ID_DESC.offsetOf("nidt"), (byte) 0x02).put(NS_ID_DESC.offsetOf("nidl"), (byte) 16);
        descriptors.put(NS_ID_DESC.size(), nguid);
        final int second = NS_ID_DESC.size() + 16;
        descriptors.put(second + NS_ID_DESC.offsetOf("nidt"), (byte) 0x01).put(second + NS_ID_DESC.offsetOf("nidl"), (byte) 8);
        descriptors.put(second + NS_ID_DESC.size(), eui64);
        assertArrayEquals(descriptors.array(), bytes(out));
    }

    private static int constant(final Class<?> owner, final String name) {
        try {
            return owner.getField(name).getInt(null);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(owner.getSimpleName() + " has no " + name, e);
        }
    }

    @Test
    void anIdentifyControllerAndNamespaceAreTheirBytes() {
        final ByteBuffer image = image(4096);
        image.put(ID_CTRL.offsetOf("sn"), "SN-1                ".getBytes(StandardCharsets.US_ASCII));
        image.put(ID_CTRL.offsetOf("mn"), "rdmablock".getBytes(StandardCharsets.US_ASCII));
        for (int i = ID_CTRL.offsetOf("mn") + 9; i < ID_CTRL.offsetOf("fr"); i++) {
            image.put(i, (byte) ' ');
        }
        image.put(ID_CTRL.offsetOf("fr"), "1.0     ".getBytes(StandardCharsets.US_ASCII));
        image.put(ID_CTRL.offsetOf("mdts"), (byte) 8);
        image.putShort(ID_CTRL.offsetOf("cntlid"), (short) 7);
        image.putInt(ID_CTRL.offsetOf("ver"), 0x0001_0300);
        image.put(ID_CTRL.offsetOf("cntrltype"), (byte) 1);
        image.put(ID_CTRL.offsetOf("sqes"), (byte) 0x66);
        image.put(ID_CTRL.offsetOf("cqes"), (byte) 0x44);
        image.putShort(ID_CTRL.offsetOf("maxcmd"), (short) 128);
        image.putInt(ID_CTRL.offsetOf("nn"), 4);
        image.putShort(ID_CTRL.offsetOf("oncs"), (short) 0x000C);
        image.put(ID_CTRL.offsetOf("vwc"), (byte) 1);
        image.putInt(ID_CTRL.offsetOf("sgls"), 0x0010_0005);
        image.put(ID_CTRL.offsetOf("subnqn"), "nqn.2026-12.org.rdmablock:a".getBytes(StandardCharsets.US_ASCII));
        image.putInt(ID_CTRL.offsetOf("ioccsz"), 260);
        image.putInt(ID_CTRL.offsetOf("iorcsz"), 1);
        image.put(ID_CTRL.offsetOf("msdbd"), (byte) 1);
        final MemorySegment out = encodeSpace(4096);
        final NvmeIdentifyController ctrl = new NvmeIdentifyController().wrap(out, 0).reset()
                .setIdentity("SN-1", "rdmablock", "1.0").setMaxDataTransferSize(8).setControllerId(7)
                .setVersion(NvmeRegister.version(1, 3, 0)).setControllerType(NvmeIdentifyController.TYPE_IO)
                .setQueueEntries(0x66, 0x44, 128).setNamespaces(4)
                .setOptionalCommands(NvmeIdentifyController.ONCS_DSM | NvmeIdentifyController.ONCS_WRITE_ZEROES)
                .setVolatileWriteCache(NvmeIdentifyController.VWC_PRESENT)
                .setSglSupport(NvmeIdentifyController.SGLS_SUPPORTED | NvmeIdentifyController.SGLS_KEYED
                        | NvmeIdentifyController.SGLS_IN_CAPSULE)
                .setSubsystemNqn("nqn.2026-12.org.rdmablock:a").setCapsules(260, 1, 0, 0, 1);
        assertArrayEquals(image.array(), bytes(out));
        assertEquals("SN-1", ctrl.serialNumber());
        assertEquals("rdmablock", ctrl.modelNumber());
        assertEquals("nqn.2026-12.org.rdmablock:a", ctrl.subsystemNqn());
        assertEquals(260, ctrl.commandCapsuleSize());

        final ByteBuffer ns = image(4096);
        ns.putLong(ID_NS.offsetOf("nsze"), 2048);
        ns.putLong(ID_NS.offsetOf("ncap"), 2048);
        ns.putLong(ID_NS.offsetOf("nuse"), 2048);
        ns.put(ID_NS.offsetOf("nsfeat"), (byte) 1);
        ns.put(ID_NS.offsetOf("dlfeat"), (byte) 0x09);
        ns.put(ID_NS.offsetOf("lbaf") + LBAF.offsetOf("ds"), (byte) 12);
        final MemorySegment nsOut = encodeSpace(4096);
        final NvmeIdentifyNamespace identified = new NvmeIdentifyNamespace().wrap(nsOut, 0).reset()
                .setBlocks(2048, 2048, 2048).setFeatures(NvmeIdentifyNamespace.FEATURE_THIN).setOnlyLbaFormat(4096)
                .setDeallocateFeatures(NvmeIdentifyNamespace.DEALLOCATED_READS_ZEROES
                        | NvmeIdentifyNamespace.WRITE_ZEROES_DEALLOCATES);
        assertArrayEquals(ns.array(), bytes(nsOut));
        assertEquals(1, identified.lbaFormats());
        assertEquals(0, identified.formatInUse());
        assertEquals(4096, identified.blockSize(0));
        assertThrows(IllegalArgumentException.class, () -> identified.setOnlyLbaFormat(1000));
    }

    @Test
    void aWriteWithAKeyedSglIsTheBytesLinuxSends() {
        // the image: nvme_rw_command with a keyed SGL (addr, 24-bit length, 32-bit key, type 0x40), as the header lays it
        final ByteBuffer image = image(64);
        image.put(RW_COMMAND.offsetOf("opcode"), (byte) 0x01);
        image.put(RW_COMMAND.offsetOf("flags"), (byte) 0x40);
        image.putShort(RW_COMMAND.offsetOf("command_id"), (short) 0xBEEF);
        image.putInt(RW_COMMAND.offsetOf("nsid"), 3);
        final int dptr = RW_COMMAND.offsetOf("dptr");
        image.putLong(dptr + KEYED_SGL_DESC.offsetOf("addr"), 0x7F00_1234_5678_9000L);
        image.put(dptr + KEYED_SGL_DESC.offsetOf("length"), (byte) 0x00);          // 0x100000 = 1 MiB, LE
        image.put(dptr + KEYED_SGL_DESC.offsetOf("length") + 1, (byte) 0x00);
        image.put(dptr + KEYED_SGL_DESC.offsetOf("length") + 2, (byte) 0x10);
        image.putInt(dptr + KEYED_SGL_DESC.offsetOf("key"), 0xCAFE_F00D);
        image.put(dptr + KEYED_SGL_DESC.offsetOf("type"), (byte) 0x40);
        image.putLong(RW_COMMAND.offsetOf("slba"), 0x1_0000_0001L);
        image.putShort(RW_COMMAND.offsetOf("length"), (short) 255);                 // 256 blocks, 0's based
        image.putShort(RW_COMMAND.offsetOf("control"), (short) 0x4000);             // FUA

        final MemorySegment out = encodeSpace(64);
        final NvmeSubmission sqe = new NvmeSubmission().wrap(out, 0).reset().setOpcode(NvmeOpcode.WRITE)
                .setFlags(NvmeSubmission.FLAGS_SGL_METABUF).setCommandId(0xBEEF).setNsid(3)
                .setStartingLba(0x1_0000_0001L).setBlocks(256).setControl(NvmeSubmission.CONTROL_FUA);
        sqe.sgl(new NvmeSglDescriptor()).setKeyed(0x7F00_1234_5678_9000L, 1 << 20, 0xCAFE_F00DL, false);
        assertArrayEquals(image.array(), bytes(out));

        final NvmeSubmission decoded = new NvmeSubmission().wrap(MemorySegment.ofArray(image.array()), 0);
        assertEquals(NvmeOpcode.WRITE, decoded.opcode());
        assertEquals(0xBEEF, decoded.commandId());
        assertEquals(3, decoded.nsid());
        assertEquals(0x1_0000_0001L, decoded.startingLba());
        assertEquals(256, decoded.blocks());
        assertEquals(NvmeSubmission.CONTROL_FUA, decoded.control());
        final NvmeSglDescriptor sgl = decoded.sgl(new NvmeSglDescriptor());
        assertEquals(NvmeSglDescriptor.TYPE_KEYED_DATA_BLOCK, sgl.type());
        assertEquals(NvmeSglDescriptor.SUBTYPE_ADDRESS, sgl.subtype());
        assertEquals(0x7F00_1234_5678_9000L, sgl.address());
        assertEquals(1 << 20, sgl.keyedLength());
        assertEquals(0xCAFE_F00DL, sgl.key());
    }

    @Test
    void anInCapsuleSglAndAnInvalidatingOneAreTheirTypeBytes() {
        final ByteBuffer image = image(16);
        image.putLong(SGL_DESC.offsetOf("addr"), 0);
        image.putInt(SGL_DESC.offsetOf("length"), 4096);
        image.put(SGL_DESC.offsetOf("type"), (byte) 0x01);
        final MemorySegment out = encodeSpace(16);
        out.fill((byte) 0x55); // the reserved bytes are written too
        new NvmeSglDescriptor().wrap(out, 0).setInCapsule(0, 4096);
        assertArrayEquals(image.array(), bytes(out));
        final NvmeSglDescriptor decoded = new NvmeSglDescriptor().wrap(MemorySegment.ofArray(image.array()), 0);
        assertEquals(NvmeSglDescriptor.TYPE_DATA_BLOCK, decoded.type());
        assertEquals(NvmeSglDescriptor.SUBTYPE_OFFSET, decoded.subtype());
        assertEquals(4096, decoded.length());

        final NvmeSglDescriptor invalidating = new NvmeSglDescriptor().wrap(encodeSpace(16), 0).setKeyed(1, 512, 7, true);
        assertEquals(0x4F, invalidating.identifier());
        assertThrows(IllegalArgumentException.class, () -> invalidating.setKeyed(1, 1 << 24, 7, false));
    }

    @Test
    void aCompletionCarriesTheStatusPastThePhaseTag() {
        final ByteBuffer image = image(16);
        image.putLong(COMPLETION.offsetOf("result"), 0x1234);
        image.putShort(COMPLETION.offsetOf("sq_head"), (short) 0xFFFF);
        image.putShort(COMPLETION.offsetOf("sq_id"), (short) 2);
        image.putShort(COMPLETION.offsetOf("command_id"), (short) 0xBEEF);
        image.putShort(COMPLETION.offsetOf("status"), (short) 0x8004); // INVALID_FIELD | DNR, shifted past the phase bit
        final MemorySegment out = encodeSpace(16);
        new NvmeCompletion().wrap(out, 0).reset().setResult(0x1234).setSqHead(0xFFFF).setSqId(2).setCommandId(0xBEEF)
                .setStatus(NvmeStatus.INVALID_FIELD | NvmeStatus.DO_NOT_RETRY);
        assertArrayEquals(image.array(), bytes(out));
        final NvmeCompletion decoded = new NvmeCompletion().wrap(MemorySegment.ofArray(image.array()), 0);
        assertEquals(NvmeStatus.INVALID_FIELD | NvmeStatus.DO_NOT_RETRY, decoded.status());
        assertEquals(0, decoded.phase());
        assertEquals(0x1234, decoded.result32());
    }

    @Test
    void aConnectAndItsDataAreTheBytesLinuxSends() {
        final ByteBuffer command = image(64);
        command.put(CONNECT_COMMAND.offsetOf("opcode"), (byte) 0x7F);
        command.put(CONNECT_COMMAND.offsetOf("fctype"), (byte) 0x01);
        command.putShort(CONNECT_COMMAND.offsetOf("qid"), (short) 3);
        command.putShort(CONNECT_COMMAND.offsetOf("sqsize"), (short) 127);
        command.put(CONNECT_COMMAND.offsetOf("cattr"), (byte) 0x04);
        command.putInt(CONNECT_COMMAND.offsetOf("kato"), 5000);
        final MemorySegment out = encodeSpace(64);
        new NvmeSubmission().wrap(out, 0).reset().setOpcode(NvmeOpcode.FABRICS).setFabricsType(NvmfCommandType.CONNECT);
        new NvmfConnectCommand().wrap(out, 0).setRecordFormat(NvmfConnectCommand.RECFMT_1_0).setQueueId(3)
                .setQueueSize(128).setAttributes(NvmfConnectCommand.CATTR_DISABLE_SQ_FLOW_CONTROL)
                .setKeepAliveTimeoutMillis(5000);
        assertArrayEquals(command.array(), bytes(out));
        final NvmfConnectCommand connect = new NvmfConnectCommand().wrap(MemorySegment.ofArray(command.array()), 0);
        assertEquals(3, connect.queueId());
        assertEquals(128, connect.queueSize());
        assertEquals(5000, connect.keepAliveTimeoutMillis());

        final ByteBuffer data = image(1024);
        final byte[] hostId = new byte[16];
        for (int i = 0; i < hostId.length; i++) {
            hostId[i] = (byte) (0xA0 + i);
        }
        data.put(CONNECT_DATA.offsetOf("hostid"), hostId);
        data.putShort(CONNECT_DATA.offsetOf("cntlid"), (short) 0xFFFF);
        data.put(CONNECT_DATA.offsetOf("subsysnqn"), "nqn.2026-12.org.rdmablock:disk".getBytes(StandardCharsets.US_ASCII));
        data.put(CONNECT_DATA.offsetOf("hostnqn"), "nqn.2014-08.org.nvmexpress:uuid:1".getBytes(StandardCharsets.US_ASCII));
        final MemorySegment dataOut = encodeSpace(1024);
        new NvmfConnectData().wrap(dataOut, 0).reset().setHostId(hostId).setControllerId(NvmfConnectData.CNTLID_DYNAMIC)
                .setSubsystemNqn("nqn.2026-12.org.rdmablock:disk").setHostNqn("nqn.2014-08.org.nvmexpress:uuid:1");
        assertArrayEquals(data.array(), bytes(dataOut));
        final NvmfConnectData decoded = new NvmfConnectData().wrap(MemorySegment.ofArray(data.array()), 0);
        assertEquals("nqn.2026-12.org.rdmablock:disk", decoded.subsystemNqn());
        assertEquals("nqn.2014-08.org.nvmexpress:uuid:1", decoded.hostNqn());
        assertEquals(NvmfConnectData.CNTLID_DYNAMIC, decoded.controllerId());
        assertArrayEquals(hostId, decoded.hostId().toArray(ValueLayout.JAVA_BYTE));
        assertThrows(IllegalArgumentException.class, () -> decoded.setHostNqn("n".repeat(256)), "no room for its NUL");
    }

    @Test
    void propertyGetAndSetAreTheirFields() {
        final ByteBuffer image = image(64);
        image.put(PROPERTY_SET.offsetOf("opcode"), (byte) 0x7F);
        image.put(PROPERTY_SET.offsetOf("fctype"), (byte) 0x00);
        image.putInt(PROPERTY_SET.offsetOf("offset"), 0x14);
        image.putLong(PROPERTY_SET.offsetOf("value"), 0x0046_0001L);
        final MemorySegment out = encodeSpace(64);
        new NvmeSubmission().wrap(out, 0).reset().setOpcode(NvmeOpcode.FABRICS).setFabricsType(NvmfCommandType.PROPERTY_SET);
        new NvmfPropertyCommand().wrap(out, 0).setProperty(NvmeRegister.CC).setValue(0x0046_0001L);
        assertArrayEquals(image.array(), bytes(out));
        final NvmfPropertyCommand get = new NvmfPropertyCommand().wrap(encodeSpace(64), 0)
                .setAttributes(NvmfPropertyCommand.SIZE_8_BYTES).setProperty(NvmeRegister.CAP);
        assertEquals(8, get.size());
        assertEquals(NvmeRegister.CAP, get.property());
    }

    @Test
    void theRdmaCmPrivateDataAreTheHeadersBytes() {
        final ByteBuffer request = image(32);
        request.putShort(CM_REQ.offsetOf("qid"), (short) 1);
        request.putShort(CM_REQ.offsetOf("hrqsize"), (short) 128);
        request.putShort(CM_REQ.offsetOf("hsqsize"), (short) 127);
        request.putShort(CM_REQ.offsetOf("cntlid"), (short) 5);
        final MemorySegment out = encodeSpace(32);
        new NvmeRdmaCmRequest().wrap(out, 0).reset().setQueueId(1).setHostReceiveQueueSize(128).setHostSendQueueSize(128)
                .setControllerId(5);
        assertArrayEquals(request.array(), bytes(out));
        final NvmeRdmaCmRequest decoded = new NvmeRdmaCmRequest().wrap(MemorySegment.ofArray(request.array()), 0);
        assertEquals(0, decoded.refusal(32));
        assertEquals(NvmeRdmaCmReject.INVALID_LENGTH, decoded.refusal(31));
        assertEquals(128, decoded.hostSendQueueSize());
        request.putShort(CM_REQ.offsetOf("recfmt"), (short) 1);
        assertEquals(NvmeRdmaCmReject.INVALID_RECORD_FORMAT, decoded.refusal(32));

        final ByteBuffer reply = image(32);
        reply.putShort(CM_REP.offsetOf("crqsize"), (short) 128);
        final MemorySegment replyOut = encodeSpace(32);
        new NvmeRdmaCmReply().wrap(replyOut, 0).reset().setControllerReceiveQueueSize(128);
        assertArrayEquals(reply.array(), bytes(replyOut));

        final ByteBuffer reject = image(4);
        reject.putShort(CM_REJ.offsetOf("sts"), (short) 0x04);
        final MemorySegment rejectOut = encodeSpace(4);
        new NvmeRdmaCmReject().wrap(rejectOut, 0).reset().setStatus(NvmeRdmaCmReject.INVALID_HOST_SEND_QUEUE_SIZE);
        assertArrayEquals(reject.array(), bytes(rejectOut));
    }
}

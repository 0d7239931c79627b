package org.rdmablock.protocol.nvme;

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
 * Every wire constant of the NVMe codecs against a literal copied from Linux's {@code include/linux/nvme.h} and
 * {@code include/linux/nvme-rdma.h} (recent: {@code NVME_STATUS_DNR}, the cm request's {@code cntlid}), never from our
 * own constants. Field offsets are {@link NvmeLayoutTest}'s job. Disconnect's type is the NVMe over Fabrics 1.1
 * specification's (Linux has none).
 */
class NvmeConstantsTest {
    private static final List<Pin> OPCODES = List.of(
            pin(NvmeOpcode.class, "GET_LOG_PAGE", 0x02, "nvme_admin_get_log_page"),
            pin(NvmeOpcode.class, "IDENTIFY", 0x06, "nvme_admin_identify"),
            pin(NvmeOpcode.class, "ABORT", 0x08, "nvme_admin_abort_cmd"),
            pin(NvmeOpcode.class, "SET_FEATURES", 0x09, "nvme_admin_set_features"),
            pin(NvmeOpcode.class, "GET_FEATURES", 0x0a, "nvme_admin_get_features"),
            pin(NvmeOpcode.class, "ASYNC_EVENT", 0x0c, "nvme_admin_async_event"),
            pin(NvmeOpcode.class, "KEEP_ALIVE", 0x18, "nvme_admin_keep_alive"),
            pin(NvmeOpcode.class, "FABRICS", 0x7f, "nvme_fabrics_command"),
            pin(NvmeOpcode.class, "FLUSH", 0x00, "nvme_cmd_flush"),
            pin(NvmeOpcode.class, "WRITE", 0x01, "nvme_cmd_write"),
            pin(NvmeOpcode.class, "READ", 0x02, "nvme_cmd_read"),
            pin(NvmeOpcode.class, "COMPARE", 0x05, "nvme_cmd_compare"),
            pin(NvmeOpcode.class, "WRITE_ZEROES", 0x08, "nvme_cmd_write_zeroes"),
            pin(NvmeOpcode.class, "DATASET_MANAGEMENT", 0x09, "nvme_cmd_dsm"),
            pin(NvmfCommandType.class, "PROPERTY_SET", 0x00, "nvme_fabrics_type_property_set"),
            pin(NvmfCommandType.class, "CONNECT", 0x01, "nvme_fabrics_type_connect"),
            pin(NvmfCommandType.class, "PROPERTY_GET", 0x04, "nvme_fabrics_type_property_get"),
            pin(NvmfCommandType.class, "AUTHENTICATION_SEND", 0x05, "nvme_fabrics_type_auth_send"),
            pin(NvmfCommandType.class, "AUTHENTICATION_RECEIVE", 0x06, "nvme_fabrics_type_auth_receive"),
            pin(NvmfCommandType.class, "DISCONNECT", 0x08, "NVMe-oF 1.1 Disconnect (no Linux name)"));

    private static final List<Pin> FLAGS = List.of(
            pin(NvmeSubmission.class, "FLAGS_SGL_METABUF", 1 << 6, "NVME_CMD_SGL_METABUF"),
            pin(NvmeSubmission.class, "FLAGS_SGL_METASEG", 1 << 7, "NVME_CMD_SGL_METASEG"),
            pin(NvmeSubmission.class, "FLAGS_PSDT_MASK", 0xC0, "NVME_CMD_SGL_ALL"),
            pin(NvmeSubmission.class, "FLAGS_FUSE_MASK", (1 << 0) | (1 << 1), "NVME_CMD_FUSE_FIRST | NVME_CMD_FUSE_SECOND"),
            pin(NvmeSubmission.class, "CONTROL_FUA", 1 << 14, "NVME_RW_FUA"),
            pin(NvmeSubmission.class, "CONTROL_LIMITED_RETRY", 1 << 15, "NVME_RW_LR"),
            pin(NvmeSubmission.class, "CONTROL_DEALLOCATE", 1 << 9, "NVME_WZ_DEAC"),
            pin(NvmfConnectCommand.class, "CATTR_DISABLE_SQ_FLOW_CONTROL", 1 << 2, "NVME_CONNECT_DISABLE_SQFLOW"),
            pin(NvmfConnectCommand.class, "RECFMT_1_0", 0x0, "recfmt 0 (NVME_RDMA_CM_FMT_1_0)"),
            pin(NvmfPropertyCommand.class, "SIZE_8_BYTES", 1, "attrib bit 0 (nvmet: attrib & 1, an 8-byte property)"),
            pin(NvmfConnectData.class, "CNTLID_DYNAMIC", 0xffff, "NVME_CNTLID_DYNAMIC"),
            pin(NvmfConnectData.class, "CNTLID_MIN", 1, "NVME_CNTLID_MIN"),
            pin(NvmfConnectData.class, "CNTLID_MAX", 0xffef, "NVME_CNTLID_MAX"),
            pin(NvmfConnectData.class, "NQN_FIELD_LENGTH", 256, "NVMF_NQN_FIELD_LEN"),
            pin(NvmfConnectData.class, "NQN_MAX_LENGTH", 223, "NVMF_NQN_SIZE"),
            pin(NvmfConnectData.class, "HOST_ID_LENGTH", 16, "uuid_t hostid"));

    private static final List<Pin> SGL = List.of(
            pin(NvmeSglDescriptor.class, "TYPE_DATA_BLOCK", 0x0, "NVME_SGL_FMT_DATA_DESC"),
            pin(NvmeSglDescriptor.class, "TYPE_SEGMENT", 0x2, "NVME_SGL_FMT_SEG_DESC"),
            pin(NvmeSglDescriptor.class, "TYPE_LAST_SEGMENT", 0x3, "NVME_SGL_FMT_LAST_SEG_DESC"),
            pin(NvmeSglDescriptor.class, "TYPE_KEYED_DATA_BLOCK", 0x4, "NVME_KEY_SGL_FMT_DATA_DESC"),
            pin(NvmeSglDescriptor.class, "TYPE_TRANSPORT_DATA_BLOCK", 0x5, "NVME_TRANSPORT_SGL_DATA_DESC"),
            pin(NvmeSglDescriptor.class, "SUBTYPE_ADDRESS", 0x0, "NVME_SGL_FMT_ADDRESS"),
            pin(NvmeSglDescriptor.class, "SUBTYPE_OFFSET", 0x1, "NVME_SGL_FMT_OFFSET"),
            pin(NvmeSglDescriptor.class, "SUBTYPE_TRANSPORT_A", 0xA, "NVME_SGL_FMT_TRANSPORT_A"),
            pin(NvmeSglDescriptor.class, "SUBTYPE_INVALIDATE", 0xf, "NVME_SGL_FMT_INVALIDATE"),
            pin(NvmeSglDescriptor.class, "MAX_KEYED_LENGTH", 0xffffff, "__u8 length[3] (put_unaligned_le24)"));

    private static final List<Pin> STATUS = List.of(
            pin(NvmeStatus.class, "SUCCESS", 0x0, "NVME_SC_SUCCESS"),
            pin(NvmeStatus.class, "INVALID_OPCODE", 0x1, "NVME_SC_INVALID_OPCODE"),
            pin(NvmeStatus.class, "INVALID_FIELD", 0x2, "NVME_SC_INVALID_FIELD"),
            pin(NvmeStatus.class, "COMMAND_ID_CONFLICT", 0x3, "NVME_SC_CMDID_CONFLICT"),
            pin(NvmeStatus.class, "DATA_TRANSFER_ERROR", 0x4, "NVME_SC_DATA_XFER_ERROR"),
            pin(NvmeStatus.class, "INTERNAL", 0x6, "NVME_SC_INTERNAL"),
            pin(NvmeStatus.class, "ABORT_REQUESTED", 0x7, "NVME_SC_ABORT_REQ"),
            pin(NvmeStatus.class, "INVALID_NAMESPACE", 0xb, "NVME_SC_INVALID_NS"),
            pin(NvmeStatus.class, "COMMAND_SEQUENCE_ERROR", 0xc, "NVME_SC_CMD_SEQ_ERROR"),
            pin(NvmeStatus.class, "SGL_INVALID_LAST", 0xd, "NVME_SC_SGL_INVALID_LAST"),
            pin(NvmeStatus.class, "SGL_INVALID_COUNT", 0xe, "NVME_SC_SGL_INVALID_COUNT"),
            pin(NvmeStatus.class, "SGL_INVALID_DATA", 0xf, "NVME_SC_SGL_INVALID_DATA"),
            pin(NvmeStatus.class, "SGL_INVALID_METADATA", 0x10, "NVME_SC_SGL_INVALID_METADATA"),
            pin(NvmeStatus.class, "SGL_INVALID_TYPE", 0x11, "NVME_SC_SGL_INVALID_TYPE"),
            pin(NvmeStatus.class, "SGL_INVALID_OFFSET", 0x16, "NVME_SC_SGL_INVALID_OFFSET"),
            pin(NvmeStatus.class, "KEEP_ALIVE_TIMEOUT_EXPIRED", 0x19, "NVME_SC_KA_TIMEOUT_EXPIRED"),
            pin(NvmeStatus.class, "NAMESPACE_WRITE_PROTECTED", 0x20, "NVME_SC_NS_WRITE_PROTECTED"),
            pin(NvmeStatus.class, "LBA_RANGE", 0x80, "NVME_SC_LBA_RANGE"),
            pin(NvmeStatus.class, "CAPACITY_EXCEEDED", 0x81, "NVME_SC_CAP_EXCEEDED"),
            pin(NvmeStatus.class, "NAMESPACE_NOT_READY", 0x82, "NVME_SC_NS_NOT_READY"),
            pin(NvmeStatus.class, "RESERVATION_CONFLICT", 0x83, "NVME_SC_RESERVATION_CONFLICT"),
            pin(NvmeStatus.class, "QUEUE_ID_INVALID", 0x101, "NVME_SC_QID_INVALID"),
            pin(NvmeStatus.class, "QUEUE_SIZE_INVALID", 0x102, "NVME_SC_QUEUE_SIZE"),
            pin(NvmeStatus.class, "ASYNC_EVENT_LIMIT", 0x105, "NVME_SC_ASYNC_LIMIT"),
            pin(NvmeStatus.class, "INVALID_LOG_PAGE", 0x109, "NVME_SC_INVALID_LOG_PAGE"),
            pin(NvmeStatus.class, "FEATURE_NOT_SAVEABLE", 0x10d, "NVME_SC_FEATURE_NOT_SAVEABLE"),
            pin(NvmeStatus.class, "CONNECT_FORMAT", 0x180, "NVME_SC_CONNECT_FORMAT"),
            pin(NvmeStatus.class, "CONNECT_CONTROLLER_BUSY", 0x181, "NVME_SC_CONNECT_CTRL_BUSY"),
            pin(NvmeStatus.class, "CONNECT_INVALID_PARAMETER", 0x182, "NVME_SC_CONNECT_INVALID_PARAM"),
            pin(NvmeStatus.class, "CONNECT_RESTART_DISCOVERY", 0x183, "NVME_SC_CONNECT_RESTART_DISC"),
            pin(NvmeStatus.class, "CONNECT_INVALID_HOST", 0x184, "NVME_SC_CONNECT_INVALID_HOST"),
            pin(NvmeStatus.class, "WRITE_FAULT", 0x280, "NVME_SC_WRITE_FAULT"),
            pin(NvmeStatus.class, "READ_ERROR", 0x281, "NVME_SC_READ_ERROR"),
            pin(NvmeStatus.class, "COMPARE_FAILED", 0x285, "NVME_SC_COMPARE_FAILED"),
            pin(NvmeStatus.class, "ACCESS_DENIED", 0x286, "NVME_SC_ACCESS_DENIED"),
            pin(NvmeStatus.class, "TYPE_GENERIC", 0x000, "NVME_SCT_GENERIC"),
            pin(NvmeStatus.class, "TYPE_COMMAND_SPECIFIC", 0x100, "NVME_SCT_COMMAND_SPECIFIC"),
            pin(NvmeStatus.class, "TYPE_MEDIA", 0x200, "NVME_SCT_MEDIA_ERROR"),
            pin(NvmeStatus.class, "TYPE_PATH", 0x300, "NVME_SCT_PATH"),
            pin(NvmeStatus.class, "TYPE_MASK", 0x700, "NVME_SCT_MASK"),
            pin(NvmeStatus.class, "MORE", 0x2000, "NVME_STATUS_MORE"),
            pin(NvmeStatus.class, "DO_NOT_RETRY", 0x4000, "NVME_STATUS_DNR"),
            pin(NvmeStatus.class, "CONNECT_DATA_FIELD", 1 << 16, "IPO_IATTR_CONNECT_DATA's (1 << 16) (nvmet.h)"));

    private static final List<Pin> REGISTERS = List.of(
            pin(NvmeRegister.class, "CAP", 0x0000, "NVME_REG_CAP"),
            pin(NvmeRegister.class, "VS", 0x0008, "NVME_REG_VS"),
            pin(NvmeRegister.class, "CC", 0x0014, "NVME_REG_CC"),
            pin(NvmeRegister.class, "CSTS", 0x001c, "NVME_REG_CSTS"),
            pin(NvmeRegister.class, "CC_ENABLE", 1 << 0, "NVME_CC_ENABLE"),
            pin(NvmeRegister.class, "CC_SHUTDOWN_MASK", 3 << 14, "NVME_CC_SHN_MASK"),
            pin(NvmeRegister.class, "CC_SHUTDOWN_NORMAL", 1 << 14, "NVME_CC_SHN_NORMAL"),
            pin(NvmeRegister.class, "CC_IOSQES_NVM", 6 << 16, "NVME_CC_IOSQES = NVME_NVM_IOSQES << NVME_CC_IOSQES_SHIFT"),
            pin(NvmeRegister.class, "CC_IOCQES_NVM", 4 << 20, "NVME_CC_IOCQES = NVME_NVM_IOCQES << NVME_CC_IOCQES_SHIFT"),
            pin(NvmeRegister.class, "CSTS_READY", 1 << 0, "NVME_CSTS_RDY"),
            pin(NvmeRegister.class, "CSTS_FATAL", 1 << 1, "NVME_CSTS_CFS"),
            pin(NvmeRegister.class, "CSTS_SHUTDOWN_COMPLETE", 2 << 2, "NVME_CSTS_SHST_CMPLT"),
            pin(NvmeRegister.class, "CAP_MQES_MASK", 0xffff, "NVME_CAP_MQES(cap) = cap & 0xffff"),
            pin(NvmeRegister.class, "CAP_TIMEOUT_SHIFT", 24, "NVME_CAP_TIMEOUT(cap) = (cap >> 24) & 0xff"),
            pin(NvmeRegister.class, "CAP_MPSMIN_SHIFT", 48, "NVME_CAP_MPSMIN(cap) = (cap >> 48) & 0xf"),
            pin(NvmeRegister.class, "CAP_CSS_NVM", 1L << 37, "NVME_CAP_CSS_NVM at NVME_CAP_CSS(cap) = (cap >> 37)"));

    private static final List<Pin> IDENTIFY = List.of(
            pin(NvmeIdentify.class, "CNS_NAMESPACE", 0x00, "NVME_ID_CNS_NS"),
            pin(NvmeIdentify.class, "CNS_CONTROLLER", 0x01, "NVME_ID_CNS_CTRL"),
            pin(NvmeIdentify.class, "CNS_ACTIVE_NAMESPACES", 0x02, "NVME_ID_CNS_NS_ACTIVE_LIST"),
            pin(NvmeIdentify.class, "CNS_NAMESPACE_DESCRIPTORS", 0x03, "NVME_ID_CNS_NS_DESC_LIST"),
            pin(NvmeIdentify.class, "NSID_ALL", 0xffffffffL, "NVME_NSID_ALL"),
            pin(NvmeIdentify.class, "NIDT_EUI64", 0x01, "NVME_NIDT_EUI64"),
            pin(NvmeIdentify.class, "NIDT_NGUID", 0x02, "NVME_NIDT_NGUID"),
            pin(NvmeIdentify.class, "NIDT_UUID", 0x03, "NVME_NIDT_UUID"),
            pin(NvmeIdentify.class, "NIDT_CSI", 0x04, "NVME_NIDT_CSI"),
            pin(NvmeIdentify.class, "DATA_LENGTH", 4096, "NVME_IDENTIFY_DATA_SIZE"),
            pin(NvmeIdentify.class, "DESCRIPTOR_HEADER_LENGTH", 4, "sizeof(struct nvme_ns_id_desc)"),
            pin(NvmeIdentifyController.class, "LENGTH", 4096, "sizeof(struct nvme_id_ctrl)"),
            pin(NvmeIdentifyController.class, "SN_LENGTH", 20, "char sn[20]"),
            pin(NvmeIdentifyController.class, "MN_LENGTH", 40, "char mn[40]"),
            pin(NvmeIdentifyController.class, "FR_LENGTH", 8, "char fr[8]"),
            pin(NvmeIdentifyController.class, "TYPE_IO", 1, "NVME_CTRL_IO"),
            pin(NvmeIdentifyController.class, "TYPE_DISCOVERY", 2, "NVME_CTRL_DISC"),
            pin(NvmeIdentifyController.class, "ONCS_COMPARE", 1 << 0, "NVME_CTRL_ONCS_COMPARE"),
            pin(NvmeIdentifyController.class, "ONCS_DSM", 1 << 2, "NVME_CTRL_ONCS_DSM"),
            pin(NvmeIdentifyController.class, "ONCS_WRITE_ZEROES", 1 << 3, "NVME_CTRL_ONCS_WRITE_ZEROES"),
            pin(NvmeIdentifyController.class, "VWC_PRESENT", 1 << 0, "NVME_CTRL_VWC_PRESENT"),
            pin(NvmeIdentifyController.class, "SGLS_SUPPORTED", 1, "NVME_CTRL_SGLS_BYTE_ALIGNED"),
            pin(NvmeIdentifyController.class, "SGLS_KEYED", 1 << 2, "NVME_CTRL_SGLS_KSDBDS"),
            pin(NvmeIdentifyController.class, "SGLS_IN_CAPSULE", 1 << 20, "NVME_CTRL_SGLS_SAOS"),
            pin(NvmeIdentifyController.class, "CMIC_MULTI_CONTROLLER", 1 << 1, "NVME_CTRL_CMIC_MULTI_CTRL"),
            pin(NvmeIdentifyController.class, "OAES_NAMESPACE_ATTRIBUTES", 1 << 8, "NVME_AEN_CFG_NS_ATTR"),
            pin(NvmeIdentifyController.class, "CTRATT_HOST_ID_128", 1 << 0, "NVME_CTRL_ATTR_HID_128_BIT"),
            pin(NvmeIdentifyNamespace.class, "LENGTH", 4096, "sizeof(struct nvme_id_ns)"),
            pin(NvmeIdentifyNamespace.class, "LBAF_LENGTH", 4, "sizeof(struct nvme_lbaf)"),
            pin(NvmeIdentifyNamespace.class, "LBAF_DATA_SIZE", 2, "struct nvme_lbaf: __le16 ms, then __u8 ds"),
            pin(NvmeIdentifyNamespace.class, "FEATURE_THIN", 1 << 0, "NVME_NS_FEAT_THIN"),
            pin(NvmeIdentifyNamespace.class, "NMIC_SHARED", 1 << 0, "NVME_NS_NMIC_SHARED"),
            pin(NvmeIdentifyNamespace.class, "ATTRIBUTE_WRITE_PROTECTED", 1 << 0, "nsattr bit 0 (NVMe Base 2.0: write protected)"),
            pin(NvmeIdentifyNamespace.class, "DEALLOCATED_READS_ZEROES", 0x1, "DLFEAT bits 2:0 = 001b (NVMe Base 2.0; no Linux name)"),
            pin(NvmeIdentifyNamespace.class, "WRITE_ZEROES_DEALLOCATES", 1 << 3, "DLFEAT bit 3 (NVMe Base 2.0; no Linux name)"));

    private static final List<Pin> LOG_PAGES = List.of(
            pin(NvmeGetLogPage.class, "LOG_ERROR", 0x01, "NVME_LOG_ERROR"),
            pin(NvmeGetLogPage.class, "LOG_SMART", 0x02, "NVME_LOG_SMART"),
            pin(NvmeGetLogPage.class, "LOG_CHANGED_NAMESPACES", 0x04, "NVME_LOG_CHANGED_NS"),
            pin(NvmeGetLogPage.class, "LOG_DISCOVERY", 0x70, "NVME_LOG_DISC"),
            pin(NvmeGetLogPage.class, "CHANGED_NAMESPACES_MAX", 1024, "NVME_MAX_CHANGED_NAMESPACES"),
            pin(NvmeGetLogPage.class, "CHANGED_NAMESPACES_OVERFLOW", 0xffffffffL,
                    "nvmet: list[0] = cpu_to_le32(~0U) on overflow"),
            pin(NvmfDiscoveryLog.class, "RECORD_LENGTH", 1024, "sizeof(struct nvmf_disc_rsp_page_entry)"),
            pin(NvmfDiscoveryLog.class, "TRSVCID_LENGTH", 32, "NVMF_TRSVCID_SIZE"),
            pin(NvmfDiscoveryLog.class, "TRADDR_LENGTH", 256, "NVMF_TRADDR_SIZE"),
            pin(NvmfDiscoveryLog.class, "TRANSPORT_RDMA", 1, "NVMF_TRTYPE_RDMA"),
            pin(NvmfDiscoveryLog.class, "ADDRESS_FAMILY_IPV4", 1, "NVMF_ADDR_FAMILY_IP4"),
            pin(NvmfDiscoveryLog.class, "ADDRESS_FAMILY_IPV6", 2, "NVMF_ADDR_FAMILY_IP6"),
            pin(NvmfDiscoveryLog.class, "SUBSYSTEM_DISCOVERY", 1, "NVME_NQN_DISC"),
            pin(NvmfDiscoveryLog.class, "SUBSYSTEM_NVME", 2, "NVME_NQN_NVME"),
            pin(NvmfDiscoveryLog.class, "SUBSYSTEM_CURRENT_DISCOVERY", 3, "NVME_NQN_CURR"),
            pin(NvmfDiscoveryLog.class, "TREQ_NOT_REQUIRED", 2, "NVMF_TREQ_NOT_REQUIRED"),
            pin(NvmfDiscoveryLog.class, "RDMA_QPTYPE_CONNECTED", 1, "NVMF_RDMA_QPTYPE_CONNECTED"),
            pin(NvmfDiscoveryLog.class, "RDMA_PRTYPE_NOT_SPECIFIED", 1, "NVMF_RDMA_PRTYPE_NOT_SPECIFIED"),
            pin(NvmfDiscoveryLog.class, "RDMA_CMS_RDMA_CM", 1, "NVMF_RDMA_CMS_RDMA_CM"),
            pin(NvmeSmartLog.class, "LENGTH", 512, "sizeof(struct nvme_smart_log)"),
            pin(NvmeSmartLog.class, "DATA_UNIT_BYTES", 512_000, "nvmet: data units = DIV_ROUND_UP(sectors, 1000)"),
            pin(NvmeCapsuleDecoder.class, "TOO_SHORT", -1, "none: the decoder's own answer, outside every status"),
            pin(NvmeErrorLogEntry.class, "LENGTH", 64, "sizeof(struct nvme_error_slot)"),
            pin(NvmeNamespaceLists.class, "MAX_IDS", 1024, "NVME_IDENTIFY_DATA_SIZE / sizeof(__le32)"));

    private static final List<Pin> RDMA_CM = List.of(
            pin(NvmeRdmaCmReject.class, "INVALID_LENGTH", 0x01, "NVME_RDMA_CM_INVALID_LEN"),
            pin(NvmeRdmaCmReject.class, "INVALID_RECORD_FORMAT", 0x02, "NVME_RDMA_CM_INVALID_RECFMT"),
            pin(NvmeRdmaCmReject.class, "INVALID_QUEUE_ID", 0x03, "NVME_RDMA_CM_INVALID_QID"),
            pin(NvmeRdmaCmReject.class, "INVALID_HOST_SEND_QUEUE_SIZE", 0x04, "NVME_RDMA_CM_INVALID_HSQSIZE"),
            pin(NvmeRdmaCmReject.class, "INVALID_HOST_RECEIVE_QUEUE_SIZE", 0x05, "NVME_RDMA_CM_INVALID_HRQSIZE"),
            pin(NvmeRdmaCmReject.class, "NO_RESOURCES", 0x06, "NVME_RDMA_CM_NO_RSC"),
            pin(NvmeRdmaCmReject.class, "INVALID_IRD", 0x07, "NVME_RDMA_CM_INVALID_IRD"),
            pin(NvmeRdmaCmReject.class, "INVALID_ORD", 0x08, "NVME_RDMA_CM_INVALID_ORD"),
            pin(NvmeRdmaCmReject.class, "INVALID_CONTROLLER_ID", 0x09, "NVME_RDMA_CM_INVALID_CNTLID"));

    // Sizes: NVMe's fixed sizes as the specification and the headers' comments give them (nvme.h BUILD_BUG_ONs in
    // drivers/nvme/host/core.c: _nvme_check_size), never our layout helper.
    private static final List<Pin> SIZES = List.of(
            pin(NvmeSubmission.class, "LENGTH", 64, "sizeof(struct nvme_command)"),
            pin(NvmeCompletion.class, "LENGTH", 16, "sizeof(struct nvme_completion)"),
            pin(NvmeSglDescriptor.class, "LENGTH", 16, "sizeof(struct nvme_sgl_desc)"),
            pin(NvmfConnectData.class, "LENGTH", 1024, "sizeof(struct nvmf_connect_data)"),
            pin(NvmeRdmaCmRequest.class, "LENGTH", 32, "sizeof(struct nvme_rdma_cm_req)"),
            pin(NvmeRdmaCmReply.class, "LENGTH", 32, "sizeof(struct nvme_rdma_cm_rep)"),
            pin(NvmeRdmaCmReject.class, "LENGTH", 4, "sizeof(struct nvme_rdma_cm_rej)"));

    private static final List<Pin> FEATURES = List.of(
            pin(NvmeFeature.class, "FID_MASK", 0xff, "nvmet: le32_to_cpu(cmd->common.cdw10) & 0xff"),
            pin(NvmeFeature.class, "VOLATILE_WRITE_CACHE", 0x06, "NVME_FEAT_VOLATILE_WC"),
            pin(NvmeFeature.class, "NUMBER_OF_QUEUES", 0x07, "NVME_FEAT_NUM_QUEUES"),
            pin(NvmeFeature.class, "ASYNC_EVENT_CONFIGURATION", 0x0b, "NVME_FEAT_ASYNC_EVENT"),
            pin(NvmeFeature.class, "KEEP_ALIVE_TIMER", 0x0f, "NVME_FEAT_KATO"),
            pin(NvmeFeature.class, "NAMESPACE_ATTRIBUTE_NOTICES", 1 << 8, "NVME_AEN_CFG_NS_ATTR"),
            pin(NvmeFeature.class, "EVENT_NAMESPACE_ATTRIBUTE_CHANGED", 0x2 | 0x0 << 8 | 0x04 << 16,
                    "NVME_AER_NOTICE | NVME_AER_NOTICE_NS_CHANGED << 8 | NVME_LOG_CHANGED_NS << 16 (nvmet_add_async_event)"),
            pin(NvmeFeature.class, "DSM_RANGES_MASK", 0xff, "nvmet: le32_to_cpu(cmd->dsm.nr) (8 bits, 0's based)"),
            pin(NvmeFeature.class, "DSM_DEALLOCATE", 1 << 2, "NVME_DSMGMT_AD"),
            pin(NvmeFeature.class, "DSM_MAX_RANGES", 256, "NVME_DSM_MAX_RANGES"),
            pin(NvmeDsmRange.class, "LENGTH", 16, "struct nvme_dsm_range (cattr, nlb, slba)"));

    private static final List<List<Pin>> ALL = List.of(OPCODES, FLAGS, SGL, STATUS, REGISTERS, IDENTIFY, LOG_PAGES, RDMA_CM,
            SIZES, FEATURES);

    @Test
    void opcodesAndFabricsTypes() {
        check(OPCODES);
    }

    @Test
    void flagsAndFieldValues() {
        check(FLAGS);
    }

    @Test
    void sglDescriptorTypes() {
        check(SGL);
    }

    @Test
    void statusCodes() {
        check(STATUS);
    }

    @Test
    void registers() {
        check(REGISTERS);
    }

    @Test
    void identifyValues() {
        check(IDENTIFY);
    }

    @Test
    void logPages() {
        check(LOG_PAGES);
    }

    @Test
    void rdmaCmRejectStatuses() {
        check(RDMA_CM);
    }

    @Test
    void featuresAndDatasetManagement() {
        check(FEATURES);
    }

    @Test
    void sizes() {
        check(SIZES);
    }

    @Test
    void everyConstantIsPinned() throws IOException, URISyntaxException {
        assertTrue(HeaderPins.packageClasses(NvmeOpcode.class).size() >= 12);
        assertEquals(Set.of(), HeaderPins.unpinned(NvmeOpcode.class, ALL), "constants without a literal from the headers");
    }
}

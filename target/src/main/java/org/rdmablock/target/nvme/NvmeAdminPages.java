package org.rdmablock.target.nvme;

import org.rdmablock.protocol.nvme.NvmeGetLogPage;
import org.rdmablock.protocol.nvme.NvmeIdentify;
import org.rdmablock.protocol.nvme.NvmeIdentifyController;
import org.rdmablock.protocol.nvme.NvmeIdentifyNamespace;
import org.rdmablock.protocol.nvme.NvmeNamespaceLists;
import org.rdmablock.protocol.nvme.NvmeRegister;
import org.rdmablock.protocol.nvme.NvmeSmartLog;
import org.rdmablock.protocol.nvme.NvmfConnectData;
import org.rdmablock.protocol.nvme.NvmfDiscoveryLog;
import org.rdmablock.protocol.scsi.LogicalUnit;
import org.rdmablock.protocol.scsi.LogicalUnitTable;
import org.rdmablock.protocol.scsi.LunAddress;
import org.rdmablock.protocol.nvme.NvmeSubmission;
import org.rdmablock.target.config.NvmeConfig;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * What the NVMe front end's admin commands answer with, built through {@code protocol/nvme}'s flyweights: the
 * controller's properties (CAP, VS), Identify Controller, Identify Namespace, the active namespace list and a
 * namespace's identification descriptors, and the log pages (error, SMART / health, changed namespace list,
 * discovery). The values follow Linux's nvmet-rdma where the standard leaves a choice (in-capsule data of 4 KiB on I/O
 * queues, one keyed SGL descriptor, keyed and in-capsule SGLs).
 *
 * <p>Thread: the intake stage's (admin commands are answered there); its scratch memory is its own.
 */
final class NvmeAdminPages {
    /** The NVMe version the controllers report: 1.3 (namespace identification descriptors, the Fabrics commands). */
    static final int VERSION = NvmeRegister.version(1, 3, 0);
    /** CAP.TO, in 500 ms units: how long a host waits for CSTS.RDY (nvmet's 15). */
    static final long READY_TIMEOUT_UNITS = 15;
    /** In-capsule data an I/O queue takes after each entry: nvmet-rdma's default inline data size. */
    static final int IN_CAPSULE_BYTES = 4096;
    /** Keep Alive granularity in 100 ms units (nvmet's). */
    static final int KEEP_ALIVE_GRANULARITY = 10;
    /** Submission and completion entry sizes, required and most, as log2: 64 and 16 bytes only. */
    static final int SQ_ENTRY_SIZES = 0x66;
    static final int CQ_ENTRY_SIZES = 0x44;
    /** Identify Controller's LPA: extended data for Get Log Page (NUMDU, the log page offset). */
    static final int LOG_PAGE_EXTENDED_DATA = 1 << 2;
    /** The admin queue's largest size a discovery log entry advertises (Linux's NVME_AQ_DEPTH). */
    static final int ADMIN_QUEUE_ENTRIES = 32;
    /** Firmware revision: the target's, up to 8 characters. */
    private static final String FIRMWARE = firmware();

    private final NvmeIdentifyController controller = new NvmeIdentifyController();
    private final NvmeIdentifyNamespace namespace = new NvmeIdentifyNamespace();
    private final NvmeSmartLog smart = new NvmeSmartLog();
    private final NvmfDiscoveryLog discovery = new NvmfDiscoveryLog();
    private final NvmfDiscoveryLog.Entry entry = new NvmfDiscoveryLog.Entry();
    private final long maxTransferBytes;
    private final int queueEntries;
    private MemorySegment scratch = Arena.ofAuto().allocate(16 * 1024, 8);

    NvmeAdminPages(final long maxTransferBytes, final int queueEntries) {
        this.maxTransferBytes = maxTransferBytes;
        this.queueEntries = queueEntries;
    }

    /** CAP: the NVM command set, CAP.TO, the most entries a queue may have (0's based). */
    long capabilities() {
        return NvmeRegister.CAP_CSS_NVM | READY_TIMEOUT_UNITS << NvmeRegister.CAP_TIMEOUT_SHIFT | (queueEntries - 1);
    }

    /** MDTS for a transfer of {@code bytes}: a power of two of the 4 KiB minimum page size (CAP.MPSMIN 0), rounded down. */
    static int maxDataTransferExponent(final long bytes) {
        return Math.max(1, 63 - Long.numberOfLeadingZeros(bytes / 4096)); // 0 would mean no limit
    }

    /**
     * The largest transfer {@code c} may announce: the target's I/O size, and no more than the smallest maximum transfer
     * of the logical units it serves now, since NVMe has one limit per controller where SCSI has one per LUN (a
     * namespace added later with a smaller one refuses the larger commands with Invalid Field).
     */
    long maxTransferBytes(final NvmeController c, final LogicalUnitTable units) {
        long bytes = maxTransferBytes;
        for (int lun = 0; lun <= LunAddress.MAX_LUN; lun++) {
            final LogicalUnit unit = c.serves(lun) ? units.get(lun) : null;
            if (unit != null) {
                bytes = Math.min(bytes, unit.config().maxTransferBytes());
            }
        }
        return bytes;
    }

    /** Identify Controller (CNS 01h) of {@code c}, serving {@code units}, into {@code out}. */
    void identifyController(final MemorySegment out, final long at, final NvmeController c, final LogicalUnitTable units) {
        controller.wrap(out, at).reset();
        final boolean discoveryController = c.isDiscovery();
        controller.setVendorIds(0, 0)
                .setIdentity(discoveryController ? "" : c.subsystem.serial(),
                        discoveryController ? NvmeConfig.Subsystem.DEFAULT_MODEL : c.subsystem.model(), FIRMWARE)
                .setMaxDataTransferSize(maxDataTransferExponent(c.isDiscovery() ? maxTransferBytes : maxTransferBytes(c, units)))
                .setControllerId(c.id)
                .setVersion(VERSION)
                .setControllerType(discoveryController ? NvmeIdentifyController.TYPE_DISCOVERY : NvmeIdentifyController.TYPE_IO)
                .setLimits(3, NvmeController.MAX_EVENT_REQUESTS - 1, LOG_PAGE_EXTENDED_DATA, 0)
                .setKeepAliveGranularity(KEEP_ALIVE_GRANULARITY)
                .setQueueEntries(SQ_ENTRY_SIZES, CQ_ENTRY_SIZES, queueEntries)
                .setSglSupport(NvmeIdentifyController.SGLS_SUPPORTED | NvmeIdentifyController.SGLS_KEYED
                        | NvmeIdentifyController.SGLS_IN_CAPSULE)
                .setSubsystemNqn(discoveryController ? NvmfConnectData.DISCOVERY_NQN : c.subsystem.nqn())
                .setCapsules((NvmeSubmission.LENGTH + IN_CAPSULE_BYTES) / 16, 1, 0, 0, 1);
        if (!discoveryController) {
            controller.setMultiPath(NvmeIdentifyController.CMIC_MULTI_CONTROLLER)
                    .setAsyncEventsSupported(NvmeIdentifyController.OAES_NAMESPACE_ATTRIBUTES)
                    .setAttributes(NvmeIdentifyController.CTRATT_HOST_ID_128)
                    .setNamespaces(LunAddress.MAX_LUN + 1)
                    .setOptionalCommands(NvmeIdentifyController.ONCS_COMPARE | NvmeIdentifyController.ONCS_DSM
                        | NvmeIdentifyController.ONCS_WRITE_ZEROES)
                    .setVolatileWriteCache(NvmeIdentifyController.VWC_PRESENT);
        }
    }

    /** Identify Namespace (CNS 00h) of {@code unit} into {@code out}. */
    void identifyNamespace(final MemorySegment out, final long at, final LogicalUnit unit) {
        namespace.wrap(out, at).reset();
        final long blocks = unit.blockCount();
        final boolean thin = unit.config().thinProvisioning();
        namespace.setBlocks(blocks, blocks, blocks)
                .setFeatures(thin ? NvmeIdentifyNamespace.FEATURE_THIN : 0)
                .setOnlyLbaFormat(unit.config().blockSize())
                .setSharing(NvmeIdentifyNamespace.NMIC_SHARED)
                .setDeallocateFeatures(thin ? NvmeIdentifyNamespace.DEALLOCATED_READS_ZEROES
                        | NvmeIdentifyNamespace.WRITE_ZEROES_DEALLOCATES : 0)
                .setAttributes(unit.writeProtected() ? NvmeIdentifyNamespace.ATTRIBUTE_WRITE_PROTECTED : 0)
                .setIdentifiers(nguid(unit), new byte[8]);
    }

    /** The active namespace list (CNS 02h) of {@code c} after {@code after} into {@code out}. */
    void activeNamespaces(final MemorySegment out, final long at, final NvmeController c, final LogicalUnitTable units,
                          final long after) {
        NvmeNamespaceLists.writeActive(out, at, namespaceIds(c, units), after);
    }

    /** The identification descriptors (CNS 03h) of {@code unit}: its NGUID. */
    void namespaceDescriptors(final MemorySegment out, final long at, final LogicalUnit unit) {
        NvmeNamespaceLists.writeDescriptors(out, at, nguid(unit), null);
    }

    /** The ids of the namespaces {@code c} serves, ascending. */
    static long[] namespaceIds(final NvmeController c, final LogicalUnitTable units) {
        int n = 0;
        for (int lun = 0; lun <= LunAddress.MAX_LUN; lun++) {
            n += c.serves(lun) && units.get(lun) != null ? 1 : 0;
        }
        final long[] ids = new long[n]; // counted first: an array as long as the list, not one per possible LUN
        int at = 0;
        for (int lun = 0; lun <= LunAddress.MAX_LUN && at < n; lun++) {
            if (c.serves(lun) && units.get(lun) != null) {
                ids[at++] = lun + 1L;
            }
        }
        return at == n ? ids : java.util.Arrays.copyOf(ids, at);
    }

    /** A namespace's NGUID: its logical unit's NAA identifier, which SCSI reports for it too. */
    private static byte[] nguid(final LogicalUnit unit) {
        return java.util.Arrays.copyOf(unit.config().naaIdentifier(), 16);
    }

    /**
     * The log page {@code lid} of {@code c}, whole, in scratch memory; returns its length, or -1 for a log page the
     * controller does not have.
     */
    long logPage(final int lid, final NvmeController c, final LogicalUnitTable units, final NvmeTarget.Listening listening) {
        switch (lid) {
            case NvmeGetLogPage.LOG_ERROR -> {
                return zeroed(64); // no errors kept: one empty entry (ELPE 0)
            }
            case NvmeGetLogPage.LOG_SMART -> {
                zeroed(NvmeSmartLog.LENGTH);
                smart.wrap(scratch, 0).reset();
                return NvmeSmartLog.LENGTH;
            }
            case NvmeGetLogPage.LOG_CHANGED_NAMESPACES -> {
                zeroed(NvmeIdentify.DATA_LENGTH);
                NvmeNamespaceLists.writeChanged(scratch, 0, c.namespacesChanged ? namespaceIds(c, units) : new long[0]);
                c.namespacesChanged = false;
                return NvmeIdentify.DATA_LENGTH;
            }
            case NvmeGetLogPage.LOG_DISCOVERY -> {
                if (!c.isDiscovery()) {
                    return -1;
                }
                // the subsystems this host may connect to, as nvmet lists only those (nvmet_host_allowed)
                int records = 0;
                for (final NvmeConfig.Subsystem subsystem : listening.subsystems()) {
                    records += subsystem.allows(c.hostNqn) ? 1 : 0;
                }
                final int length = NvmfDiscoveryLog.RECORD_LENGTH * (records + 1);
                zeroed(length);
                discovery.wrap(scratch, 0).reset();
                discovery.setHeader(listening.generation(), records);
                // the address the host reached: listen.address may be a wildcard or a name, no traddr to connect to
                final String address = c.adminQueue.localAddress != null ? c.adminQueue.localAddress : listening.address();
                int record = 0;
                for (final NvmeConfig.Subsystem subsystem : listening.subsystems()) {
                    if (subsystem.allows(c.hostNqn)) {
                        discovery.entry(entry, record++).reset().setRdmaSubsystem(subsystem.nqn(), address,
                                listening.port(), 1, ADMIN_QUEUE_ENTRIES);
                    }
                }
                return length;
            }
            default -> {
                return -1;
            }
        }
    }

    /** The scratch memory {@link #logPage} wrote into. */
    MemorySegment scratch() {
        return scratch;
    }

    private long zeroed(final long length) {
        if (scratch.byteSize() < length) {
            scratch = Arena.ofAuto().allocate(length, 8);
        }
        scratch.asSlice(0, length).fill((byte) 0);
        return length;
    }

    private static String firmware() {
        final String version = NvmeAdminPages.class.getPackage().getImplementationVersion();
        final String v = version == null ? "dev" : version;
        return v.length() > NvmeIdentifyController.FR_LENGTH ? v.substring(0, NvmeIdentifyController.FR_LENGTH) : v;
    }
}

package org.rdmablock.target.nvme;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.rdmablock.protocol.nvme.NvmeDsmRange;
import org.rdmablock.protocol.nvme.NvmeFeature;
import org.rdmablock.protocol.nvme.NvmeGetLogPage;
import org.rdmablock.protocol.nvme.NvmeIdentify;
import org.rdmablock.protocol.nvme.NvmeIdentifyController;
import org.rdmablock.protocol.nvme.NvmeIdentifyNamespace;
import org.rdmablock.protocol.nvme.NvmeNamespaceLists;
import org.rdmablock.protocol.nvme.NvmeOpcode;
import org.rdmablock.protocol.nvme.NvmeRdmaCmReject;
import org.rdmablock.protocol.nvme.NvmeRegister;
import org.rdmablock.protocol.nvme.NvmeStatus;
import org.rdmablock.protocol.nvme.NvmeSubmission;
import org.rdmablock.protocol.nvme.NvmfConnectData;
import org.rdmablock.protocol.nvme.NvmfDiscoveryLog;
import org.rdmablock.protocol.scsi.InMemoryBackend;
import org.rdmablock.protocol.scsi.LogicalUnit;
import org.rdmablock.protocol.scsi.LogicalUnitConfig;
import org.rdmablock.protocol.scsi.LogicalUnitTable;
import org.rdmablock.target.config.ChannelConfig;
import org.rdmablock.target.config.IdentityConfig;
import org.rdmablock.target.config.ListenConfig;
import org.rdmablock.target.config.NvmeConfig;
import org.rdmablock.target.config.PipelineConfig;
import org.rdmablock.target.config.TargetConfig;
import org.rdmablock.target.config.TimeoutConfig;
import org.rdmablock.target.metrics.TargetStatistics;
import org.rdmablock.verbs.ConnectionRejectedException;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.rdmablock.target.Waiting.waitUpTo;

/**
 * The NVMe front end against a minimal host ({@link TestNvmeHost}) on the soft provider over loopback, the way Linux's
 * nvme-rdma drives a controller: Connect, the properties, Identify, Set Features, an I/O queue, then Read, Write,
 * Flush, Write Zeroes and Dataset Management on two namespaces (LUN 0: 512-byte blocks, thin; LUN 1: 4 KiB blocks),
 * and every refusal with its NVMe status.
 */
class NvmeTargetTest {
    static final String NQN = "nqn.2026-12.org.rdmablock:test";
    static final String OTHER_NQN = "nqn.2026-12.org.rdmablock:only-lun1";
    static final String LOCKED_NQN = "nqn.2026-12.org.rdmablock:locked";
    static final int CREDITS = 32;
    static final long LUN_BYTES = 16L << 20;
    private static final int OK = NvmeStatus.SUCCESS;
    private static final int DNR = NvmeStatus.DO_NOT_RETRY;

    private NvmeTarget target;
    private TargetStatistics statistics;
    private LogicalUnitTable units;
    private final List<TestNvmeHost> hosts = new ArrayList<>();

    @BeforeEach
    void start() {
        units = new LogicalUnitTable();
        units.add(new LogicalUnit(0, LogicalUnitConfig.builder().serialNumber("lun0").blockSize(512).thinProvisioning(true)
                .maxTransferBytes(1 << 20).build(), new InMemoryBackend(LUN_BYTES)));
        units.add(new LogicalUnit(1, LogicalUnitConfig.builder().serialNumber("lun1").blockSize(4096)
                .maxTransferBytes(1 << 20).build(), new InMemoryBackend(LUN_BYTES)));
        final TargetConfig config = new TargetConfig("<test>", new ListenConfig(TestNvmeHost.PROVIDER, TestNvmeHost.ADDRESS, 0),
                new IdentityConfig(1, 2), new ChannelConfig(CREDITS, 8276, 1 << 20, true, 8192, 8),
                new PipelineConfig(4096, 256, 2, PipelineConfig.ReceiveQueueMode.PER_CHANNEL, PipelineConfig.CompletionMode.POLL),
                new TimeoutConfig(Duration.ZERO, Duration.ZERO), List.of());
        final NvmeConfig nvme = new NvmeConfig(0, List.of(
                new NvmeConfig.Subsystem(NQN, "SN-TEST-1", "rdmablock test", List.of(), Set.of()),
                new NvmeConfig.Subsystem(OTHER_NQN, "SN-TEST-2", "rdmablock test", List.of(1), Set.of()),
                new NvmeConfig.Subsystem(LOCKED_NQN, "SN-TEST-3", "rdmablock test", List.of(), Set.of("nqn.2026-12.example:someone-else"))));
        statistics = new TargetStatistics();
        target = NvmeTarget.start(config, nvme, units, statistics);
    }

    @AfterEach
    void stop() {
        hosts.forEach(TestNvmeHost::close);
        target.close();
    }

    private TestNvmeHost queue(final int queueId, final int entries) {
        final TestNvmeHost host = new TestNvmeHost(null, address(), queueId, entries, 4L << 20);
        hosts.add(host);
        return host;
    }

    private InetSocketAddress address() {
        return new InetSocketAddress(TestNvmeHost.ADDRESS, target.localAddress().getPort());
    }

    /** An admin queue connected to {@code subsystem} and enabled (CC.EN, CSTS.RDY), as nvme-rdma leaves it; returns it. */
    private TestNvmeHost enabledAdmin(final String subsystem) {
        final TestNvmeHost admin = queue(0, 32);
        final TestNvmeHost.Completion connected = admin.connect(subsystem, NvmfConnectData.CNTLID_DYNAMIC, 0);
        assertEquals(OK, connected.status(), "Connect");
        assertEquals(OK, admin.propertySet(NvmeRegister.CC, NvmeRegister.CC_ENABLE | 6 << 16 | 4 << 20).status());
        return admin;
    }

    @Test
    void aHostConnectsEnablesAndIdentifiesTheController() {
        final TestNvmeHost admin = queue(0, 32);
        assertEquals(32, admin.controllerReceiveQueueSize, "crqsize: the admin queue's receives");
        final TestNvmeHost.Completion connected = admin.connect(NQN, NvmfConnectData.CNTLID_DYNAMIC, 5_000);
        assertEquals(OK, connected.status());
        final int controllerId = (int) (connected.result() & 0xFFFF);
        assertTrue(controllerId >= NvmfConnectData.CNTLID_MIN && controllerId <= NvmfConnectData.CNTLID_MAX, "cntlid " + controllerId);

        final TestNvmeHost.Completion cap = admin.propertyGet(NvmeRegister.CAP, true);
        assertEquals(OK, cap.status());
        assertEquals(CREDITS - 1, cap.result() & NvmeRegister.CAP_MQES_MASK, "MQES: the channel credits, 0's based");
        assertEquals(NvmeRegister.CAP_CSS_NVM, cap.result() & NvmeRegister.CAP_CSS_NVM);
        assertEquals(NvmeRegister.version(1, 3, 0), admin.propertyGet(NvmeRegister.VS, false).result());
        assertEquals(0, admin.propertyGet(NvmeRegister.CSTS, false).result() & NvmeRegister.CSTS_READY, "not ready before CC.EN");
        assertEquals(NvmeStatus.INVALID_FIELD | DNR, admin.propertyGet(NvmeRegister.CSTS, true).status(),
                "CSTS has 4 bytes: an 8-byte Get is refused, as nvmet refuses it");
        assertEquals(NvmeStatus.INVALID_FIELD | DNR, admin.propertyGet(NvmeRegister.CAP, false).status(), "CAP has 8");
        assertEquals(NvmeStatus.COMMAND_SEQUENCE_ERROR | DNR,
                admin.admin(NvmeOpcode.IDENTIFY, 0, NvmeIdentify.CNS_CONTROLLER, 0, 0, 4096).status(), "Identify before CC.EN");
        assertEquals(OK, admin.propertySet(NvmeRegister.CC, NvmeRegister.CC_ENABLE).status());
        assertEquals(NvmeRegister.CSTS_READY, admin.propertyGet(NvmeRegister.CSTS, false).result() & NvmeRegister.CSTS_READY);

        final TestNvmeHost.Completion identified = admin.admin(NvmeOpcode.IDENTIFY, 0, NvmeIdentify.CNS_CONTROLLER, 0, 0, 4096);
        assertEquals(OK, identified.status());
        final NvmeIdentifyController id = new NvmeIdentifyController().wrap(admin.buffer(), 0);
        assertEquals(controllerId, id.controllerId(), "Identify's cntlid is Connect's (nvme core refuses a mismatch)");
        assertEquals(NQN, id.subsystemNqn());
        assertEquals("SN-TEST-1", id.serialNumber());
        assertEquals("rdmablock test", id.modelNumber());
        assertEquals(NvmeIdentifyController.TYPE_IO, id.controllerType());
        assertEquals(260, id.commandCapsuleSize(), "IOCCSZ: 64 + 4096 bytes in 16-byte units, as nvmet-rdma");
        assertEquals(1, id.responseCapsuleSize());
        assertEquals(0, id.inCapsuleDataOffset(), "nvme-rdma refuses a nonzero ICDOFF");
        assertEquals(NvmeIdentifyController.SGLS_KEYED, id.sglSupport() & NvmeIdentifyController.SGLS_KEYED,
                "nvme-rdma refuses a controller without keyed SGLs");
        assertEquals(8, id.maxDataTransferSize(), "MDTS: 1 MiB in 4 KiB pages");
        assertEquals(0x66, id.submissionEntrySizes());
        assertEquals(0x44, id.completionEntrySizes());
        assertTrue(id.maxCommands() > 0, "MAXCMD (nvme core refuses 0)");
        assertEquals(NvmeIdentifyController.ONCS_COMPARE, id.optionalCommands() & NvmeIdentifyController.ONCS_COMPARE,
                "ONCS: Compare");

        final TestNvmeHost.Completion queues = admin.admin(NvmeOpcode.SET_FEATURES, 0, NvmeFeature.NUMBER_OF_QUEUES, 3 << 16 | 3, 0, 0);
        assertEquals(OK, queues.status());
        assertEquals(3 << 16 | 3, queues.result(), "four I/O queues granted, 0's based");

        assertEquals(OK, admin.admin(NvmeOpcode.IDENTIFY, 0, NvmeIdentify.CNS_ACTIVE_NAMESPACES, 0, 0, 4096).status());
        assertEquals(1, NvmeNamespaceLists.id(admin.buffer(), 0, 0));
        assertEquals(2, NvmeNamespaceLists.id(admin.buffer(), 0, 1));
        assertEquals(0, NvmeNamespaceLists.id(admin.buffer(), 0, 2));

        assertEquals(OK, admin.admin(NvmeOpcode.IDENTIFY, 2, NvmeIdentify.CNS_NAMESPACE, 0, 0, 4096).status());
        final NvmeIdentifyNamespace ns = new NvmeIdentifyNamespace().wrap(admin.buffer(), 0);
        assertEquals(LUN_BYTES / 4096, ns.size());
        assertEquals(4096, ns.blockSize(ns.formatInUse()));
        assertEquals(NvmeStatus.INVALID_NAMESPACE | DNR,
                admin.admin(NvmeOpcode.IDENTIFY, 9, NvmeIdentify.CNS_NAMESPACE, 0, 0, 4096).status());
        assertEquals(NvmeStatus.INVALID_FIELD | DNR, admin.admin(NvmeOpcode.IDENTIFY, 0, 0x55, 0, 0, 4096).status(), "unknown CNS");
        assertEquals(OK, admin.admin(NvmeOpcode.GET_LOG_PAGE, 0xFFFF_FFFFL, NvmeGetLogPage.LOG_SMART | 127L << 16, 0, 0, 512).status());
        assertEquals(NvmeStatus.INVALID_LOG_PAGE | DNR, admin.admin(NvmeOpcode.GET_LOG_PAGE, 0, 0x42 | 127L << 16, 0, 0, 512).status());
        assertEquals(OK, admin.admin(NvmeOpcode.KEEP_ALIVE, 0, 0, 0, 0, 0).status());
        assertEquals(NvmeStatus.INVALID_OPCODE | DNR, admin.admin(0x7E, 0, 0, 0, 0, 0).status(), "an admin opcode we do not have");
    }

    @Test
    void anIoQueueReadsWritesComparesFlushesZeroesAndDeallocates() {
        final TestNvmeHost admin = enabledAdmin(NQN);
        final TestNvmeHost.Completion again = admin.connect(NQN, NvmfConnectData.CNTLID_DYNAMIC, 0);
        assertEquals(NvmeStatus.COMMAND_SEQUENCE_ERROR | DNR, again.status(), "a second Connect on a connected queue");
        assertEquals(OK, admin.admin(NvmeOpcode.SET_FEATURES, 0, NvmeFeature.NUMBER_OF_QUEUES, 1 << 16 | 1, 0, 0).status());
        final int cntlid = controllerIdOf(admin);
        final TestNvmeHost beyond = queue(3, CREDITS);
        assertEquals(NvmeStatus.CONNECT_INVALID_PARAMETER | DNR, beyond.connect(NQN, cntlid, 0).status(),
                "queue 3 of a controller granted two");
        final TestNvmeHost io = queue(1, CREDITS);
        final TestNvmeHost.Completion ioConnected = io.connect(NQN, cntlid, 0);
        assertEquals(OK, ioConnected.status(), "I/O queue Connect, data in the capsule");
        final org.rdmablock.target.metrics.SessionStats session = statistics.sessions().stream()
                .filter(x -> x.initiator.toString().equals(TestNvmeHost.HOST_ID)).findFirst().orElseThrow(
                        () -> new AssertionError("no session keyed by the host ID: " + statistics.sessions()));
        assertEquals(TestNvmeHost.HOST_NQN, session.name(), "the session is named by the host NQN");
        // a refused queue's channel leaves its session when the intake releases it, after the refusal went out
        waitUpTo(Duration.ofSeconds(10), "the admin queue and I/O queue 1 in the session (the refused ones left it)")
                .until(session::channels, n -> n == 2);
        assertEquals(1, ioConnected.sqHead(), "the head past the Connect's entry");
        final TestNvmeHost twin = queue(1, CREDITS);
        assertEquals(NvmeStatus.COMMAND_SEQUENCE_ERROR | DNR, twin.connect(NQN, cntlid, 0).status(), "queue 1 is connected already");

        final byte[] pattern = new byte[8 * 512];
        for (int i = 0; i < pattern.length; i++) {
            pattern[i] = (byte) (i * 7 + 3);
        }
        MemorySegment.copy(pattern, 0, io.buffer(), ValueLayout.JAVA_BYTE, 0, pattern.length);
        final TestNvmeHost.Completion written = io.io(NvmeOpcode.WRITE, 1, 100, 8, 0, pattern.length, false);
        assertEquals(OK, written.status(), "Write, keyed SGL (RDMA READ)");
        assertEquals(1, written.sqId());
        assertEquals(OK, io.io(NvmeOpcode.WRITE, 1, 300, 8, 0, pattern.length, true).status(), "Write, in-capsule data");
        assertArrayEquals(pattern, read(io, 1, 100, 8, 512));
        assertArrayEquals(pattern, read(io, 1, 300, 8, 512));

        final byte[] big = new byte[64 * 4096];
        for (int i = 0; i < big.length; i++) {
            big[i] = (byte) (i >>> 9);
        }
        MemorySegment.copy(big, 0, io.buffer(), ValueLayout.JAVA_BYTE, 0, big.length);
        assertEquals(OK, io.io(NvmeOpcode.WRITE, 2, 10, 64, 0, big.length, false).status(), "256 KiB to the 4 KiB namespace");
        assertArrayEquals(big, read(io, 2, 10, 64, 4096));

        assertEquals(OK, io.call(flush(io, 1)).status(), "Flush");

        final NvmeSubmission zeroes = io.entry(0, NvmeOpcode.WRITE_ZEROES).setNsid(1).setStartingLba(100).setBlocks(8);
        assertEquals(OK, io.call(NvmeSubmission.LENGTH).status(), "Write Zeroes " + zeroes.commandId());
        assertArrayEquals(new byte[pattern.length], read(io, 1, 100, 8, 512));

        final NvmeSubmission dsm = io.entry(0, NvmeOpcode.DATASET_MANAGEMENT).setNsid(1).setCdw(10, 0)
                .setCdw(11, NvmeFeature.DSM_DEALLOCATE);
        new NvmeDsmRange().wrap(io.buffer(), 0).set(300, 8);
        assertEquals(OK, io.call(io.inCapsule(dsm, 0, NvmeDsmRange.LENGTH)).status(), "Dataset Management, deallocate");
        assertArrayEquals(new byte[pattern.length], read(io, 1, 300, 8, 512), "deallocated blocks read back as zeroes");
        final NvmeSubmission thick = io.entry(0, NvmeOpcode.DATASET_MANAGEMENT).setNsid(2).setCdw(10, 0)
                .setCdw(11, NvmeFeature.DSM_DEALLOCATE);
        new NvmeDsmRange().wrap(io.buffer(), 0).set(10, 1);
        assertEquals(OK, io.call(io.inCapsule(thick, 0, NvmeDsmRange.LENGTH)).status(),
                "deallocate on a LUN that cannot: advisory, answered as done");
        assertArrayEquals(java.util.Arrays.copyOf(big, 4096), read(io, 2, 10, 1, 4096), "its blocks keep their data");

        MemorySegment.copy(big, 0, io.buffer(), ValueLayout.JAVA_BYTE, 0, big.length);
        assertEquals(OK, io.io(NvmeOpcode.COMPARE, 2, 10, 64, 0, big.length, false).status(), "Compare, keyed SGL, equal");
        assertEquals(OK, io.io(NvmeOpcode.COMPARE, 2, 10, 1, 0, 4096, true).status(), "Compare, in-capsule data, equal");
        io.buffer().set(ValueLayout.JAVA_BYTE, 63 * 4096 + 9, (byte) ~big[63 * 4096 + 9]);
        assertEquals(NvmeStatus.COMPARE_FAILED | DNR, io.io(NvmeOpcode.COMPARE, 2, 10, 64, 0, big.length, false).status(),
                "one byte of the last block differs");
        assertArrayEquals(java.util.Arrays.copyOfRange(big, 63 * 4096, 64 * 4096), read(io, 2, 73, 1, 4096),
                "a Compare writes nothing");

        final long blocks = LUN_BYTES / 512;
        assertEquals(NvmeStatus.LBA_RANGE | DNR, io.io(NvmeOpcode.COMPARE, 1, blocks - 4, 8, 0, 4096, false).status());
        assertEquals(NvmeStatus.LBA_RANGE | DNR, io.io(NvmeOpcode.READ, 1, blocks - 4, 8, 0, 4096, false).status());
        assertEquals(NvmeStatus.INVALID_NAMESPACE | DNR, io.io(NvmeOpcode.READ, 7, 0, 8, 0, 4096, false).status());
        assertEquals(NvmeStatus.SGL_INVALID_DATA | DNR, io.io(NvmeOpcode.READ, 1, 0, 8, 0, 2048, false).status(),
                "a keyed buffer other than the blocks' bytes");
        io.entry(0, 0x7E).setNsid(1);
        assertEquals(NvmeStatus.INVALID_OPCODE | DNR, io.call(NvmeSubmission.LENGTH).status());
        io.entry(0, NvmeOpcode.READ).setNsid(1).setBlocks(1).setFlags(0); // PRPs, which no fabric takes
        assertEquals(NvmeStatus.INVALID_FIELD | DNR, io.call(NvmeSubmission.LENGTH).status());
        final TestNvmeHost.Completion readInCapsule = io.call(io.inCapsule(io.entry(0, NvmeOpcode.READ).setNsid(1).setBlocks(1), 0, 512));
        assertEquals(NvmeStatus.INVALID_FIELD | DNR, readInCapsule.status(), "in-capsule data on a Read");
    }

    /**
     * A host that keeps sending without waiting for its completions (an I/O queue of 4 entries holding 8 commands the
     * backend has not finished) has its queue disconnected at the next capsule; its controller's admin queue goes on.
     */
    @Test
    void aQueueWhoseHostSendsFarMoreThanItsEntriesIsDisconnected() {
        final List<Runnable> held = new java.util.concurrent.CopyOnWriteArrayList<>(); // backend completions held back
        units.add(new LogicalUnit(2, LogicalUnitConfig.builder().serialNumber("lun2").blockSize(512)
                .maxTransferBytes(1 << 20).build(), new InMemoryBackend(LUN_BYTES, held::add)));
        final TestNvmeHost admin = enabledAdmin(NQN);
        assertEquals(OK, admin.admin(NvmeOpcode.SET_FEATURES, 0, NvmeFeature.NUMBER_OF_QUEUES, 0, 0, 0).status());
        final int entries = 4;
        final TestNvmeHost io = queue(1, entries);
        assertEquals(OK, io.connect(NQN, controllerIdOf(admin), 0).status());
        try {
            for (int i = 0; i < NvmeFrontEnd.OVERRUN_FACTOR * entries; i++) {
                io.keyed(io.entry(0, NvmeOpcode.READ).setNsid(3).setStartingLba(i).setBlocks(1), i * 512L, 512);
                io.send(0, NvmeSubmission.LENGTH);
                final int taken = i + 1;
                waitUpTo(TestNvmeHost.TIMEOUT, "read " + taken + " at the backend").until(() -> held.size() == taken);
            }
            io.keyed(io.entry(0, NvmeOpcode.READ).setNsid(3).setStartingLba(99).setBlocks(1), 0, 512);
            io.send(0, NvmeSubmission.LENGTH);
            final IllegalStateException flushed = assertThrows(IllegalStateException.class, io::await,
                    "the queue is disconnected: the host's receives are flushed, no completion comes");
            assertTrue(flushed.getMessage().startsWith("completion failed"), flushed.getMessage());
        } finally {
            held.forEach(Runnable::run);
        }
        assertEquals(OK, admin.admin(NvmeOpcode.KEEP_ALIVE, 0, 0, 0, 0, 0).status(), "the admin queue still answers");
    }

    private static int flush(final TestNvmeHost io, final long nsid) {
        io.entry(0, NvmeOpcode.FLUSH).setNsid(nsid);
        return NvmeSubmission.LENGTH;
    }

    private static byte[] read(final TestNvmeHost io, final long nsid, final long lba, final int blocks, final int blockSize) {
        final long at = 8L << 20 >= io.buffer().byteSize() ? io.buffer().byteSize() / 2 : 8L << 20;
        io.buffer().asSlice(at, (long) blocks * blockSize).fill((byte) 0x5A);
        assertEquals(OK, io.io(NvmeOpcode.READ, nsid, lba, blocks, at, blocks * blockSize, false).status(), "Read");
        return io.buffer().asSlice(at, (long) blocks * blockSize).toArray(ValueLayout.JAVA_BYTE);
    }

    /**
     * A keyed SGL of subtype "invalidate" (what nvme-rdma gives its fast-registered buffers) is answered with
     * SEND_WITH_INV of its key, as nvmet-rdma answers it: the host's window is invalid afterwards; a plain keyed SGL
     * gets a plain SEND.
     */
    @Test
    void aKeyedSglAskingForInvalidationIsAnsweredWithSendWithInvalidate() {
        final TestNvmeHost admin = enabledAdmin(NQN);
        assertEquals(OK, admin.admin(NvmeOpcode.SET_FEATURES, 0, NvmeFeature.NUMBER_OF_QUEUES, 0, 0, 0).status());
        final TestNvmeHost io = queue(1, CREDITS);
        assertEquals(OK, io.connect(NQN, controllerIdOf(admin), 0).status());
        final byte[] pattern = new byte[4096];
        java.util.Arrays.fill(pattern, (byte) 0x6D);
        MemorySegment.copy(pattern, 0, io.buffer(), ValueLayout.JAVA_BYTE, 0, pattern.length);
        final TestNvmeHost.Completion written = io.io(NvmeOpcode.WRITE, 1, 40, 8, 0, pattern.length, false);
        assertEquals(OK, written.status());
        assertEquals(0, written.invalidatedRkey(), "a plain keyed SGL: a plain SEND");
        io.buffer().asSlice(8192, 4096).fill((byte) 0);
        final NvmeSubmission read = io.entry(0, NvmeOpcode.READ).setNsid(1).setStartingLba(40).setBlocks(8);
        final int key = io.keyedInvalidating(read, 8192, 4096);
        final TestNvmeHost.Completion done = io.call(NvmeSubmission.LENGTH);
        assertEquals(OK, done.status());
        assertEquals(key, done.invalidatedRkey(), "the response invalidated the window's key");
        assertArrayEquals(pattern, io.buffer().asSlice(8192, 4096).toArray(ValueLayout.JAVA_BYTE));
    }

    private static int controllerIdOf(final TestNvmeHost admin) {
        assertEquals(OK, admin.admin(NvmeOpcode.IDENTIFY, 0, NvmeIdentify.CNS_CONTROLLER, 0, 0, 4096).status());
        return new NvmeIdentifyController().wrap(admin.buffer(), 0).controllerId();
    }

    @Test
    void aShutdownMakesTheControllerNotReady() {
        final TestNvmeHost admin = enabledAdmin(NQN);
        assertEquals(OK, admin.propertySet(NvmeRegister.CC, NvmeRegister.CC_ENABLE | 1 << 14).status(), "CC.SHN normal");
        final long status = admin.propertyGet(NvmeRegister.CSTS, false).result();
        assertEquals(NvmeRegister.CSTS_SHUTDOWN_COMPLETE, status & (3 << 2), "CSTS.SHST complete");
        assertEquals(0, status & NvmeRegister.CSTS_READY, "not ready after the shutdown");
        assertEquals(NvmeStatus.COMMAND_SEQUENCE_ERROR | DNR,
                admin.admin(NvmeOpcode.IDENTIFY, 0, NvmeIdentify.CNS_CONTROLLER, 0, 0, 4096).status());
    }

    @Test
    void connectsTheTargetCannotServeAreRefusedWithTheirStatus() {
        final TestNvmeHost unknown = queue(0, 32);
        final TestNvmeHost.Completion noSuchSubsystem = unknown.connect("nqn.2026-12.example:nothing", NvmfConnectData.CNTLID_DYNAMIC, 0);
        assertEquals(NvmeStatus.CONNECT_INVALID_PARAMETER | DNR, noSuchSubsystem.status());
        assertEquals(NvmeStatus.connectDataField(NvmfConnectData.SUBSYSTEM_NQN_OFFSET), noSuchSubsystem.result());
        assertEquals(NvmeStatus.COMMAND_SEQUENCE_ERROR | DNR, unknown.propertyGet(NvmeRegister.CAP, true).status(),
                "a queue without a controller");

        final TestNvmeHost locked = queue(0, 32);
        final TestNvmeHost.Completion notAllowed = locked.connect(LOCKED_NQN, NvmfConnectData.CNTLID_DYNAMIC, 0);
        assertEquals(NvmeStatus.CONNECT_INVALID_HOST | DNR, notAllowed.status());
        assertEquals(NvmeStatus.connectDataField(NvmfConnectData.HOST_NQN_OFFSET), notAllowed.result());

        final TestNvmeHost staticId = queue(0, 32);
        assertEquals(NvmeStatus.CONNECT_INVALID_PARAMETER | DNR, staticId.connect(NQN, 5, 0).status(),
                "an admin queue asks for a dynamic controller");

        enabledAdmin(OTHER_NQN);
        final TestNvmeHost stray = queue(1, 8);
        final TestNvmeHost.Completion noController = stray.connect(NQN, 0x1234, 0);
        assertEquals(NvmeStatus.CONNECT_INVALID_PARAMETER | DNR, noController.status(), "an I/O queue of no controller");
        assertEquals(NvmeStatus.connectDataField(NvmfConnectData.CNTLID_OFFSET), noController.result());

        final ConnectionRejectedException rejected = assertThrows(ConnectionRejectedException.class,
                () -> new TestNvmeHost(null, address(), 1, CREDITS + 1, 4096), "more entries than the queue may have");
        assertEquals(NvmeRdmaCmReject.INVALID_HOST_SEND_QUEUE_SIZE,
                new NvmeRdmaCmReject().wrap(MemorySegment.ofArray(rejected.privateData()), 0).status());
        final ConnectionRejectedException shortData = assertThrows(ConnectionRejectedException.class,
                () -> new TestNvmeHost(null, address(), new byte[8], 0, 32, 4096));
        assertEquals(NvmeRdmaCmReject.INVALID_LENGTH,
                new NvmeRdmaCmReject().wrap(MemorySegment.ofArray(shortData.privateData()), 0).status());
    }

    @Test
    void aNamespaceListOnlyShowsItsLuns() {
        final TestNvmeHost admin = enabledAdmin(OTHER_NQN);
        assertEquals(OK, admin.admin(NvmeOpcode.IDENTIFY, 0, NvmeIdentify.CNS_ACTIVE_NAMESPACES, 0, 0, 4096).status());
        assertEquals(2, NvmeNamespaceLists.id(admin.buffer(), 0, 0), "LUN 1 only");
        assertEquals(0, NvmeNamespaceLists.id(admin.buffer(), 0, 1));
        assertEquals(NvmeStatus.INVALID_NAMESPACE | DNR,
                admin.admin(NvmeOpcode.IDENTIFY, 1, NvmeIdentify.CNS_NAMESPACE, 0, 0, 4096).status(), "LUN 0 is not in it");
    }

    @Test
    void theDiscoveryControllerListsTheSubsystems() {
        final TestNvmeHost discovery = enabledAdmin(NvmfConnectData.DISCOVERY_NQN);
        assertEquals(OK, discovery.admin(NvmeOpcode.IDENTIFY, 0, NvmeIdentify.CNS_CONTROLLER, 0, 0, 4096).status());
        assertEquals(NvmeIdentifyController.TYPE_DISCOVERY, new NvmeIdentifyController().wrap(discovery.buffer(), 0).controllerType());
        final int bytes = 4 * NvmfDiscoveryLog.RECORD_LENGTH;
        assertEquals(OK, discovery.admin(NvmeOpcode.GET_LOG_PAGE, 0, NvmeGetLogPage.LOG_DISCOVERY | (long) (bytes / 4 - 1) << 16,
                0, 0, bytes).status());
        final NvmfDiscoveryLog log = new NvmfDiscoveryLog().wrap(discovery.buffer(), 0);
        assertEquals(2, log.records(), "the locked subsystem, which this host may not connect to, is left out (as nvmet)");
        final NvmfDiscoveryLog.Entry first = log.entry(new NvmfDiscoveryLog.Entry(), 0);
        assertEquals(NQN, first.subsystemNqn());
        assertEquals(NvmfDiscoveryLog.TRANSPORT_RDMA, first.transportType());
        assertEquals(String.valueOf(target.localAddress().getPort()), first.serviceId().trim());
        assertEquals(TestNvmeHost.ADDRESS, first.address().trim());
        assertEquals(OTHER_NQN, log.entry(new NvmfDiscoveryLog.Entry(), 1).subsystemNqn());
    }

    @Test
    void aControllerWithoutKeepAlivesIsEnded() {
        final TestNvmeHost admin = queue(0, 32);
        assertEquals(OK, admin.connect(NQN, NvmfConnectData.CNTLID_DYNAMIC, 200).status());
        waitUpTo(Duration.ofSeconds(10), "the target ends the silent controller's queue")
                .until(() -> target.queueCount() == 0);
    }
}

package org.rdmablock.target.srp;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.rdmablock.protocol.scsi.InMemoryBackend;
import org.rdmablock.protocol.scsi.LogicalUnit;
import org.rdmablock.protocol.scsi.LogicalUnitConfig;
import org.rdmablock.protocol.scsi.LogicalUnitTable;
import org.rdmablock.protocol.scsi.LunAddress;
import org.rdmablock.protocol.scsi.ScsiStatus;
import org.rdmablock.protocol.srp.SrpLoginRequest;
import org.rdmablock.target.config.ChannelConfig;
import org.rdmablock.target.config.IdentityConfig;
import org.rdmablock.target.config.InitiatorPortId;
import org.rdmablock.target.config.ListenConfig;
import org.rdmablock.target.config.PipelineConfig;
import org.rdmablock.target.config.TargetConfig;
import org.rdmablock.target.config.TimeoutConfig;
import org.rdmablock.target.metrics.TargetStatistics;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.rdmablock.target.Waiting.waitUpTo;

/**
 * A target on the soft provider on loopback for each test, serving two logical units from memory: LUN 0 (512-byte
 * blocks, thin provisioned, write-back cache) and LUN 1 (4096-byte blocks, thick); LUN 5 and the rest are absent.
 * Initiators logged in through {@link #login} are closed after the test, before the target.
 */
abstract class TargetTestBase {
    static final long ID_EXT = 0x0002c903000ab1e0L;
    static final long IOC_GUID = 0x0002c903000ab1e1L;
    static final int CREDITS = 32;
    static final int MAX_CHANNELS = 8;
    static final int RING_SIZE = 256;
    static final long LUN_BYTES = 64L << 20;
    static final long LUN0 = LunAddress.encode(0);
    static final long LUN1 = LunAddress.encode(1);
    static final long ABSENT_LUN = LunAddress.encode(5);
    /** Bytes of registered data buffer each test initiator gets. */
    static final long INITIATOR_BYTES = 4L << 20;
    /** How long a test waits at most for the target to reach a state (a command in the backend, resources back). */
    static final Duration SETTLE = Duration.ofSeconds(5);

    /** LUN 0's backend completes through this: at once, or held back while a test holds it. */
    final CompletionGate lun0Gate = new CompletionGate();
    SrpTarget target;
    /** What the target counts; LUNs 0 and 1 are served. */
    TargetStatistics statistics;
    LogicalUnitTable units;
    InMemoryBackend backend0;
    InMemoryBackend backend1;
    private final List<TestInitiator> initiators = new ArrayList<>();

    static TargetConfig config(final int port) {
        return config(port, 2);
    }

    /** The test target's config with {@code backendThreads} backend threads (0: commands run on the poller thread). */
    static TargetConfig config(final int port, final int backendThreads) {
        return config(port, backendThreads, PipelineConfig.CompletionMode.POLL);
    }

    /** The same with the poller waiting for completions as {@code completions} says. */
    static TargetConfig config(final int port, final int backendThreads, final PipelineConfig.CompletionMode completions) {
        return new TargetConfig("<test>", new ListenConfig(TestInitiator.PROVIDER, TestInitiator.ADDRESS, port), new IdentityConfig(ID_EXT, IOC_GUID),
                new ChannelConfig(CREDITS, 8276, 1 << 20, true, 8192, MAX_CHANNELS),
                new PipelineConfig(4096, RING_SIZE, backendThreads, PipelineConfig.ReceiveQueueMode.PER_CHANNEL, completions),
                new TimeoutConfig(Duration.ZERO, Duration.ofSeconds(30)), List.of());
    }

    @BeforeEach
    void startTarget() {
        units = new LogicalUnitTable();
        backend0 = new InMemoryBackend(LUN_BYTES, lun0Gate);
        backend1 = new InMemoryBackend(LUN_BYTES);
        units.add(new LogicalUnit(0, LogicalUnitConfig.builder().serialNumber("lun0").blockSize(512).thinProvisioning(true)
                .maxTransferBytes(1 << 20).build(), backend0));
        units.add(new LogicalUnit(1, LogicalUnitConfig.builder().serialNumber("lun1").blockSize(4096)
                .maxTransferBytes(1 << 20).build(), backend1));
        statistics = new TargetStatistics();
        statistics.lunsServed(List.of(0, 1));
        target = SrpTarget.start(targetConfig(), this::unitsFor, statistics);
    }

    /** The test target's config: {@link #config(int, int, PipelineConfig.CompletionMode)} unless a subclass adds to it. */
    TargetConfig targetConfig() {
        return config(0, backendThreads(), completions());
    }

    /** How the test target's poller waits for completions (polling; a subclass runs the same tests on events). */
    PipelineConfig.CompletionMode completions() {
        return PipelineConfig.CompletionMode.POLL;
    }

    /** Backend threads of the test target (2; a subclass runs the same tests with another count). */
    int backendThreads() {
        return 2;
    }

    /** The units an initiator may see: all of them, unless a test says otherwise (null: none, the login is refused). */
    LogicalUnitTable unitsFor(final InitiatorPortId initiator) {
        return units;
    }

    @AfterEach
    synchronized void stopTarget() {
        lun0Gate.release();
        for (final TestInitiator initiator : initiators) {
            initiator.close();
        }
        initiators.clear();
        target.close();
        backend0.close();
        backend1.close();
    }

    /** Logs in as initiator {@code initiatorId} with immediate data and multichannel action MULTIPLE. */
    TestInitiator login(final long initiatorId) {
        return track(TestInitiator.login(target.localAddress(), ID_EXT, IOC_GUID, initiatorId, INITIATOR_BYTES));
    }

    /** Logs in with this private data; closed after the test. */
    TestInitiator login(final byte[] privateData) {
        return login(target.localAddress(), privateData);
    }

    /** Logs in at {@code address} (one of the target's ports) with this private data; closed after the test. */
    TestInitiator login(final InetSocketAddress address, final byte[] privateData) {
        return track(new TestInitiator(address, privateData, INITIATOR_BYTES, 64));
    }

    /** The login private data of initiator {@code initiatorId} with these request flags and IU length. */
    static byte[] loginData(final long initiatorId, final int iuLength, final int flags) {
        return TestInitiator.loginPrivateData(ID_EXT, IOC_GUID, initiatorId, iuLength, flags, TestInitiator.IMMEDIATE_OFFSET);
    }

    /** The login private data of initiator {@code initiatorId} asking for multichannel action SINGLE, no immediate data. */
    static byte[] singleChannelLogin(final long initiatorId) {
        return loginData(initiatorId, TestInitiator.IU_LENGTH, SrpLoginRequest.MULTICHANNEL_SINGLE);
    }

    private synchronized TestInitiator track(final TestInitiator initiator) {
        initiators.add(initiator);
        return initiator;
    }

    /** A repeatable byte pattern, different for each seed. */
    static byte[] pattern(final int length, final int seed) {
        final byte[] bytes = new byte[length];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) (i * 31 + seed * 17 + (i >>> 9));
        }
        return bytes;
    }

    /** The bytes of the initiator's data buffer at {@code offset}. */
    static byte[] bytesAt(final TestInitiator initiator, final long offset, final int length) {
        return initiator.buffer().asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE);
    }

    static void fill(final TestInitiator initiator, final long offset, final byte[] bytes) {
        initiator.buffer().asSlice(offset, bytes.length).copyFrom(MemorySegment.ofArray(bytes));
    }

    /** The bytes of a backend's storage at {@code offset}. */
    static byte[] stored(final InMemoryBackend backend, final long offset, final int length) {
        return backend.storage().asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE);
    }

    /**
     * WRITE(16) of a pattern to LUN 0 at {@code lba} by RDMA READ, then READ(16) of it into another part of the
     * buffer: both GOOD, the data read back equal to what was written, and the backend holding it.
     */
    void verifiedWriteAndRead(final TestInitiator initiator, final long lba, final int blocks, final int seed) {
        final int bytes = blocks * 512;
        final byte[] expected = pattern(bytes, seed);
        fill(initiator, 0, expected);
        final TestInitiator.Response w = initiator.execute(LUN0, TestInitiator.write16(lba, blocks), bytes, 0, 0, false);
        assertEquals(ScsiStatus.GOOD, w.status(), "WRITE(16) of " + blocks + " blocks at " + lba);
        initiator.buffer().asSlice(bytes, bytes).fill((byte) 0);
        final TestInitiator.Response r = initiator.execute(LUN0, TestInitiator.read16(lba, blocks), 0, bytes, bytes, false);
        assertEquals(ScsiStatus.GOOD, r.status(), "READ(16) of " + blocks + " blocks at " + lba);
        assertArrayEquals(expected, bytesAt(initiator, bytes, bytes), "read back what was written at " + lba);
        assertArrayEquals(expected, stored(backend0, lba * 512, bytes), "the backend holds what was written at " + lba);
    }

    /** Waits until the target has {@code channels} channels and every slot and data chunk back. */
    void awaitTargetIdle(final int channels) {
        waitUpTo(SETTLE, "the target settles at " + channels + " channels with every slot and data chunk free")
                .untilAsserted(() -> assertTrue(target.channelCount() == channels && target.freeSlots() == RING_SIZE
                        && target.dataChunksInUse() == 0, () -> "it has " + target.channelCount() + " channels, "
                        + target.resourceSnapshot()));
    }

    /** Runs backend completions at once, or keeps them while held, until released (on the releasing thread). */
    static final class CompletionGate implements Executor {
        private final List<Runnable> held = new ArrayList<>();
        private boolean holding;
        /** The thread that ran the backend's last command (the one that handed its completion here). */
        volatile String lastCommandThread;

        @Override
        public void execute(final Runnable completion) {
            lastCommandThread = Thread.currentThread().getName();
            synchronized (this) {
                if (holding) {
                    held.add(completion);
                    return;
                }
            }
            completion.run();
        }

        synchronized void hold() {
            holding = true;
        }

        synchronized int heldCount() {
            return held.size();
        }

        /** Stops holding and runs what was held, in order. */
        void release() {
            final List<Runnable> due;
            synchronized (this) {
                holding = false;
                due = new ArrayList<>(held);
                held.clear();
            }
            due.forEach(Runnable::run);
        }
    }
}

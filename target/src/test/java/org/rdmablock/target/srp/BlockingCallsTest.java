package org.rdmablock.target.srp;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rdmablock.protocol.scsi.BackendStatus;
import org.rdmablock.protocol.scsi.LogicalUnit;
import org.rdmablock.protocol.scsi.LogicalUnitConfig;
import org.rdmablock.protocol.scsi.LogicalUnitTable;
import org.rdmablock.protocol.scsi.ScsiStatus;
import org.rdmablock.target.backend.BackendFactory;
import org.rdmablock.target.backend.LunBackend;
import org.rdmablock.target.config.ChannelConfig;
import org.rdmablock.target.config.IdentityConfig;
import org.rdmablock.target.config.ListenConfig;
import org.rdmablock.target.config.LunConfig;
import org.rdmablock.target.config.PipelineConfig;
import org.rdmablock.target.config.TargetConfig;
import org.rdmablock.target.config.TimeoutConfig;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A file LUN served by a pipeline the poller runs with two blocking-call threads ({@code backend_threads = 0},
 * {@code blocking_threads = 2}), end to end over the soft provider: a whole-page write and a read of cached pages are
 * made by the poller (nothing handed over); a write of part of a page and SYNCHRONIZE CACHE go to the blocking-call
 * threads; so does a read of pages another writer put on the disk with O_DIRECT (which leaves them out of the page
 * cache), and it returns that writer's bytes.
 */
class BlockingCallsTest {
    private static final long ID_EXT = 0x0002c903000ab1e0L;
    private static final long IOC_GUID = 0x0002c903000ab1e1L;
    private static final byte[] SYNCHRONIZE_CACHE_10 = {0x35, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    private SrpTarget target;
    private LunBackend backend;

    @AfterEach
    void stop() {
        if (target != null) {
            target.close();
        }
        if (backend != null) {
            backend.close();
        }
    }

    @Test
    void thePollerMakesWhatDoesNotWaitAndHandsOverTheRest(@TempDir final Path dir) throws Exception {
        final Path file = dir.resolve("lun0.img");
        final LunConfig lun = new LunConfig(0, LunConfig.BackendKind.FILE, file, 8L << 20, 512, false,
                LunConfig.WriteCachePolicy.WRITE_BACK, false, 0, List.of(), true, false);
        backend = BackendFactory.open(lun);
        final LogicalUnitTable units = new LogicalUnitTable();
        units.add(new LogicalUnit(0, LogicalUnitConfig.builder().serialNumber("lun0").blockSize(512)
                .maxTransferBytes(1 << 20).build(), backend));
        target = SrpTarget.start(new TargetConfig("<test>", new ListenConfig(TestInitiator.PROVIDER, TestInitiator.ADDRESS, 0),
                new IdentityConfig(ID_EXT, IOC_GUID), new ChannelConfig(32, 8276, 1 << 20, true, 8192, 8),
                new PipelineConfig(4096, 256, 0, PipelineConfig.ReceiveQueueMode.PER_CHANNEL,
                        PipelineConfig.CompletionMode.POLL, 2),
                new TimeoutConfig(Duration.ZERO, Duration.ofSeconds(30)), List.of()), initiator -> units);
        try (TestInitiator ini = TestInitiator.login(target.localAddress(), ID_EXT, IOC_GUID, 0x51, 1 << 20)) {
            final byte[] pattern = new byte[65536];
            for (int i = 0; i < pattern.length; i++) {
                pattern[i] = (byte) (i * 13 + 5);
            }
            ini.buffer().asSlice(0, pattern.length).copyFrom(MemorySegment.ofArray(pattern));
            assertEquals(ScsiStatus.GOOD, ini.execute(0, TestInitiator.write16(0, 128), 65536, 0, 0, false).status());
            ini.buffer().asSlice(0, 1 << 20).fill((byte) 0);
            assertEquals(ScsiStatus.GOOD, ini.execute(0, TestInitiator.read16(0, 128), 0, 65536, 0, false).status());
            assertArrayEquals(pattern, ini.buffer().asSlice(0, 65536).toArray(ValueLayout.JAVA_BYTE));
            assertEquals(0, target.blockingCalls(), "a whole-page write-back write and a cached read: the poller's");

            assertEquals(ScsiStatus.GOOD, ini.execute(0, TestInitiator.write16(1, 1), 512, 0, 0, false).status());
            assertEquals(1, target.blockingCalls(), "a 512-byte write, part of a page: handed over");
            assertEquals(ScsiStatus.GOOD, ini.execute(0, SYNCHRONIZE_CACHE_10, 0, 0, 0, false).status());
            assertEquals(2, target.blockingCalls(), "SYNCHRONIZE CACHE (fdatasync): handed over");

            // another writer puts new bytes at 1 MiB with O_DIRECT: on the disk, not in the page cache
            final byte[] cold = new byte[65536];
            for (int i = 0; i < cold.length; i++) {
                cold[i] = (byte) (i * 7 + 3);
            }
            Assumptions.assumeTrue(writeDirect(file, 1 << 20, cold), "this file system has no O_DIRECT (tmpfs?)");
            ini.buffer().asSlice(0, 1 << 20).fill((byte) 0);
            assertEquals(ScsiStatus.GOOD, ini.execute(0, TestInitiator.read16(2048, 128), 0, 65536, 0, false).status());
            assertArrayEquals(cold, ini.buffer().asSlice(0, 65536).toArray(ValueLayout.JAVA_BYTE), "the bytes on the disk");
            assertEquals(3, target.blockingCalls(), "a read of pages not in the page cache: handed over");
            assertEquals(3, target.statistics().count(org.rdmablock.target.metrics.TargetStatistics.Count.BLOCKING_CALLS),
                    "rdmablock_target_blocking_calls_total counts them");
        }
    }

    /** Writes {@code bytes} at {@code offset} through a second, O_DIRECT file LUN on the same file; false without O_DIRECT. */
    private static boolean writeDirect(final Path file, final long offset, final byte[] bytes) throws Exception {
        final LunBackend direct;
        try {
            direct = BackendFactory.open(new LunConfig(1, LunConfig.BackendKind.FILE, file, Files.size(file), 4096, false,
                    LunConfig.WriteCachePolicy.WRITE_BACK, true, 0, List.of(), false, false));
        } catch (RuntimeException e) {
            return false;
        }
        try (direct; Arena arena = Arena.ofConfined()) {
            final MemorySegment buffer = arena.allocate(bytes.length, 4096);
            buffer.copyFrom(MemorySegment.ofArray(bytes));
            final CompletableFuture<BackendStatus> done = new CompletableFuture<>();
            direct.write(offset, buffer, 0, bytes.length, false, done::complete);
            return done.get(10, TimeUnit.SECONDS) == BackendStatus.OK;
        }
    }
}

package org.rdmablock.target.backend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.rdmablock.protocol.scsi.BackendStatus;
import org.rdmablock.target.config.LunConfig;
import org.rdmablock.target.config.LunConfig.BackendKind;
import org.rdmablock.target.config.LunConfig.WriteCachePolicy;

/**
 * What every LUN backend must do, run once per backend by a subclass: writes read back at several offsets and sizes
 * with both block sizes and both write-cache policies, unwritten and unmapped blocks read zeroes, FUA writes and
 * flushes complete, data outlives close and reopen (persistent backends), read-only LUNs refuse writes, closed
 * backends refuse everything, and concurrent writers of distinct blocks do not disturb each other. After each change
 * the whole device is read back and compared with a model of it. Every operation must complete inline, once.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
abstract class BackendContractTest {
    static final long DEVICE_BYTES = 4L << 20;
    private static final int BUFFER_BYTES = 2 << 20;
    private static final int WRITER_THREADS = 8;

    private Arena arena;
    /** The I/O buffer: native, 4096-aligned, as the target's registered buffers are. */
    MemorySegment buffer;
    /** A second buffer, for reading back while {@link #buffer} holds what was written. */
    MemorySegment readBuffer;

    /** The backend under test. */
    abstract BackendKind kind();

    /** Whether the file is opened O_DIRECT. */
    boolean directIo() {
        return false;
    }

    /** The LUN under test: {@link #DEVICE_BYTES}, in {@code dir} when the backend keeps its data in a path. */
    final LunConfig config(Path dir, int blockSize, WriteCachePolicy writeCache) {
        Path path = switch (kind()) {
            case FILE -> dir.resolve("lun.img");
            case ROCKSDB -> dir.resolve("db");
            case MEMORY, NULL -> null;
        };
        return TestLuns.lun(kind(), path, DEVICE_BYTES, blockSize, false, writeCache, directIo());
    }

    /** Whether written data reads back; false for the null backend, which reads zeroes whatever was written. */
    final boolean keepsData() {
        return kind() != BackendKind.NULL;
    }

    /** Whether data outlives close (file and RocksDB). */
    final boolean persistent() {
        return kind() == BackendKind.FILE || kind() == BackendKind.ROCKSDB;
    }

    Stream<Integer> blockSizes() {
        return Stream.of(512, 4096);
    }

    Stream<Arguments> blockSizesAndPolicies() {
        return blockSizes().flatMap(size -> Stream.of(WriteCachePolicy.values()).map(policy -> Arguments.of(size, policy)));
    }

    @BeforeAll
    void allocate() {
        arena = Arena.ofShared();
        buffer = arena.allocate(BUFFER_BYTES, FileBackend.DIRECT_IO_ALIGNMENT);
        readBuffer = arena.allocate(BUFFER_BYTES, FileBackend.DIRECT_IO_ALIGNMENT);
    }

    @AfterAll
    void free() {
        arena.close();
    }

    @ParameterizedTest(name = "{0}-byte blocks, {1}")
    @MethodSource("blockSizesAndPolicies")
    void writesReadBackAtSeveralOffsetsAndSizes(int blockSize, WriteCachePolicy writeCache, @TempDir Path dir) {
        try (LunBackend backend = BackendFactory.open(config(dir, blockSize, writeCache))) {
            assertEquals(DEVICE_BYTES, backend.sizeBytes());
            assertFalse(backend.readOnly());
            DeviceModel model = new DeviceModel(DEVICE_BYTES);
            long lastBlock = DEVICE_BYTES / blockSize - 1;
            long[][] blocksAndCounts = {
                {0, 1}, {7, 3}, {(1 << 20) / blockSize - 1, 2}, {lastBlock, 1}, {(2 << 20) / blockSize + 1, (256 << 10) / blockSize},
                {8, 1}, {5, 4}, {lastBlock - 40, 41}};
            Completion done = new Completion();
            for (int i = 0; i < blocksAndCounts.length; i++) {
                long deviceOffset = blocksAndCounts[i][0] * blockSize;
                int length = (int) (blocksAndCounts[i][1] * blockSize);
                long bufferOffset = 4096L * (i % 3); // the data need not start the buffer
                DeviceModel.fillPattern(buffer, bufferOffset, length, i + 1);
                backend.write(deviceOffset, buffer, bufferOffset, length, false, done.reset());
                done.assertStatus(BackendStatus.OK, "write of " + length + " bytes at " + deviceOffset);
                model.write(deviceOffset, buffer, bufferOffset, length);

                readBuffer.fill((byte) 0x5A);
                backend.read(deviceOffset, readBuffer, 4096, length, done.reset());
                done.assertStatus(BackendStatus.OK, "read back");
                MemorySegment expected = keepsData() ? buffer.asSlice(bufferOffset, length) : arena.allocate(length);
                assertEquals(-1, MemorySegment.mismatch(readBuffer, 4096, 4096 + length, expected, 0, length),
                        "the " + length + " bytes just written at " + deviceOffset + " read back");
            }
            model.assertMatches(backend, readBuffer, keepsData());
        }
    }

    @ParameterizedTest(name = "{0}-byte blocks")
    @MethodSource("blockSizes")
    void unwrittenBlocksReadZeroes(int blockSize, @TempDir Path dir) {
        try (LunBackend backend = BackendFactory.open(config(dir, blockSize, WriteCachePolicy.WRITE_BACK))) {
            new DeviceModel(DEVICE_BYTES).assertMatches(backend, readBuffer, keepsData());
        }
    }

    @ParameterizedTest(name = "{0}-byte blocks")
    @MethodSource("blockSizes")
    void unmappedRangesReadZeroesAndTheirNeighboursKeepTheirData(int blockSize, @TempDir Path dir) {
        try (LunBackend backend = BackendFactory.open(config(dir, blockSize, WriteCachePolicy.WRITE_BACK))) {
            assertTrue(backend.supportsUnmap());
            assertTrue(backend.unmapReadsZeroes());
            DeviceModel model = new DeviceModel(DEVICE_BYTES);
            Completion done = new Completion();
            DeviceModel.fillPattern(buffer, 0, BUFFER_BYTES, 42);
            backend.write(0, buffer, 0, BUFFER_BYTES, false, done.reset());
            done.assertStatus(BackendStatus.OK, "write of the first 2 MiB");
            model.write(0, buffer, 0, BUFFER_BYTES);
            // one block (part of a 4 KiB group when blocks are 512 bytes); 64 KiB on group boundaries; a range with
            // partial groups at both ends; a range reaching past the written part
            long[][] blocksAndCounts = {
                {3, 1}, {(128 << 10) / blockSize, (64 << 10) / blockSize},
                {(300 << 10) / blockSize - 1, (20 << 10) / blockSize + 2}, {(2 << 20) / blockSize - 3, 10}};
            for (long[] range : blocksAndCounts) {
                long offset = range[0] * blockSize;
                long length = range[1] * blockSize;
                backend.unmap(offset, length, done.reset());
                done.assertStatus(BackendStatus.OK, "unmap of " + length + " bytes at " + offset);
                model.unmap(offset, length);
            }
            model.assertMatches(backend, readBuffer, keepsData());

            // unmapped blocks are writable again
            DeviceModel.fillPattern(buffer, 0, blockSize, 43);
            backend.write(3L * blockSize, buffer, 0, blockSize, false, done.reset());
            done.assertStatus(BackendStatus.OK, "write into an unmapped block");
            model.write(3L * blockSize, buffer, 0, blockSize);
            model.assertMatches(backend, readBuffer, keepsData());
        }
    }

    /** GET LBA STATUS's source: runs of written (mapped) and never-written or unmapped (deallocated) bytes. */
    @ParameterizedTest(name = "{0}-byte blocks")
    @MethodSource("blockSizes")
    void provisioningTellsWrittenRangesFromDeallocatedOnes(int blockSize, @TempDir Path dir) {
        try (LunBackend backend = BackendFactory.open(config(dir, blockSize, WriteCachePolicy.WRITE_BACK))) {
            if (!keepsData()) {
                assertEquals(DEVICE_BYTES, backend.provisioning(0, DEVICE_BYTES), "the null backend: all mapped");
                return;
            }
            assertEquals(-DEVICE_BYTES, backend.provisioning(0, DEVICE_BYTES), "nothing written yet");
            Completion done = new Completion();
            DeviceModel.fillPattern(buffer, 0, 64 << 10, 7);
            backend.write(128 << 10, buffer, 0, 64 << 10, false, done.reset());
            done.assertStatus(BackendStatus.OK, "write of 64 KiB at 128 KiB");
            assertEquals(-(128L << 10), backend.provisioning(0, DEVICE_BYTES), "deallocated up to the write");
            assertEquals(64L << 10, backend.provisioning(128 << 10, DEVICE_BYTES - (128 << 10)), "the write's bytes");
            assertEquals(-(DEVICE_BYTES - (192 << 10)), backend.provisioning(192 << 10, DEVICE_BYTES - (192 << 10)));
            assertEquals(16L << 10, backend.provisioning(128 << 10, 16 << 10), "at most the length asked");
            backend.unmap(136 << 10, 16 << 10, done.reset());
            done.assertStatus(BackendStatus.OK, "unmap of 16 KiB at 136 KiB");
            assertEquals(8L << 10, backend.provisioning(128 << 10, DEVICE_BYTES - (128 << 10)));
            assertEquals(-(16L << 10), backend.provisioning(136 << 10, DEVICE_BYTES - (136 << 10)), "the unmapped hole");
            assertEquals(40L << 10, backend.provisioning(152 << 10, DEVICE_BYTES - (152 << 10)));
        }
    }

    @ParameterizedTest(name = "{0}-byte blocks, {1}")
    @MethodSource("blockSizesAndPolicies")
    void fuaWritesAndFlushesComplete(int blockSize, WriteCachePolicy writeCache, @TempDir Path dir) {
        LunConfig config = config(dir, blockSize, writeCache);
        DeviceModel model = new DeviceModel(DEVICE_BYTES);
        Completion done = new Completion();
        try (LunBackend backend = BackendFactory.open(config)) {
            DeviceModel.fillPattern(buffer, 0, 8L * blockSize, 7);
            backend.write(blockSize, buffer, 0, 8 * blockSize, true, done.reset());
            done.assertStatus(BackendStatus.OK, "FUA write");
            model.write(blockSize, buffer, 0, 8 * blockSize);
            DeviceModel.fillPattern(buffer, 0, 4096, 8);
            backend.write(1 << 20, buffer, 0, 4096, false, done.reset());
            done.assertStatus(BackendStatus.OK, "cached write");
            model.write(1 << 20, buffer, 0, 4096);
            backend.flush(done.reset());
            done.assertStatus(BackendStatus.OK, "flush");
            backend.flush(done.reset());
            done.assertStatus(BackendStatus.OK, "flush with nothing to flush");
            model.assertMatches(backend, readBuffer, keepsData());
        }
        if (persistent()) {
            try (LunBackend reopened = BackendFactory.open(config)) {
                model.assertMatches(reopened, readBuffer, true);
            }
        }
    }

    @ParameterizedTest(name = "{0}-byte blocks, {1}")
    @MethodSource("blockSizesAndPolicies")
    void dataOutlivesCloseAndReopen(int blockSize, WriteCachePolicy writeCache, @TempDir Path dir) {
        assumeTrue(persistent(), "a backend that keeps nothing after close");
        LunConfig config = config(dir, blockSize, writeCache);
        DeviceModel model = new DeviceModel(DEVICE_BYTES);
        Completion done = new Completion();
        try (LunBackend backend = BackendFactory.open(config)) {
            for (int i = 0; i < 16; i++) {
                long offset = (long) i * (250 << 10) / blockSize * blockSize;
                DeviceModel.fillPattern(buffer, 0, 3L * blockSize, 100 + i);
                backend.write(offset, buffer, 0, 3 * blockSize, false, done.reset());
                done.assertStatus(BackendStatus.OK, "write at " + offset);
                model.write(offset, buffer, 0, 3 * blockSize);
            }
            backend.unmap(blockSize, blockSize, done.reset());
            done.assertStatus(BackendStatus.OK, "unmap");
            model.unmap(blockSize, blockSize);
        }
        try (LunBackend reopened = BackendFactory.open(config)) {
            model.assertMatches(reopened, readBuffer, true);
            DeviceModel.fillPattern(buffer, 0, blockSize, 200);
            reopened.write(0, buffer, 0, blockSize, false, done.reset());
            done.assertStatus(BackendStatus.OK, "write after reopening");
            model.write(0, buffer, 0, blockSize);
        }
        try (LunBackend again = BackendFactory.open(config)) {
            model.assertMatches(again, readBuffer, true);
        }
    }

    @ParameterizedTest(name = "{0}-byte blocks")
    @MethodSource("blockSizes")
    void readOnlyLunsRefuseWritesAndUnmapsAndServeReads(int blockSize, @TempDir Path dir) {
        LunConfig writable = config(dir, blockSize, WriteCachePolicy.WRITE_THROUGH);
        DeviceModel model = new DeviceModel(DEVICE_BYTES);
        Completion done = new Completion();
        if (persistent()) { // a read-only LUN serves what is there: put something there first
            try (LunBackend backend = BackendFactory.open(writable)) {
                DeviceModel.fillPattern(buffer, 0, 4L * blockSize, 9);
                backend.write(blockSize, buffer, 0, 4 * blockSize, false, done.reset());
                done.assertStatus(BackendStatus.OK, "write before reopening read-only");
                model.write(blockSize, buffer, 0, 4 * blockSize);
            }
        }
        try (LunBackend backend = BackendFactory.open(TestLuns.readOnly(writable))) {
            assertTrue(backend.readOnly());
            DeviceModel.fillPattern(buffer, 0, 4L * blockSize, 10);
            backend.write(blockSize, buffer, 0, 4 * blockSize, false, done.reset());
            done.assertStatus(BackendStatus.INTERNAL_ERROR, "write to a read-only LUN");
            backend.write(blockSize, buffer, 0, 4 * blockSize, true, done.reset());
            done.assertStatus(BackendStatus.INTERNAL_ERROR, "FUA write to a read-only LUN");
            backend.unmap(blockSize, blockSize, done.reset());
            done.assertStatus(BackendStatus.INTERNAL_ERROR, "unmap of a read-only LUN");
            backend.flush(done.reset());
            done.assertStatus(BackendStatus.OK, "flush of a read-only LUN");
            model.assertMatches(backend, readBuffer, keepsData());
        }
    }

    @ParameterizedTest(name = "{0}-byte blocks")
    @MethodSource("blockSizes")
    void aClosedBackendRefusesEveryOperation(int blockSize, @TempDir Path dir) {
        LunBackend backend = BackendFactory.open(config(dir, blockSize, WriteCachePolicy.WRITE_BACK));
        backend.close();
        backend.close(); // idempotent
        Completion done = new Completion();
        backend.read(0, buffer, 0, blockSize, done.reset());
        done.assertStatus(BackendStatus.INTERNAL_ERROR, "read after close");
        backend.write(0, buffer, 0, blockSize, false, done.reset());
        done.assertStatus(BackendStatus.INTERNAL_ERROR, "write after close");
        backend.flush(done.reset());
        done.assertStatus(BackendStatus.INTERNAL_ERROR, "flush after close");
        backend.unmap(0, blockSize, done.reset());
        done.assertStatus(BackendStatus.INTERNAL_ERROR, "unmap after close");
    }

    @ParameterizedTest(name = "{0}-byte blocks")
    @MethodSource("blockSizes")
    void rangesOutsideTheDeviceOrTheBufferAreRefusedNotServed(int blockSize, @TempDir Path dir) {
        try (LunBackend backend = BackendFactory.open(config(dir, blockSize, WriteCachePolicy.WRITE_BACK))) {
            Completion done = new Completion();
            backend.write(DEVICE_BYTES, buffer, 0, blockSize, false, done.reset());
            done.assertStatus(BackendStatus.INTERNAL_ERROR, "write past the end of the device");
            backend.read(DEVICE_BYTES - blockSize, buffer, 0, 2 * blockSize, done.reset());
            done.assertStatus(BackendStatus.INTERNAL_ERROR, "read across the end of the device");
            backend.read(0, buffer, BUFFER_BYTES - blockSize, 2 * blockSize, done.reset());
            done.assertStatus(BackendStatus.INTERNAL_ERROR, "read past the end of the buffer");
            backend.write(0, buffer, BUFFER_BYTES - blockSize, 2 * blockSize, false, done.reset());
            done.assertStatus(BackendStatus.INTERNAL_ERROR, "write from past the end of the buffer");
            backend.unmap(DEVICE_BYTES - blockSize, 2L * blockSize, done.reset());
            done.assertStatus(BackendStatus.INTERNAL_ERROR, "unmap across the end of the device");
            new DeviceModel(DEVICE_BYTES).assertMatches(backend, readBuffer, keepsData());
        }
    }

    /**
     * Eight threads write the blocks they own (block number modulo 8), one block per write, in random order, twice
     * over with different data: with 512-byte blocks every 4 KiB holds blocks of all eight threads, which is where a
     * read-modify-write without a lock would lose another thread's write.
     */
    @ParameterizedTest(name = "{0}-byte blocks")
    @MethodSource("blockSizes")
    void concurrentWritersOfDistinctBlocksAllLand(int blockSize, @TempDir Path dir) throws Exception {
        int blocks = (int) Math.min(DEVICE_BYTES / blockSize, 2048);
        try (LunBackend backend = BackendFactory.open(config(dir, blockSize, WriteCachePolicy.WRITE_BACK));
             ExecutorService writers = Executors.newFixedThreadPool(WRITER_THREADS)) {
            List<Future<DeviceModel>> results = new ArrayList<>();
            for (int t = 0; t < WRITER_THREADS; t++) {
                int thread = t;
                results.add(writers.submit(() -> writeOwnBlocks(backend, blockSize, blocks, thread)));
            }
            DeviceModel model = new DeviceModel(DEVICE_BYTES);
            for (int t = 0; t < WRITER_THREADS; t++) {
                model.takeBlocks(results.get(t).get(60, TimeUnit.SECONDS), blockSize, t, WRITER_THREADS);
            }
            model.assertMatches(backend, readBuffer, keepsData());
        }
    }

    private static DeviceModel writeOwnBlocks(LunBackend backend, int blockSize, int blocks, int thread) {
        DeviceModel own = new DeviceModel(DEVICE_BYTES);
        List<Integer> order = new ArrayList<>();
        for (int b = thread; b < blocks; b += WRITER_THREADS) {
            order.add(b);
        }
        Completion done = new Completion();
        try (Arena threadArena = Arena.ofConfined()) {
            MemorySegment data = threadArena.allocate(blockSize, FileBackend.DIRECT_IO_ALIGNMENT);
            for (int round = 0; round < 2; round++) {
                Collections.shuffle(order, new Random(thread * 31L + round));
                for (int block : order) {
                    DeviceModel.fillPattern(data, 0, blockSize, (long) block * 2 + round + 1000);
                    backend.write((long) block * blockSize, data, 0, blockSize, false, done.reset());
                    done.assertStatus(BackendStatus.OK, "write of block " + block + " by thread " + thread);
                    own.write((long) block * blockSize, data, 0, blockSize);
                }
            }
        }
        return own;
    }
}

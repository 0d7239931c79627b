package org.rdmablock.target.backend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.rdmablock.protocol.scsi.BackendStatus;
import org.rdmablock.target.config.LunConfig;
import org.rdmablock.target.config.LunConfig.BackendKind;
import org.rdmablock.target.config.LunConfig.WriteCachePolicy;

/**
 * The read and write path allocates nothing: 100 000 operations (4 KiB writes and reads in turn, at spread offsets,
 * into and out of a native buffer) counted with the JVM's allocation counter of the calling thread, which is the only
 * thread involved since every backend completes inline. After as many operations of warm-up, so that C2 has compiled
 * the path (with 30 000, a run once caught the file backend half-compiled at 1.6 bytes per operation); what reading
 * the counter allocates is subtracted. Measured: 0 bytes in total for every backend, RocksDB included. O_DIRECT and
 * RocksDB run half as many operations: each one reaches the disk (O_DIRECT) or the WAL and memtable flushes (RocksDB).
 * The file LUN runs once more as on the poller thread with blocking-call threads (a caller naming a {@link DeferredCall}:
 * its cached reads through preadv2(RWF_NOWAIT), its whole-page writes as they come).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class BackendAllocationTest {
    private static final int IO_BYTES = 4096;
    private static final long DEVICE_BYTES = 64L << 20;
    /**
     * Average bytes per operation tolerated (the verbs module's bound): the smallest object is 16 bytes, so an
     * allocation per operation fails it, while a JIT deoptimisation or a stray lazy initialisation, once, does not.
     */
    private static final double MAX_BYTES_PER_OP = 2.0;

    /** One backend, measured over {@code operations} after as many of warm-up. */
    record Case(String name, BackendKind kind, boolean directIo, int operations, boolean onPoller) {
        Case(String name, BackendKind kind, boolean directIo, int operations) {
            this(name, kind, directIo, operations, false);
        }

        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Case> backends() {
        return Stream.of(
                new Case("file", BackendKind.FILE, false, 100_000),
                // the poller with blocking-call threads: cached reads by preadv2(RWF_NOWAIT), whole-page writes as they come
                new Case("file, for a caller that must not wait", BackendKind.FILE, false, 100_000, true),
                new Case("file O_DIRECT", BackendKind.FILE, true, 50_000),
                new Case("memory", BackendKind.MEMORY, false, 100_000),
                new Case("null", BackendKind.NULL, false, 100_000),
                new Case("rocksdb", BackendKind.ROCKSDB, false, 50_000));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("backends")
    void readsAndWritesAllocateNothingPerOperation(Case backendCase, @TempDir Path dir) {
        Path path = backendCase.kind() == BackendKind.FILE ? dir.resolve("lun.img") : backendCase.kind() == BackendKind.ROCKSDB ? dir.resolve("db") : null;
        LunConfig config = TestLuns.lun(backendCase.kind(), path, DEVICE_BYTES, 4096, false, WriteCachePolicy.WRITE_BACK, backendCase.directIo());
        try (LunBackend backend = BackendFactory.open(config); Arena arena = Arena.ofConfined()) {
            MemorySegment buffer = arena.allocate(2 * IO_BYTES, FileBackend.DIRECT_IO_ALIGNMENT);
            DeviceModel.fillPattern(buffer, 0, IO_BYTES, 1);
            Completion done = new Completion();
            if (backendCase.onPoller()) {
                done.deferringTo(new DeferredCall()); // nothing is deferred here: run() fails on a call not completed inline
            }
            measure(backendCase, backend, buffer, done);
        }
    }

    /** Warm-up, then the measured operations, with the calling thread's allocation counter around them. */
    private static void measure(Case backendCase, LunBackend backend, MemorySegment buffer, Completion done) {
        run(backend, buffer, done, backendCase.operations());

        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long self = Thread.currentThread().threadId();
        long first = threads.getThreadAllocatedBytes(self);
        long before = threads.getThreadAllocatedBytes(self);
        long counting = before - first; // what reading the counter allocates, not the backend
        run(backend, buffer, done, backendCase.operations());
        long allocated = threads.getThreadAllocatedBytes(self) - before - counting;
        double perOp = allocated / (double) backendCase.operations();
        System.out.printf("%s: %d bytes allocated over %d operations (%.3f bytes per operation)%n",
                backendCase, allocated, backendCase.operations(), perOp);
        assertTrue(perOp <= MAX_BYTES_PER_OP, backendCase + " allocated " + allocated + " bytes over "
                + backendCase.operations() + " reads and writes");
        if (backendCase.kind() != BackendKind.NULL) { // the operations did their work: the last write reads back
            assertEquals(-1, MemorySegment.mismatch(buffer, 0, IO_BYTES, buffer, IO_BYTES, 2 * IO_BYTES), "the last read");
        }
    }

    /** {@code operations / 2} writes and as many reads of the block just written, spread over the device. */
    private static void run(LunBackend backend, MemorySegment buffer, Completion done, int operations) {
        long blocks = DEVICE_BYTES / IO_BYTES;
        for (int i = 0; i < operations / 2; i++) {
            long offset = (i * 7919L % blocks) * IO_BYTES;
            backend.write(offset, buffer, 0, IO_BYTES, false, done.reset());
            if (done.status() != BackendStatus.OK) {
                throw new AssertionError("write at " + offset + ": " + done.status());
            }
            backend.read(offset, buffer, IO_BYTES, IO_BYTES, done.reset());
            if (done.status() != BackendStatus.OK) {
                throw new AssertionError("read at " + offset + ": " + done.status());
            }
        }
    }
}

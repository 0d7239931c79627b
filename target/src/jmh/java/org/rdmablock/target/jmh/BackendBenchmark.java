package org.rdmablock.target.jmh;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.rdmablock.protocol.scsi.BackendCallback;
import org.rdmablock.protocol.scsi.BackendStatus;
import org.rdmablock.target.backend.BackendFactory;
import org.rdmablock.target.backend.LunBackend;
import org.rdmablock.target.config.LunConfig;
import org.rdmablock.target.config.LunConfig.BackendKind;
import org.rdmablock.target.config.LunConfig.WriteCachePolicy;

/**
 * 4 KiB reads, writes and FUA writes per backend, one thread, at random 4 KiB-aligned offsets of a 64 MiB LUN that
 * was written whole first (so reads find data, and the file's blocks are allocated). Write-back LUNs: a plain write
 * is cached (page cache, RocksDB memtable and WAL file), a FUA write is durable (O_DSYNC; WAL sync). The file and
 * RocksDB backends live under {@code -Dbackend.dir} (default: the target module's build directory; on tmpfs, syncs
 * cost nothing, so use a disk to see them). Run with {@code -prof gc} to see allocation (0 B/op expected).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2) @Measurement(iterations = 3, time = 2)
@Fork(1)
public class BackendBenchmark {
    private static final int IO_BYTES = 4096;
    private static final long DEVICE_BYTES = 64L << 20;
    private static final long CACHE_BYTES = 64L << 20;

    /** {@code file-direct}: the file backend with O_DIRECT. */
    @Param({"null", "memory", "file", "file-direct", "rocksdb"})
    public String backend;

    private Path dir;
    private LunBackend lun;
    private Arena arena;
    private MemorySegment buffer;
    private final Completion completion = new Completion();
    private long random = 0x9E3779B97F4A7C15L;

    /** The benchmark thread's callback: every backend completes inline. */
    private static final class Completion implements BackendCallback {
        BackendStatus status;

        @Override
        public void completed(BackendStatus status) {
            this.status = status;
        }
    }

    @Setup(Level.Trial)
    public void open() throws IOException {
        Path base = Path.of(System.getProperty("backend.dir", Files.isDirectory(Path.of("target/build")) ? "target/build" : "build"));
        Files.createDirectories(base);
        dir = Files.createTempDirectory(base.toAbsolutePath(), "jmh-backend-");
        BackendKind kind = switch (backend) {
            case "null" -> BackendKind.NULL;
            case "memory" -> BackendKind.MEMORY;
            case "file", "file-direct" -> BackendKind.FILE;
            case "rocksdb" -> BackendKind.ROCKSDB;
            default -> throw new IllegalArgumentException(backend);
        };
        Path path = kind == BackendKind.FILE ? dir.resolve("lun.img") : kind == BackendKind.ROCKSDB ? dir.resolve("db") : null;
        lun = BackendFactory.open(new LunConfig(0, kind, path, DEVICE_BYTES, IO_BYTES, false, WriteCachePolicy.WRITE_BACK,
                backend.equals("file-direct"), kind == BackendKind.ROCKSDB ? CACHE_BYTES : 0, List.of(), true, false));
        arena = Arena.ofShared();
        buffer = arena.allocate(IO_BYTES, IO_BYTES);
        for (long offset = 0; offset < DEVICE_BYTES; offset += IO_BYTES) {
            buffer.set(java.lang.foreign.ValueLayout.JAVA_LONG, 0, offset);
            lun.write(offset, buffer, 0, IO_BYTES, false, completion);
            check();
        }
        lun.flush(completion);
        check();
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
        lun.close();
        arena.close();
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(file);
            }
        }
    }

    @Benchmark
    public BackendStatus read4k() {
        lun.read(nextOffset(), buffer, 0, IO_BYTES, completion);
        return check();
    }

    @Benchmark
    public BackendStatus write4k() {
        lun.write(nextOffset(), buffer, 0, IO_BYTES, false, completion);
        return check();
    }

    @Benchmark
    public BackendStatus writeFua4k() {
        lun.write(nextOffset(), buffer, 0, IO_BYTES, true, completion);
        return check();
    }

    private long nextOffset() {
        random ^= random << 13;
        random ^= random >>> 7;
        random ^= random << 17;
        return Long.remainderUnsigned(random, DEVICE_BYTES / IO_BYTES) * IO_BYTES;
    }

    private BackendStatus check() {
        BackendStatus status = completion.status;
        if (status != BackendStatus.OK) {
            throw new IllegalStateException(backend + ": " + status);
        }
        return status;
    }
}

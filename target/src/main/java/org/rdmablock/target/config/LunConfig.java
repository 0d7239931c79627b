package org.rdmablock.target.config;

import java.nio.file.Path;
import java.util.List;

/**
 * One logical unit.
 *
 * @param number            the LUN, 0..16383 (SAM flat addressing)
 * @param backend           where its blocks live
 * @param path              file of a {@code file} LUN, directory of a {@code rocksdb} LUN (absolute, resolved against
 *                          the config file's directory); null for {@code memory} and {@code null}
 * @param sizeBytes         capacity in bytes, a multiple of blockSize
 * @param blockSize         logical block size, 512 or 4096
 * @param readOnly          writes fail with DATA PROTECT
 * @param writeCache        durability policy
 * @param directIo          {@code file} only: open with O_DIRECT
 * @param blockCacheBytes   {@code rocksdb} only: block cache size
 * @param allowedInitiators initiator port ids allowed to use it; empty means any initiator
 * @param create            {@code file} and {@code rocksdb}: make the file or database when it is missing (never its
 *                          folder); otherwise a missing one is refused
 * @param grow              {@code file}: extend an existing file smaller than {@code sizeBytes}; otherwise refused
 */
public record LunConfig(int number, BackendKind backend, Path path, long sizeBytes, int blockSize, boolean readOnly,
                        WriteCachePolicy writeCache, boolean directIo, long blockCacheBytes,
                        List<InitiatorPortId> allowedInitiators, boolean create, boolean grow) {
    /** Largest LUN: SAM's flat space addressing has 14 bits. */
    public static final int MAX_NUMBER = 16383;
    /** The logical block sizes a LUN may have. */
    public static final List<Integer> BLOCK_SIZES = List.of(512, 4096);
    /** Default backend. */
    public static final BackendKind DEFAULT_BACKEND = BackendKind.FILE;
    /** Default logical block size: 512, what every initiator handles. */
    public static final int DEFAULT_BLOCK_SIZE = 512;
    /** LUNs are writable by default. */
    public static final boolean DEFAULT_READ_ONLY = false;
    /** Default durability: a write is durable before its response. */
    public static final WriteCachePolicy DEFAULT_WRITE_CACHE = WriteCachePolicy.WRITE_THROUGH;
    /** Files are opened through the page cache by default ({@code direct_io} needs aligned buffers). */
    public static final boolean DEFAULT_DIRECT_IO = false;
    /** A missing file or database is refused unless the config asks for a new one. */
    public static final boolean DEFAULT_CREATE = false;
    /** A file smaller than the configured size is refused unless the config asks to grow it. */
    public static final boolean DEFAULT_GROW = false;
    /** Default RocksDB block cache: 64 MiB; {@link #blockCacheBytes} is 0 for other backends. */
    public static final long DEFAULT_BLOCK_CACHE_BYTES = 64L << 20;

    public LunConfig {
        allowedInitiators = List.copyOf(allowedInitiators);
    }

    /** This LUN with another capacity (the management socket's resize). */
    public LunConfig withSize(long bytes) {
        return new LunConfig(number, backend, path, bytes, blockSize, readOnly, writeCache, directIo, blockCacheBytes,
                allowedInitiators, create, grow);
    }

    /** This LUN read-only, or writable. */
    public LunConfig withReadOnly(boolean refuseWrites) {
        return new LunConfig(number, backend, path, sizeBytes, blockSize, refuseWrites, writeCache, directIo,
                blockCacheBytes, allowedInitiators, create, grow);
    }

    /** This LUN with other allowed initiators (empty: any). */
    public LunConfig withAllowedInitiators(List<InitiatorPortId> initiators) {
        return new LunConfig(number, backend, path, sizeBytes, blockSize, readOnly, writeCache, directIo, blockCacheBytes,
                initiators, create, grow);
    }

    /** Whether the initiator with this port id may use the LUN. */
    public boolean allows(InitiatorPortId initiator) {
        return allowedInitiators.isEmpty() || allowedInitiators.contains(initiator);
    }

    /** Where a LUN's blocks are kept. */
    public enum BackendKind {
        /** A sparse file, positional I/O (TOML {@code "file"}). */
        FILE,
        /** RocksDB, blocks keyed by LUN and block group (TOML {@code "rocksdb"}). */
        ROCKSDB,
        /** Heap-free native memory, lost at exit (TOML {@code "memory"}). */
        MEMORY,
        /** Reads zeroes, discards writes: for benchmarks (TOML {@code "null"}). */
        NULL
    }

    /** When a write is durable. */
    public enum WriteCachePolicy {
        /** Durable before the response (TOML {@code "write-through"}); the LUN reports WCE=0. */
        WRITE_THROUGH,
        /** Durable after FUA or SYNCHRONIZE CACHE (TOML {@code "write-back"}); the LUN reports WCE=1. */
        WRITE_BACK
    }
}

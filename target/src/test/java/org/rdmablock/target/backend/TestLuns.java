package org.rdmablock.target.backend;

import java.nio.file.Path;
import java.util.List;

import org.rdmablock.target.config.LunConfig;
import org.rdmablock.target.config.LunConfig.BackendKind;
import org.rdmablock.target.config.LunConfig.WriteCachePolicy;

/**
 * LUN configurations for the backend tests, with defaults for what a test does not care about ({@code create = true}:
 * each test makes its LUN in a folder of its own).
 */
final class TestLuns {
    /** The LUN number the tests use unless they test numbers. */
    static final int LUN = 3;
    /** RocksDB block cache of the tests: small, they hold a few MiB. */
    static final long CACHE_BYTES = 8L << 20;

    private TestLuns() {
    }

    static LunConfig lun(BackendKind kind, Path path, long sizeBytes, int blockSize) {
        return lun(kind, path, sizeBytes, blockSize, false, WriteCachePolicy.WRITE_BACK, false);
    }

    static LunConfig lun(BackendKind kind, Path path, long sizeBytes, int blockSize, boolean readOnly,
                         WriteCachePolicy writeCache, boolean directIo) {
        return new LunConfig(LUN, kind, path, sizeBytes, blockSize, readOnly, writeCache, directIo,
                kind == BackendKind.ROCKSDB ? CACHE_BYTES : 0, List.of(), true, false);
    }

    /** The same LUN with another number. */
    static LunConfig numbered(LunConfig lun, int number) {
        return new LunConfig(number, lun.backend(), lun.path(), lun.sizeBytes(), lun.blockSize(), lun.readOnly(),
                lun.writeCache(), lun.directIo(), lun.blockCacheBytes(), lun.allowedInitiators(), lun.create(), lun.grow());
    }

    /** The same LUN, read-only. */
    static LunConfig readOnly(LunConfig lun) {
        return new LunConfig(lun.number(), lun.backend(), lun.path(), lun.sizeBytes(), lun.blockSize(), true,
                lun.writeCache(), lun.directIo(), lun.blockCacheBytes(), lun.allowedInitiators(), lun.create(), lun.grow());
    }

    /** The same LUN without {@code create = true}: its file or database must exist. */
    static LunConfig existing(LunConfig lun) {
        return new LunConfig(lun.number(), lun.backend(), lun.path(), lun.sizeBytes(), lun.blockSize(), lun.readOnly(),
                lun.writeCache(), lun.directIo(), lun.blockCacheBytes(), lun.allowedInitiators(), false, lun.grow());
    }

    /** The same LUN with {@code grow = true}. */
    static LunConfig growing(LunConfig lun) {
        return new LunConfig(lun.number(), lun.backend(), lun.path(), lun.sizeBytes(), lun.blockSize(), lun.readOnly(),
                lun.writeCache(), lun.directIo(), lun.blockCacheBytes(), lun.allowedInitiators(), lun.create(), true);
    }

    /** The same LUN with another size. */
    static LunConfig sized(LunConfig lun, long sizeBytes) {
        return new LunConfig(lun.number(), lun.backend(), lun.path(), sizeBytes, lun.blockSize(), lun.readOnly(),
                lun.writeCache(), lun.directIo(), lun.blockCacheBytes(), lun.allowedInitiators(), lun.create(), lun.grow());
    }
}

package org.rdmablock.target.backend;

import java.util.Locale;

import org.rdmablock.target.config.LunConfig;

/**
 * Opens the backend a LUN's configuration names: {@code file} ({@link FileBackend}), {@code rocksdb}
 * ({@link RocksDbBackend}), {@code memory} ({@link MemoryBackend}) or {@code null} ({@link NullBackend}). Called by
 * the thread that starts the daemon (or reloads a LUN), never on the I/O path.
 */
public final class BackendFactory {
    private BackendFactory() {
    }

    /**
     * Opens the LUN's storage, creating a missing file or database only when the config says {@code create = true}
     * (and never its folder: a missing folder is a typo or a disk not mounted, not a place for a blank disk).
     *
     * @throws BackendOpenException naming the LUN, its path and why it cannot be opened
     */
    public static LunBackend open(LunConfig lun) {
        String kind = lun.backend().name().toLowerCase(Locale.ROOT);
        if (lun.blockSize() <= 0 || lun.sizeBytes() <= 0 || lun.sizeBytes() % lun.blockSize() != 0) {
            throw new BackendOpenException(lun.number(), kind, lun.path(), "the size, " + lun.sizeBytes()
                    + " bytes, is not a positive multiple of the block size, " + lun.blockSize(), null);
        }
        boolean needsPath = lun.backend() == LunConfig.BackendKind.FILE || lun.backend() == LunConfig.BackendKind.ROCKSDB;
        if (needsPath && lun.path() == null) {
            throw new BackendOpenException(lun.number(), kind, null, "a " + kind + " LUN needs a path", null);
        }
        return switch (lun.backend()) {
            case FILE -> FileBackend.open(lun);
            case ROCKSDB -> RocksDbBackend.open(lun);
            case MEMORY -> MemoryBackend.open(lun);
            case NULL -> new NullBackend(lun);
        };
    }
}

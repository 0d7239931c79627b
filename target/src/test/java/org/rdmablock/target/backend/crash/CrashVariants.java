package org.rdmablock.target.backend.crash;

import org.junit.jupiter.params.provider.Arguments;
import org.rdmablock.target.config.LunConfig.BackendKind;
import org.rdmablock.target.config.LunConfig.WriteCachePolicy;
import org.rocksdb.util.Environment;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.stream.Stream;

/** What the crash tests share: the persistent backends and policies they try, and RocksDB's library for the children. */
public final class CrashVariants {
    private CrashVariants() {
    }

    /** Every persistent backend with each write-cache policy. */
    public static Stream<Arguments> persistent() {
        return Stream.of(
                Arguments.of(BackendKind.FILE, WriteCachePolicy.WRITE_THROUGH),
                Arguments.of(BackendKind.FILE, WriteCachePolicy.WRITE_BACK),
                Arguments.of(BackendKind.ROCKSDB, WriteCachePolicy.WRITE_THROUGH),
                Arguments.of(BackendKind.ROCKSDB, WriteCachePolicy.WRITE_BACK));
    }

    /**
     * Unpacks RocksDB's native library into {@code dir} once, for the children's {@code -Djava.library.path}: a child
     * that unpacked its own copy and was killed would leave it behind.
     */
    public static void unpackRocksDb(final Path dir) throws IOException {
        try (InputStream library = Environment.class.getClassLoader().getResourceAsStream(Environment.getJniLibraryFileName("rocksdb"))) {
            if (library != null) {
                Files.copy(library, dir.resolve(System.mapLibraryName("rocksdbjni")), StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }
}

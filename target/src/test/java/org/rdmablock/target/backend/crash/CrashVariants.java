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
     * The command line of a child JVM on this JVM's class path running {@code mainClass}: light (C1 only, serial GC,
     * 128 MiB) because the crash tests start many, with RocksDB's library from {@code nativeLibraries}.
     */
    public static java.util.List<String> childJvm(final Path nativeLibraries, final String mainClass, final String... args) {
        final java.util.List<String> command = new java.util.ArrayList<>(java.util.List.of(
                ProcessHandle.current().info().command().orElse("java"),
                "-cp", System.getProperty("java.class.path"),
                "-Djava.library.path=" + nativeLibraries,
                "--enable-native-access=ALL-UNNAMED",
                "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx128m",
                mainClass));
        command.addAll(java.util.List.of(args));
        return command;
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

    /** A trial's outcome, or its own failure (an assertion about lost blocks) rethrown as it was. */
    public static <T> T resultOf(final java.util.concurrent.Future<T> outcome) throws Exception {
        try {
            return outcome.get();
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof Error error) {
                throw error;
            }
            throw e;
        }
    }
}

package org.rdmablock.protocol.fuzz;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;

/**
 * The committed seed corpus under {@code src/test/resources/fuzz}: real IUs ({@code srp/}) and the CDBs
 * Linux's SCSI layer sends ({@code cdb/}), one hex file each, written by {@link SeedCorpusWriter}.
 */
final class SeedCorpus {
    /** One seed: the file name and its bytes. */
    record Seed(String name, byte[] bytes) {
        @Override
        public String toString() {
            return name;
        }
    }

    private SeedCorpus() {
    }

    static List<Seed> srp() {
        return load("fuzz/srp");
    }

    static List<Seed> cdb() {
        return load("fuzz/cdb");
    }

    static byte[] parse(String hex) {
        return HexFormat.of().parseHex(hex.replaceAll("\\s+", ""));
    }

    private static List<Seed> load(String folder) {
        URL url = SeedCorpus.class.getClassLoader().getResource(folder);
        if (url == null) {
            throw new IllegalStateException("no seed corpus at " + folder);
        }
        try (Stream<Path> files = Files.list(Path.of(url.toURI()))) {
            return files.filter(p -> p.toString().endsWith(".hex")).sorted()
                    .map(p -> new Seed(p.getFileName().toString(), read(p))).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] read(Path p) {
        try {
            return parse(Files.readString(p));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

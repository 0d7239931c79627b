package org.rdmablock.protocol.fuzz;

import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * Structure-aware inputs: a corpus seed with a few stacked mutations, the way a coverage-guided fuzzer's
 * havoc stage reaches past the fixed header checks into descriptor and length validation. The mutators:
 * bit flips; a byte set to a boundary value (0x00, 0xFF, 0x7F, 0x80 and other edges) or to a random one;
 * a length, count or format field (from the layout's field list, or any aligned 1-, 2- or 4-byte field)
 * overwritten with an extreme or with a value near the input's own length; truncation anywhere or just
 * around a layout boundary; extension with zeros or random bytes; splicing with another seed; deleting a
 * block; copying a block over another place.
 */
public final class Mutations {
    /** A big-endian length, count or format field of a layout: where mutations matter most. */
    public record Field(int offset, int width) {
        public Field {
            if (offset < 0 || (width != 1 && width != 2 && width != 4 && width != 8)) {
                throw new IllegalArgumentException(offset + "/" + width);
            }
        }
    }

    /** The mutators, one of which {@link #mutate(Random, byte[], Kind)} applies. */
    public enum Kind {
        BIT_FLIP, BOUNDARY_BYTE, RANDOM_BYTE, FIELD_OVERWRITE, TRUNCATE, TRUNCATE_AT_BOUNDARY, EXTEND, SPLICE, DELETE_BLOCK,
        COPY_BLOCK
    }

    /** The boundary values a byte is most often set to. */
    static final int[] BOUNDARY_BYTES = {0x00, 0xFF, 0x7F, 0x80};

    /**
     * SRP fields: buffer formats and descriptor counts (5, 6, 7), the additional CDB length (31), the login
     * request's IU length (16) and immediate-data offset (28), the RSP and AER sense and response data
     * lengths (28, 32), and, after a 16-byte CDB, the immediate-data length (48), a direct descriptor's or
     * indirect table's length (60), an indirect total length (64) and the first two list entries' lengths.
     */
    public static final List<Field> SRP_FIELDS = List.of(new Field(5, 1), new Field(6, 1), new Field(7, 1), new Field(31, 1),
            new Field(16, 4), new Field(28, 2), new Field(28, 4), new Field(32, 4), new Field(48, 4), new Field(60, 4),
            new Field(64, 4), new Field(80, 4), new Field(96, 4));

    /** Offsets where SRP fixed parts, descriptors and immediate data begin or end. */
    public static final int[] SRP_BOUNDARIES = {16, 20, 32, 36, 40, 48, 52, 56, 64, 68, 80, 84, 100};

    /**
     * CDB fields: the flags and page bytes (1, 2), INQUIRY's allocation length (3), the 6-byte transfer or
     * allocation length (4), the 10- and 12-byte LBA (2) and lengths (7, 6), the 16-byte LBA (2) and length
     * (10), and the service action CDBs' allocation lengths (6, 10).
     */
    public static final List<Field> CDB_FIELDS = List.of(new Field(1, 1), new Field(2, 1), new Field(3, 2), new Field(4, 1),
            new Field(2, 4), new Field(7, 2), new Field(6, 4), new Field(2, 8), new Field(10, 4), new Field(9, 1),
            new Field(13, 1));

    /** Where CDBs of each size group end. */
    public static final int[] CDB_BOUNDARIES = {6, 10, 12, 16, 32};

    private final List<byte[]> seeds;
    private final List<Field> fields;
    private final int[] boundaries;
    private final int maxLength;
    private final int maxMutations;

    /**
     * @param maxLength    results longer than this are cut to it
     * @param maxMutations each input gets 0 to this many stacked mutations
     */
    public Mutations(List<byte[]> seeds, List<Field> fields, int[] boundaries, int maxLength, int maxMutations) {
        if (seeds.isEmpty()) {
            throw new IllegalArgumentException("no seeds");
        }
        this.seeds = seeds.stream().map(byte[]::clone).toList();
        this.fields = List.copyOf(fields);
        this.boundaries = boundaries.clone();
        this.maxLength = maxLength;
        this.maxMutations = maxMutations;
    }

    /** Mutated SRP IUs from the committed corpus (at most 8260 bytes, ib_srp's IU size). */
    public static Mutations srp() {
        return new Mutations(SeedCorpus.srp().stream().map(SeedCorpus.Seed::bytes).toList(), SRP_FIELDS, SRP_BOUNDARIES, 8260, 6);
    }

    /** Mutated CDBs from the committed corpus (at most 260 bytes, the longest CDB). */
    public static Mutations cdb() {
        return new Mutations(SeedCorpus.cdb().stream().map(SeedCorpus.Seed::bytes).toList(), CDB_FIELDS, CDB_BOUNDARIES, 260, 6);
    }

    /** A random seed with 0 to {@code maxMutations} random mutations applied in turn. */
    public byte[] next(Random random) {
        byte[] bytes = Generators.pick(random, seeds).clone();
        int count = random.nextInt(maxMutations + 1);
        for (int i = 0; i < count; i++) {
            bytes = mutate(random, bytes, Kind.values()[random.nextInt(Kind.values().length)]);
        }
        return bytes;
    }

    /** Applies one mutation of the given kind; returns a new array (the input is not changed). */
    public byte[] mutate(Random random, byte[] input, Kind kind) {
        byte[] out = input.clone();
        int n = out.length;
        switch (kind) {
            case BIT_FLIP -> {
                if (n > 0) {
                    out[random.nextInt(n)] ^= (byte) (1 << random.nextInt(8));
                }
            }
            case BOUNDARY_BYTE -> {
                if (n > 0) {
                    int[] values = random.nextBoolean() ? BOUNDARY_BYTES : Generators.INTERESTING_BYTES;
                    out[random.nextInt(n)] = (byte) values[random.nextInt(values.length)];
                }
            }
            case RANDOM_BYTE -> {
                if (n > 0) {
                    out[random.nextInt(n)] = (byte) random.nextInt(256);
                }
            }
            case FIELD_OVERWRITE -> overwriteField(random, out);
            case TRUNCATE -> out = Arrays.copyOf(out, n == 0 ? 0 : random.nextInt(n));
            case TRUNCATE_AT_BOUNDARY -> {
                // Cut within four bytes of a layout boundary, where the length checks live.
                int cut = boundaries[random.nextInt(boundaries.length)] + random.nextInt(9) - 4;
                out = Arrays.copyOf(out, Math.max(0, Math.min(n, cut)));
            }
            case EXTEND -> {
                out = Arrays.copyOf(out, n + 1 + random.nextInt(64));
                if (random.nextBoolean()) {
                    for (int i = n; i < out.length; i++) {
                        out[i] = (byte) random.nextInt(256);
                    }
                }
            }
            case SPLICE -> out = splice(random, out, Generators.pick(random, seeds));
            case DELETE_BLOCK -> {
                if (n > 0) {
                    int size = 1 + random.nextInt(Math.min(n, 16));
                    int from = random.nextInt(n - size + 1);
                    byte[] shorter = Arrays.copyOf(out, n - size);
                    System.arraycopy(out, from + size, shorter, from, n - from - size);
                    out = shorter;
                }
            }
            case COPY_BLOCK -> {
                if (n > 1) {
                    int size = 1 + random.nextInt(Math.min(n - 1, 16));
                    System.arraycopy(input, random.nextInt(n - size + 1), out, random.nextInt(n - size + 1), size);
                }
            }
        }
        return out.length > maxLength ? Arrays.copyOf(out, maxLength) : out;
    }

    /**
     * The head of {@code a} and the tail of {@code b}: cut at the same offset in both (keeping the layout
     * aligned) or at independent offsets.
     */
    static byte[] splice(Random random, byte[] a, byte[] b) {
        int cutA = random.nextInt(a.length + 1);
        int cutB = random.nextBoolean() ? Math.min(cutA, b.length) : random.nextInt(b.length + 1);
        byte[] out = Arrays.copyOf(a, cutA + b.length - cutB);
        System.arraycopy(b, cutB, out, cutA, b.length - cutB);
        return out;
    }

    /** Writes an extreme, or a value near the input's length, big-endian into a field of {@code out}. */
    private void overwriteField(Random random, byte[] out) {
        int n = out.length;
        if (n == 0) {
            return;
        }
        Field field = null;
        if (random.nextInt(4) != 0) {
            List<Field> fitting = fields.stream().filter(f -> f.offset() + f.width() <= n).toList();
            if (!fitting.isEmpty()) {
                field = Generators.pick(random, fitting);
            }
        }
        if (field == null) {
            int width = 1 << random.nextInt(3);
            if (width > n) {
                width = 1;
            }
            field = new Field(random.nextInt(n - width + 1) & -width, width);
        }
        int bits = 8 * field.width();
        long mask = bits == 64 ? -1L : (1L << bits) - 1;
        long[] candidates = {0, 1, mask, mask - 1, 1L << (bits - 1), (1L << (bits - 1)) - 1, 16, n, n - 1L, n + 1L,
                n - field.offset(), random.nextLong()};
        long value = candidates[random.nextInt(candidates.length)] & mask;
        for (int i = 0; i < field.width(); i++) {
            out[field.offset() + i] = (byte) (value >>> (bits - 8 - 8 * i));
        }
    }
}

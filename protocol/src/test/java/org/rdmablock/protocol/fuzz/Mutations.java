package org.rdmablock.protocol.fuzz;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

import java.util.Arrays;
import java.util.List;

/**
 * Structure-aware inputs for the fuzz properties: seeds from the corpus with a handful of mutations
 * (bit flips, boundary values written over bytes or over 32-bit length fields, truncation, extension),
 * the way a coverage-guided fuzzer's mutators would reach past the fixed header checks.
 */
final class Mutations {
    private static final int[] INTERESTING = {0x00, 0x01, 0x02, 0x03, 0x04, 0x0F, 0x10, 0x1F, 0x20, 0x30, 0x3F, 0x40,
            0x7F, 0x80, 0xC0, 0xFE, 0xFF};

    /** Offsets where SRP fixed parts, descriptors and immediate data begin or end. */
    private static final int[] BOUNDARIES = {16, 20, 32, 36, 40, 48, 52, 56, 64, 68, 80, 84, 100};

    private Mutations() {
    }

    /** One mutation: kind, position and value, applied in order. */
    record Mutation(int kind, int position, int value) {
        byte[] apply(byte[] input) {
            if (input.length == 0) {
                return kind == 5 ? new byte[]{(byte) value} : input;
            }
            int at = Math.floorMod(position, input.length);
            byte[] out = input.clone();
            switch (kind) {
                case 0 -> out[at] ^= (byte) (1 << (value & 7));
                case 1 -> out[at] = (byte) INTERESTING[Math.floorMod(value, INTERESTING.length)];
                case 2 -> out[at] = (byte) value;
                case 3 -> {
                    // Overwrite an aligned 4-byte field (a length, a count) with an extreme value.
                    int field = at & ~3;
                    int[] extremes = {0, 1, 16, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFF, value};
                    int v = extremes[Math.floorMod(value, extremes.length)];
                    for (int i = 0; i < 4 && field + i < out.length; i++) {
                        out[field + i] = (byte) (v >>> (24 - 8 * i));
                    }
                }
                case 4 -> out = Arrays.copyOf(out, at);
                case 5 -> out = Arrays.copyOf(out, out.length + 1 + Math.floorMod(value, 64));
                default -> {
                    // Cut just around a field boundary of the SRP layouts, where length checks live.
                    int boundary = BOUNDARIES[Math.floorMod(position, BOUNDARIES.length)] + Math.floorMod(value, 9) - 4;
                    out = Arrays.copyOf(out, Math.max(0, Math.min(out.length, boundary)));
                }
            }
            return out;
        }
    }

    static Arbitrary<Mutation> mutation() {
        return Combinators.combine(Arbitraries.integers().between(0, 6), Arbitraries.integers(), Arbitraries.integers())
                .as(Mutation::new);
    }

    /** A seed with 0 to 6 mutations applied. */
    static Arbitrary<byte[]> mutated(List<SeedCorpus.Seed> seeds) {
        return Combinators.combine(Arbitraries.of(seeds), mutation().list().ofMaxSize(6)).as((seed, mutations) -> {
            byte[] bytes = seed.bytes();
            for (Mutation m : mutations) {
                bytes = m.apply(bytes);
            }
            return bytes;
        });
    }
}

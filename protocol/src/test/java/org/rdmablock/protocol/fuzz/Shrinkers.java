package org.rdmablock.protocol.fuzz;

import java.util.Arrays;
import java.util.function.Function;
import java.util.stream.IntStream;
import java.util.stream.Stream;

/** Candidate generators for {@link FuzzRunner.Shrinker}: smaller or simpler variants of a value, boldest first. */
public final class Shrinkers {
    private Shrinkers() {
    }

    /**
     * Shorter arrays (empty, then chunks of halving size removed at every position), then the same
     * length with one non-zero byte cleared.
     */
    public static Stream<byte[]> bytes(byte[] input) {
        int n = input.length;
        if (n == 0) {
            return Stream.empty();
        }
        Stream<byte[]> empty = Stream.of(new byte[0]);
        Stream<byte[]> removals = IntStream.iterate(n / 2 == 0 ? 1 : n / 2, size -> size >= 1, size -> size == 1 ? 0 : size / 2)
                .boxed()
                .flatMap(size -> IntStream.iterate(n - size, from -> from >= 0, from -> from - size)
                        .mapToObj(from -> remove(input, from, size)));
        Stream<byte[]> zeroed = IntStream.range(0, n).filter(i -> input[i] != 0).mapToObj(i -> {
            byte[] b = input.clone();
            b[i] = 0;
            return b;
        });
        return Stream.of(empty, removals, zeroed).flatMap(Function.identity());
    }

    /** Values closer to {@code target}: the target itself, halfway there, one step there. */
    public static IntStream toward(int value, int target) {
        if (value == target) {
            return IntStream.empty();
        }
        int half = (int) (((long) value + target) / 2);
        int step = value > target ? value - 1 : value + 1;
        return IntStream.of(target, half, step).filter(v -> v != value).distinct();
    }

    private static byte[] remove(byte[] input, int from, int size) {
        byte[] out = Arrays.copyOf(input, input.length - size);
        System.arraycopy(input, from + size, out, from, input.length - from - size);
        return out;
    }
}

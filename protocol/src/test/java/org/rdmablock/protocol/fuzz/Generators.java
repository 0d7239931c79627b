package org.rdmablock.protocol.fuzz;

import java.util.List;
import java.util.Random;

/**
 * Input generators for {@link FuzzRunner}, biased toward the edge cases that find decoding bugs: empty
 * and maximal lengths, all-zero and all-ones contents, boundary byte values, the ends of integer ranges.
 */
public final class Generators {
    /** Byte values at the edges of signed and unsigned ranges and of common bit fields. */
    static final int[] INTERESTING_BYTES = {0x00, 0x01, 0x02, 0x03, 0x04, 0x0F, 0x10, 0x1F, 0x20, 0x30, 0x3F, 0x40,
            0x7F, 0x80, 0x81, 0xC0, 0xFE, 0xFF};

    private Generators() {
    }

    /** A random byte array of 0 to {@code maxLength} bytes. */
    public static byte[] bytes(Random random, int maxLength) {
        return bytes(random, 0, maxLength);
    }

    /**
     * A random byte array of {@code minLength} to {@code maxLength} bytes: the length is often at one end
     * of the range or short, and the content is sometimes all zeros, all ones or boundary values.
     */
    public static byte[] bytes(Random random, int minLength, int maxLength) {
        if (minLength < 0 || maxLength < minLength) {
            throw new IllegalArgumentException(minLength + ".." + maxLength);
        }
        int length = switch (random.nextInt(8)) {
            case 0 -> minLength;
            case 1 -> maxLength;
            case 2 -> minLength + random.nextInt(Math.min(maxLength - minLength, 16) + 1);
            default -> minLength + random.nextInt(maxLength - minLength + 1);
        };
        byte[] bytes = new byte[length];
        switch (random.nextInt(16)) {
            case 0 -> {
                // all zeros
            }
            case 1 -> java.util.Arrays.fill(bytes, (byte) 0xFF);
            case 2, 3 -> {
                for (int i = 0; i < length; i++) {
                    bytes[i] = (byte) INTERESTING_BYTES[random.nextInt(INTERESTING_BYTES.length)];
                }
            }
            default -> random.nextBytes(bytes);
        }
        return bytes;
    }

    /** An int in {@code [min, max]}, each end drawn about one time in ten. */
    public static int intBetween(Random random, int min, int max) {
        if (max < min) {
            throw new IllegalArgumentException(min + ".." + max);
        }
        return switch (random.nextInt(10)) {
            case 0 -> min;
            case 1 -> max;
            default -> (int) (min + (long) (random.nextDouble() * ((long) max - min + 1)));
        };
    }

    public static <T> T pick(Random random, List<T> values) {
        return values.get(random.nextInt(values.size()));
    }

    /**
     * {@code bytes} in a segment of exactly their size, {@code prefix} bytes into a backing array: a decoder that reads
     * past them fails with {@link IndexOutOfBoundsException}, and one that assumes offset 0 of the array is caught.
     */
    public static java.lang.foreign.MemorySegment exactly(byte[] bytes, int prefix) {
        byte[] backing = new byte[prefix + bytes.length];
        System.arraycopy(bytes, 0, backing, prefix, bytes.length);
        return java.lang.foreign.MemorySegment.ofArray(backing).asSlice(prefix, bytes.length);
    }
}

package org.rdmablock.target.config;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one grammar of sizes and durations, for the config file ({@code size = "64MiB"}, {@code command = "30s"}) and
 * the tools' options ({@code --bs 4k}, {@code --runtime 10s}, written as fio writes them).
 *
 * <p>A size is a whole number of bytes, optionally followed by a unit, in any case and with or without a space:
 * {@code B} (bytes), or {@code K}, {@code M}, {@code G}, {@code T} alone or followed by {@code B}, {@code i} or
 * {@code iB}. Every unit is binary: {@code 4k}, {@code 4KB}, {@code 4Ki} and {@code 4KiB} are all 4096 bytes (fio's
 * default {@code kb_base=1024}). {@code i} without one of K, M, G, T is refused.
 *
 * <p>A duration is a non-negative number, whole or with a fraction ({@code 1.5}), optionally followed by
 * {@code ms}, {@code s}, {@code m} or {@code h} in any case; a bare number is seconds (fio's {@code runtime}),
 * so {@code "0"} is zero. The value is rounded to whole nanoseconds.
 *
 * <p>Both throw {@link IllegalArgumentException} with the text and the forms allowed; callers that say more
 * (the config reader names the file, line and key) catch it and use {@link #SIZE_FORMS} or
 * {@link #DURATION_FORMS}.
 */
public final class Quantities {
    /** What a size may be, for messages. */
    public static final String SIZE_FORMS = "bytes, or a string such as \"64MiB\" or \"4k\""
            + " (units B, KiB, MiB, GiB, TiB in any case; K, M, G, T or KB, MB, GB, TB: the same)";
    /** What a duration may be, for messages. */
    public static final String DURATION_FORMS = "a string such as \"250ms\", \"30s\", \"1.5s\", \"5m\", \"1h\""
            + " (a bare number is seconds); \"0\": never";

    private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*(?:([kmgt])(i?b?)|(b?))", Pattern.CASE_INSENSITIVE);
    private static final Pattern DURATION = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(ms|s|m|h)?",
            Pattern.CASE_INSENSITIVE);
    private static final BigInteger LONG_MAX = BigInteger.valueOf(Long.MAX_VALUE);
    private static final BigDecimal NANOS_PER_SECOND = BigDecimal.valueOf(1_000_000_000L);

    private Quantities() {
    }

    /**
     * Bytes of a size such as {@code "64MiB"}, {@code "4k"} or {@code "512"}.
     *
     * @throws IllegalArgumentException if it is not one, or does not fit a long
     */
    public static long parseSize(String text) {
        Matcher m = SIZE.matcher(text.strip());
        if (!m.matches()) {
            throw new IllegalArgumentException("not a size: \"" + text + "\" (" + SIZE_FORMS + ")");
        }
        int shift = m.group(2) == null ? 0 : switch (m.group(2).toLowerCase(Locale.ROOT)) {
            case "k" -> 10;
            case "m" -> 20;
            case "g" -> 30;
            default -> 40;
        };
        BigInteger bytes = new BigInteger(m.group(1)).shiftLeft(shift);
        if (bytes.compareTo(LONG_MAX) > 0) {
            throw new IllegalArgumentException("too large a size: \"" + text + "\" (at most " + Long.MAX_VALUE
                    + " bytes)");
        }
        return bytes.longValueExact();
    }

    /**
     * A duration such as {@code "250ms"}, {@code "30s"}, {@code "1.5s"} or {@code "10"} (seconds).
     *
     * @throws IllegalArgumentException if it is not one, or is longer than {@link Duration} holds
     */
    public static Duration parseDuration(String text) {
        Matcher m = DURATION.matcher(text.strip());
        if (!m.matches()) {
            throw new IllegalArgumentException("not a duration: \"" + text + "\" (" + DURATION_FORMS + ")");
        }
        long nanosPerUnit = switch (m.group(2) == null ? "s" : m.group(2).toLowerCase(Locale.ROOT)) {
            case "ms" -> 1_000_000L;
            case "m" -> 60_000_000_000L;
            case "h" -> 3_600_000_000_000L;
            default -> 1_000_000_000L;
        };
        BigInteger nanos = new BigDecimal(m.group(1)).multiply(BigDecimal.valueOf(nanosPerUnit))
                .setScale(0, RoundingMode.HALF_UP).toBigIntegerExact();
        BigInteger[] secondsAndNanos = nanos.divideAndRemainder(NANOS_PER_SECOND.toBigIntegerExact());
        if (secondsAndNanos[0].compareTo(LONG_MAX) > 0) {
            throw new IllegalArgumentException("too long a duration: \"" + text + "\"");
        }
        return Duration.ofSeconds(secondsAndNanos[0].longValueExact(), secondsAndNanos[1].longValueExact());
    }
}

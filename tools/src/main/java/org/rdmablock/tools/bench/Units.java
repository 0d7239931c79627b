package org.rdmablock.tools.bench;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The bench's sizes and durations as fio writes them: sizes in bytes with a binary suffix ({@code 4k}, {@code 1m},
 * {@code 1g}, also {@code 4KiB}, {@code 64kb}; fio's default {@code kb_base=1024}), durations with a unit
 * ({@code 500ms}, {@code 10s}, {@code 2m}, {@code 1h}; a bare number is seconds, as fio's {@code runtime}).
 */
public final class Units {
    private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*([kmgt]?)(i?b?)", Pattern.CASE_INSENSITIVE);
    private static final Pattern DURATION = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(ms|s|m|h)?", Pattern.CASE_INSENSITIVE);

    private Units() {
    }

    /** Bytes of a size such as {@code 4k} or {@code 1GiB}. */
    public static long parseSize(final String text) {
        final Matcher m = SIZE.matcher(text.strip());
        if (!m.matches()) {
            throw new IllegalArgumentException("not a size: \"" + text + "\" (bytes, or a number with k, m, g or t: 4k, 1m, 1g)");
        }
        final int shift = switch (m.group(2).toLowerCase(Locale.ROOT)) {
            case "k" -> 10;
            case "m" -> 20;
            case "g" -> 30;
            case "t" -> 40;
            default -> 0;
        };
        if (shift == 0 && m.group(3).equalsIgnoreCase("i")) {
            throw new IllegalArgumentException("not a size: \"" + text + "\"");
        }
        final long value = Long.parseLong(m.group(1));
        if (value > (Long.MAX_VALUE >> shift)) {
            throw new IllegalArgumentException("size too large: \"" + text + "\"");
        }
        return value << shift;
    }

    /** A duration such as {@code 10s}, {@code 500ms} or {@code 1.5} (seconds). */
    public static Duration parseDuration(final String text) {
        final Matcher m = DURATION.matcher(text.strip());
        if (!m.matches()) {
            throw new IllegalArgumentException("not a duration: \"" + text + "\" (500ms, 10s, 2m, 1h; a bare number is seconds)");
        }
        final double value = Double.parseDouble(m.group(1));
        final String unit = m.group(2) == null ? "s" : m.group(2).toLowerCase(Locale.ROOT);
        final double nanos = value * switch (unit) {
            case "ms" -> 1e6;
            case "m" -> 60e9;
            case "h" -> 3600e9;
            default -> 1e9;
        };
        return Duration.ofNanos(Math.round(nanos));
    }

    /** {@code bytes} the short way: 4KiB, 1MiB, 1536B. */
    public static String formatSize(final long bytes) {
        final String[] units = {"B", "KiB", "MiB", "GiB", "TiB"};
        int unit = 0;
        long value = bytes;
        while (unit < units.length - 1 && value >= 1024 && value % 1024 == 0) {
            value /= 1024;
            unit++;
        }
        return value + units[unit];
    }

    /** Nanoseconds as µs or ms with three significant digits. */
    public static String formatNanos(final long nanos) {
        if (nanos >= 10_000_000) {
            return String.format(Locale.ROOT, "%.1f ms", nanos / 1e6);
        }
        if (nanos >= 1_000_000) {
            return String.format(Locale.ROOT, "%.2f ms", nanos / 1e6);
        }
        if (nanos >= 100_000) {
            return String.format(Locale.ROOT, "%.0f µs", nanos / 1e3);
        }
        return String.format(Locale.ROOT, "%.1f µs", nanos / 1e3);
    }
}

package org.rdmablock.tools.bench;

import java.util.Locale;

/**
 * The tools' sizes and durations written for people: {@code 4KiB}, {@code 1.50 ms}. Parsing them ({@code --bs 4k},
 * {@code --runtime 10s}) is {@link org.rdmablock.target.config.Quantities}, one grammar with the config file's.
 */
public final class Units {
    private Units() {
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

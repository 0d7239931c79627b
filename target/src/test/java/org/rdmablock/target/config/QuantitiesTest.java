package org.rdmablock.target.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The one size and duration grammar: what the config file took before it ({@code "64MiB"}, {@code "30s"}), what the
 * tools took as fio does ({@code 4k}, {@code 1.5} seconds), and what neither takes.
 */
class QuantitiesTest {
    // ---- sizes

    @ParameterizedTest(name = "config form {0}")
    @CsvSource({"512, 512", "0, 0", "512B, 512", "'512 B', 512", "4KiB, 4096", "64MiB, 67108864",
            "'1 GiB', 1073741824", "3TiB, 3298534883328", "' 8KiB ', 8192"})
    void theConfigsSizesStillParse(String text, long bytes) {
        assertEquals(bytes, Quantities.parseSize(text));
    }

    @ParameterizedTest(name = "fio form {0}")
    @CsvSource({"4k, 4096", "4K, 4096", "64kb, 65536", "4KB, 4096", "4Ki, 4096", "4kib, 4096", "1m, 1048576",
            "1G, 1073741824", "1g, 1073741824", "1GB, 1073741824", "2t, 2199023255552", "512b, 512", "'4 k', 4096"})
    void theToolsSizesStillParse(String text, long bytes) {
        assertEquals(bytes, Quantities.parseSize(text));
    }

    @Test
    void theLargestSizesFitALong() {
        assertEquals(Long.MAX_VALUE, Quantities.parseSize("9223372036854775807"));
        assertEquals(8388607L << 40, Quantities.parseSize("8388607TiB"));
        assertEquals("too large a size: \"8388608TiB\" (at most 9223372036854775807 bytes)",
                assertThrows(IllegalArgumentException.class, () -> Quantities.parseSize("8388608TiB")).getMessage());
        assertThrows(IllegalArgumentException.class, () -> Quantities.parseSize("9223372036854775808"));
        assertThrows(IllegalArgumentException.class, () -> Quantities.parseSize("99999999999999999999999k"));
        assertThrows(IllegalArgumentException.class, () -> Quantities.parseSize("9223372036854775807KiB"));
    }

    @ParameterizedTest(name = "not a size: \"{0}\"")
    @ValueSource(strings = {"", " ", "4x", "-1", "-1k", "1.5GiB", "1,5k", "k", "KiB", "4 KiB B", "4kk", "4Kib4",
            "512i", "512ib", "512iB", "4bi", "1e3", "0x10", "4 k i B", "4KiBs", "1P"})
    void whatIsNotASizeIsRefusedWithTheFormsAllowed(String text) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Quantities.parseSize(text));
        assertEquals("not a size: \"" + text + "\" (bytes, or a string such as \"64MiB\" or \"4k\" (units B, KiB,"
                + " MiB, GiB, TiB in any case; K, M, G, T or KB, MB, GB, TB: the same))", e.getMessage());
    }

    // ---- durations

    @ParameterizedTest(name = "config form {0}")
    @CsvSource({"0, PT0S", "250ms, PT0.25S", "30s, PT30S", "5m, PT5M", "2h, PT2H", "'30 s', PT30S", "' 1h ', PT1H"})
    void theConfigsDurationsStillParse(String text, Duration duration) {
        assertEquals(duration, Quantities.parseDuration(text));
    }

    @ParameterizedTest(name = "fio form {0}")
    @CsvSource({"10, PT10S", "1.5, PT1.5S", "1.5s, PT1.5S", "500ms, PT0.5S", "0.5ms, PT0.0005S", "2m, PT2M",
            "10S, PT10S", "500MS, PT0.5S", "1H, PT1H", "2M, PT2M", "0.25h, PT15M", "00.000, PT0S"})
    void theToolsDurationsStillParse(String text, Duration duration) {
        assertEquals(duration, Quantities.parseDuration(text));
    }

    @Test
    void durationsAreRoundedToNanoseconds() {
        assertEquals(Duration.ofNanos(1), Quantities.parseDuration("0.0000000005"));
        assertEquals(Duration.ZERO, Quantities.parseDuration("0.0000000004s"));
        assertEquals(Duration.ofNanos(1_234_568), Quantities.parseDuration("1.2345675ms"));
    }

    @Test
    void theLongestDurationsFitADuration() {
        assertEquals(Duration.ofSeconds(Long.MAX_VALUE), Quantities.parseDuration("9223372036854775807"));
        assertEquals(Duration.ofHours(2562047788015215L), Quantities.parseDuration("2562047788015215h"));
        assertEquals("too long a duration: \"2562047788015216h\"",
                assertThrows(IllegalArgumentException.class, () -> Quantities.parseDuration("2562047788015216h"))
                        .getMessage());
        assertThrows(IllegalArgumentException.class, () -> Quantities.parseDuration("9223372036854775808s"));
    }

    @ParameterizedTest(name = "not a duration: \"{0}\"")
    @ValueSource(strings = {"", "-1s", "-1", "1d", "PT30S", "ten seconds", "5 minutes", "1.s", ".5s", "1e3s", "1,5s",
            "s", "ms", "1 m s", "30sec", "1us", "1:30"})
    void whatIsNotADurationIsRefusedWithTheFormsAllowed(String text) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Quantities.parseDuration(text));
        assertEquals("not a duration: \"" + text + "\" (a string such as \"250ms\", \"30s\", \"1.5s\", \"5m\", \"1h\""
                + " (a bare number is seconds); \"0\": never)", e.getMessage());
    }
}

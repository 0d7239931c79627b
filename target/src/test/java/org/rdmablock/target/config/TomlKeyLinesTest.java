package org.rdmablock.target.config;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The line index behind the reader's messages: what it finds, and what it must not mistake for a key. */
class TomlKeyLinesTest {
    private static final TomlKeyLines LINES = TomlKeyLines.of("""
            # a comment: port = 1
            top = 1
            [listen]
            port = 5555   # [not.a.table]
            "quoted.key" = 2 # a comment with = in it
              dotted . inner = 3
            [[lun]]
            number = 0
            allowed_initiators = [
                "size = 1",   # a string and a comment that look like keys
                'x = [',
            ]
            note = \"\"\"
            block_size = 4096
            [pipeline]
            \"\"\"
            block_size = 512
            inline = { a = 1, b = [2] }
            [[lun]]
            number = 1
            [lun.extra]
            key = 1
            """);

    /** The lines of {@code keys}. */
    private static List<Integer> linesOf(String... keys) {
        return Arrays.stream(keys).map(LINES::lineOf).toList();
    }

    @Test
    void keysAndHeadersAreFound() {
        assertEquals(List.of(2, 3, 4, 5, 6, 7, 8, 19, 20), linesOf("top", "listen", "listen.port",
                "listen.quoted.key", "listen.dotted.inner", "lun[0]", "lun[0].number", "lun[1]", "lun[1].number"));
    }

    @Test
    void multiLineValuesHideWhatLooksLikeKeys() {
        // not lines 10 and 11: what looks like keys there is inside an array, so only the entry's header is known
        assertEquals(List.of(7, 7), linesOf("lun[0].size", "lun[0].x"));
        assertEquals(0, LINES.lineOf("pipeline"));
        // after the multi-line string, not inside it
        assertEquals(List.of(17, 18), linesOf("lun[0].block_size", "lun[0].inline"));
        assertEquals(List.of(), LINES.repeats());
    }

    @Test
    void unseenKeysFallBackToTheirEnclosingKey() {
        assertEquals(List.of(9, 18, 7, 0), linesOf("lun[0].allowed_initiators[1]", "lun[0].inline.b", "lun[0].path",
                "channel.credits"));
    }

    @Test
    void aSubTableBelongsToTheLatestArrayEntry() {
        assertEquals(List.of(21, 22), linesOf("lun[1].extra", "lun[1].extra.key"));
    }

    @Test
    void repeatsAreNoted() {
        TomlKeyLines lines = TomlKeyLines.of("[a]\nx = 1\n[b]\nx = 1\n[a]\ny = 2\nx = 3\n");
        assertEquals(List.of(new TomlKeyLines.Repeat("a", 1, 5), new TomlKeyLines.Repeat("a.x", 2, 7)),
                lines.repeats());
    }
}

package org.rdmablock.target.config;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The line each key of a TOML document stands on, for error messages only. Jackson's TOML module parses the whole
 * document into a tree before anything reads it and then hands out a tree-walking parser, so its token locations
 * are all unknown (only its syntax errors carry a line). This index scans the text again, just far enough to see
 * table headers ({@code [listen]}, {@code [[lun]]}) and {@code key =} lines: it skips strings, comments and values
 * that span lines (arrays, multi-line strings) and does not check syntax; Jackson does that.
 *
 * <p>Keys are named as the reader names them: {@code listen.port}, {@code lun[1].block_size} (array-of-tables
 * entries numbered from 0), {@code lun[1]} for the header line of an entry.
 */
final class TomlKeyLines {
    private final Map<String, Integer> lines = new HashMap<>();
    private final List<Repeat> repeats = new ArrayList<>();

    /** A key or table header given twice: where it was first and where again. */
    record Repeat(String key, int firstLine, int line) {
    }

    private TomlKeyLines() {
    }

    /** Indexes {@code text}. */
    static TomlKeyLines of(String text) {
        TomlKeyLines index = new TomlKeyLines();
        index.scan(text);
        return index;
    }

    /**
     * The 1-based line of {@code key}; for a key the index did not see (inside an inline table, an array element),
     * the line of the nearest enclosing key or table; 0 when there is none.
     */
    int lineOf(String key) {
        for (String k = key; !k.isEmpty(); k = parent(k)) {
            Integer line = lines.get(k);
            if (line != null) {
                return line;
            }
        }
        return 0;
    }

    /** Keys and table headers that stand twice in the document, in the order met. */
    List<Repeat> repeats() {
        return List.copyOf(repeats);
    }

    /** {@code lun[1].path} → {@code lun[1]} → {@code lun}; {@code a.b} → {@code a}. */
    private static String parent(String key) {
        int cut = Math.max(key.lastIndexOf('.'), key.lastIndexOf('['));
        return cut < 0 ? "" : key.substring(0, cut);
    }

    private void scan(String text) {
        Map<String, Integer> arrayEntries = new HashMap<>();   // [[name]] → entries met so far
        String table = "";
        ValueScanner value = new ValueScanner();
        String[] physicalLines = text.split("\r?\n", -1);
        for (int i = 0; i < physicalLines.length; i++) {
            String line = physicalLines[i];
            int number = i + 1;
            if (value.open()) {             // inside an array or string begun on an earlier line
                value.scan(line, 0);
                continue;
            }
            String trimmed = line.strip();
            if (trimmed.isEmpty() || trimmed.startsWith("#")) {
                continue;
            }
            if (trimmed.startsWith("[[")) {
                String name = dottedKey(trimmed.substring(2, Math.max(2, trimmed.indexOf("]]"))));
                int entry = arrayEntries.merge(name, 1, Integer::sum) - 1;
                table = name + "[" + entry + "]";
                lines.put(table, number);
            } else if (trimmed.startsWith("[")) {
                String name = dottedKey(trimmed.substring(1, Math.max(1, trimmed.indexOf(']'))));
                // a sub-table of an array-of-tables entry ([lun.x] after [[lun]]) belongs to the latest entry
                String first = name.contains(".") ? name.substring(0, name.indexOf('.')) : name;
                Integer entries = arrayEntries.get(first);
                table = entries == null || first.equals(name) ? name
                        : first + "[" + (entries - 1) + "]" + name.substring(first.length());
                record(table, number);
            } else {
                int equals = indexOutsideQuotes(line, '=', 0);   // a quoted key may hold one
                if (equals < 0) {
                    continue;
                }
                String key = dottedKey(line.substring(0, equals));
                record(table.isEmpty() ? key : table + "." + key, number);
                value.scan(line, equals + 1);
            }
        }
    }

    private void record(String key, int number) {
        Integer first = lines.putIfAbsent(key, number);
        if (first != null) {
            repeats.add(new Repeat(key, first, number));
        }
    }

    /** {@code  a . "b.c" } → {@code a.b.c}: parts trimmed, quotes taken off. */
    private static String dottedKey(String raw) {
        List<String> parts = new ArrayList<>();
        for (int start = 0; ; ) {
            int dot = indexOutsideQuotes(raw, '.', start);
            String part = raw.substring(start, dot < 0 ? raw.length() : dot).strip();
            boolean quoted = part.length() >= 2 && (part.charAt(0) == '"' || part.charAt(0) == '\'')
                    && part.charAt(part.length() - 1) == part.charAt(0);
            parts.add(quoted ? part.substring(1, part.length() - 1) : part);
            if (dot < 0) {
                return String.join(".", parts);
            }
            start = dot + 1;
        }
    }

    /** Index of the first {@code target} at or after {@code from} that is not inside quotes; -1: none. */
    private static int indexOutsideQuotes(String text, char target, int from) {
        char quote = 0;
        for (int i = from; i < text.length(); i++) {
            char c = text.charAt(i);
            if (quote != 0) {
                if (c == quote) {
                    quote = 0;
                }
            } else if (c == '"' || c == '\'') {
                quote = c;
            } else if (c == target) {
                return i;
            }
        }
        return -1;
    }

    /**
     * Follows a value across lines: how deep in {@code [ ]} / {@code { }} it is, and whether a multi-line string
     * is open. Strings are skipped so that brackets and {@code #} inside them do not count.
     */
    private static final class ValueScanner {
        private int depth;
        private String openString;  // the """ or ''' of an unclosed multi-line string

        boolean open() {
            return depth > 0 || openString != null;
        }

        void scan(String line, int from) {
            int i = from;
            while (i < line.length()) {
                if (openString != null) {
                    int close = line.indexOf(openString, i);
                    if (close < 0) {
                        return;
                    }
                    i = close + 3;
                    openString = null;
                    continue;
                }
                char c = line.charAt(i);
                if (line.startsWith("\"\"\"", i) || line.startsWith("'''", i)) {
                    openString = line.substring(i, i + 3);
                    i += 3;
                } else if (c == '"' || c == '\'') {
                    i = endOfString(line, i);
                } else if (c == '#') {
                    return;
                } else {
                    if (c == '[' || c == '{') {
                        depth++;
                    } else if ((c == ']' || c == '}') && depth > 0) {
                        depth--;
                    }
                    i++;
                }
            }
        }

        /** Index after the single-line string that opens at {@code start} (basic strings have escapes). */
        private static int endOfString(String line, int start) {
            char quote = line.charAt(start);
            int i = start + 1;
            while (i < line.length() && line.charAt(i) != quote) {
                i += quote == '"' && line.charAt(i) == '\\' ? 2 : 1;
            }
            return i + 1;
        }
    }
}

package org.rdmablock.target.config;

import java.util.List;
import java.util.stream.Collectors;

/**
 * A config file the daemon refuses to start with: every problem found in it, each naming the file, the line, the
 * key, the value found and what is allowed, one per line of the message, e.g.
 * {@code deploy/rdmablock.toml:14: key 'lun[1].block_size': 1024 is not allowed (512 or 4096)}.
 */
public final class ConfigException extends Exception {
    private static final long serialVersionUID = 1L;

    private final transient List<Problem> problems;

    /** One or more problems, in the order of their lines. */
    public ConfigException(List<Problem> problems) {
        super(problems.stream().map(Problem::toString).collect(Collectors.joining("\n")));
        if (problems.isEmpty()) {
            throw new IllegalArgumentException("a ConfigException needs a problem");
        }
        this.problems = List.copyOf(problems);
    }

    /** The problems, at least one. */
    public List<Problem> problems() {
        return problems;
    }

    /**
     * One thing wrong in a config.
     *
     * @param source  the file (as it was named to the reader) or {@code <embedded default>}
     * @param line    1-based line, 0 when not known (the file could not be read)
     * @param key     the key in the reader's notation ({@code lun[1].block_size}), null when the problem is not
     *                about one key (a syntax error, an unreadable file)
     * @param message what is wrong, starting with the key when there is one:
     *                {@code key 'lun[1].block_size': 1024 is not allowed (512 or 4096)}
     */
    public record Problem(String source, int line, String key, String message) {
        @Override
        public String toString() {
            return source + (line > 0 ? ":" + line : "") + ": " + message;
        }
    }
}

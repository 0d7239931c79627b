package org.rdmablock.target;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;

/**
 * picocli set up alike for every command of {@code bin/rdmablock} (target, bench, mount): an exception that escapes a
 * command is one line on standard error and exit status {@link #EXIT_FAILED}, never a stack trace (logged at DEBUG for
 * whoever needs it); and the version that {@code -V} prints.
 */
public final class CommandLines {
    /** Exit status of a command that failed (picocli's usage errors are 2). */
    public static final int EXIT_FAILED = 1;
    private static final Logger LOG = LoggerFactory.getLogger(CommandLines.class);

    private CommandLines() {
    }

    /** {@code command} as a picocli command line whose failures are one line, starting with {@code name}. */
    public static CommandLine of(final Object command, final String name) {
        return of(command, name, System.out, System.err);
    }

    /** The same, its help and version printed to {@code out} and its errors (usage and failures) to {@code err}. */
    public static CommandLine of(final Object command, final String name, final java.io.PrintStream out,
                                 final java.io.PrintStream err) {
        final CommandLine line = new CommandLine(command)
                .setOut(new java.io.PrintWriter(out, true, java.nio.charset.StandardCharsets.UTF_8))
                .setErr(new java.io.PrintWriter(err, true, java.nio.charset.StandardCharsets.UTF_8));
        line.setExecutionExceptionHandler((e, failed, parsed) -> {
            LOG.debug("{} failed", name, e);
            failed.getErr().println(name + ": " + oneLine(e));
            failed.getErr().flush();
            return EXIT_FAILED;
        });
        return line;
    }

    /** The exception's message (its type's name when it has none), causes that add something after it, on one line. */
    static String oneLine(final Throwable e) {
        final StringBuilder text = new StringBuilder(describe(e));
        for (Throwable cause = e.getCause(); cause != null && cause != cause.getCause(); cause = cause.getCause()) {
            final String more = describe(cause);
            if (!text.toString().contains(more)) {
                text.append(": ").append(more);
            }
        }
        return text.toString().replaceAll("\\s*\\R\\s*", "; ");
    }

    private static String describe(final Throwable e) {
        return e.getMessage() != null && !e.getMessage().isBlank() ? e.getMessage() : e.getClass().getSimpleName();
    }

    /** What {@code -V} prints: the build's version from its jar, and the Java it runs on. */
    public static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[]{"rdmablock " + version() + " (Java " + Runtime.version() + ")"};
        }

        /** The version in the target jar's manifest; run from classes (tests, an IDE) there is none. */
        public static String version() {
            final String version = CommandLines.class.getPackage().getImplementationVersion();
            return version != null ? version : "(a development build, run from classes rather than its jar)";
        }
    }
}

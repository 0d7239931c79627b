package org.rdmablock.target.core;

import java.time.Duration;

/**
 * The target's time limits as they are now: a command's (answered COMMAND TIMEOUT DURING PROCESSING past it) and an
 * idle channel's (logged out past it); zero: none. Set at start and by a configuration change ({@code [timeouts]}),
 * read by the intake and the front end in their periodic checks, so that a change applies to the running pipeline.
 *
 * <p>Threads: set by the thread that applies a configuration; read by the poller.
 */
public final class Timeouts {
    private volatile long commandNanos;
    private volatile long idleNanos;

    public Timeouts(final Duration command, final Duration idle) {
        set(command, idle);
    }

    /** Both limits from now on. */
    public void set(final Duration command, final Duration idle) {
        commandNanos = command.toNanos();
        idleNanos = idle.toNanos();
    }

    /** A command's limit in nanoseconds; 0: none. */
    public long commandNanos() {
        return commandNanos;
    }

    /** An idle channel's limit in nanoseconds; 0: none. */
    public long idleNanos() {
        return idleNanos;
    }
}

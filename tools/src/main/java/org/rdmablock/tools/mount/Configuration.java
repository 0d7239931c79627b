package org.rdmablock.tools.mount;

/**
 * The mount's tuning knobs, as {@code rdmablock.mount.*} system properties ({@code -D} on the command line, or {@code
 * JAVA_TOOL_OPTIONS} for a launcher): for each a property name, its default and an accessor that reads it when called.
 * Options a user picks per mount are command-line options ({@link MountCommand}); these are for A/B runs and tuning.
 */
public final class Configuration {
    /** Whether large pieces move straight between libfuse's buffer and the target: false for A/B runs (copying). */
    public static final String REGISTER_FUSE_BUFFERS_PROP_NAME = "rdmablock.mount.registerFuseBuffers";
    /** On: where registering is cheap (the soft provider) it saves a copy of each byte moved. */
    public static final boolean REGISTER_FUSE_BUFFERS_DEFAULT = true;

    /** Bounds a waiter's park with {@code --channel-wait caller}, in case a hand-over of the turn were missed. */
    public static final String TURN_PARK_NANOS_PROP_NAME = "rdmablock.mount.turnParkNanos";
    /** 1 ms: a safety net only ({@link PollingTurn} wakes the next waiter itself), so long and costing nothing. */
    public static final long TURN_PARK_NANOS_DEFAULT = 1_000_000L;

    private Configuration() {
    }

    /**
     * {@value #REGISTER_FUSE_BUFFERS_PROP_NAME}: whether large reads and writes register libfuse's buffer and move
     * straight between it and the target where registering is cheap; {@code false} copies every piece through the
     * slots (for A/B runs). Default {@value #REGISTER_FUSE_BUFFERS_DEFAULT}.
     */
    public static boolean registerFuseBuffers() {
        final String value = System.getProperty(REGISTER_FUSE_BUFFERS_PROP_NAME);
        return value == null ? REGISTER_FUSE_BUFFERS_DEFAULT : Boolean.parseBoolean(value);
    }

    /**
     * {@value #TURN_PARK_NANOS_PROP_NAME}: the longest park of a waiter between looks at its answer and the polling
     * turn, in nanoseconds. Default {@value #TURN_PARK_NANOS_DEFAULT}; a value that is not a number is the default.
     */
    public static long turnParkNanos() {
        return Long.getLong(TURN_PARK_NANOS_PROP_NAME, TURN_PARK_NANOS_DEFAULT);
    }
}

package org.rdmablock.target;

/**
 * The target's tuning switches that are not in the TOML config, in one place: each a system property with its name,
 * its default and an accessor (Aeron's {@code Configuration}). They are for measurements and for machines the
 * defaults do not suit; what an operator sets lives in the config file ({@code config.TargetConfigReader}). Read once,
 * when the class using them loads.
 */
public final class Configuration {
    /** Empty polls the busy poller spins before it yields (then 100 yields, then 50 µs parks). */
    public static final String POLLER_SPINS_PROP_NAME = "rdmablock.poller.spins";
    public static final int POLLER_SPINS_DEFAULT = 200;

    /**
     * Empty polls before the poller, with {@code completions = "event"}, arms the CQ and sleeps: few, since event mode
     * is for machines without a core to spare (docs/benchmarks/target-pipeline-settings.md).
     */
    public static final String POLLER_EVENT_SPINS_PROP_NAME = "rdmablock.poller.eventSpins";
    public static final int POLLER_EVENT_SPINS_DEFAULT = 20;

    /**
     * With event completions and backend threads: how long an idle ring stage spins before it yields (the
     * Disruptor's own 10,000 tries still run first); spinning stages take the CPU the I/O needs on a small machine.
     */
    public static final String STAGE_SPIN_MICROS_PROP_NAME = "rdmablock.pipeline.stageSpinMicros";
    public static final long STAGE_SPIN_MICROS_DEFAULT = 0;

    /** With event completions and backend threads: how long after it went idle a ring stage stops yielding and sleeps. */
    public static final String STAGE_YIELD_MICROS_PROP_NAME = "rdmablock.pipeline.stageYieldMicros";
    public static final long STAGE_YIELD_MICROS_DEFAULT = 0;

    /**
     * Whether memory LUNs, and reads of cached file pages, move by RDMA straight from and to the LUN's own memory where
     * the provider allows it; {@code false} copies through the data buffers as for other LUNs (for A/B measurements).
     */
    public static final String IN_PLACE_PROP_NAME = "rdmablock.target.inPlace";
    public static final boolean IN_PLACE_DEFAULT = true;

    private Configuration() {
    }

    public static int pollerSpins() {
        return Integer.getInteger(POLLER_SPINS_PROP_NAME, POLLER_SPINS_DEFAULT);
    }

    public static int pollerEventSpins() {
        return Integer.getInteger(POLLER_EVENT_SPINS_PROP_NAME, POLLER_EVENT_SPINS_DEFAULT);
    }

    public static long stageSpinMicros() {
        return Long.getLong(STAGE_SPIN_MICROS_PROP_NAME, STAGE_SPIN_MICROS_DEFAULT);
    }

    /** At least {@link #stageSpinMicros()}: a stage yields only after it has spun. */
    public static long stageYieldMicros() {
        return Math.max(stageSpinMicros(), Long.getLong(STAGE_YIELD_MICROS_PROP_NAME, STAGE_YIELD_MICROS_DEFAULT));
    }

    /** Any value but {@code false} (case as written) keeps the default. */
    public static boolean inPlace() {
        final String value = System.getProperty(IN_PLACE_PROP_NAME);
        return value == null ? IN_PLACE_DEFAULT : !"false".equals(value);
    }
}

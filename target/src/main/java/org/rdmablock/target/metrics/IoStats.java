package org.rdmablock.target.metrics;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.SingleWriterRecorder;

import java.util.concurrent.TimeUnit;

/**
 * The I/O of one LUN or one session: commands by kind, bytes moved, errors, commands in the target's hands (queue
 * depth) and the latency of reads and writes.
 *
 * <p>One writer, the pipeline's intake stage, which sees each command arrive and its response go: counters in
 * {@link SingleWriterCounters}, latencies in HdrHistogram {@link SingleWriterRecorder}s (wait-free, allocation-free).
 * Readers (a scrape, the summary line) take the recorders' intervals under this object's lock, which the writer
 * never takes, and add them to a cumulative histogram (for Prometheus) and to a window (for the summary line).
 *
 * <p>Latency is measured by the intake stage, from taking the command's receive completion to taking its response's
 * send completion: what the target spent on it, waiting for a slot, the data-out READs and the backend included.
 */
public final class IoStats {
    /** Command kinds: READ(6/10/12/16). */
    public static final int READ = 0;
    /** WRITE(6/10/12/16) and WRITE AND VERIFY(10/12/16). */
    public static final int WRITE = 1;
    /** Everything else (TEST UNIT READY, INQUIRY, SYNCHRONIZE CACHE, UNMAP, ...), and IUs that did not decode. */
    public static final int OTHER = 2;
    /** The longest latency recorded as itself; longer ones are recorded as this. */
    static final long HIGHEST_LATENCY_NANOS = TimeUnit.SECONDS.toNanos(60);
    /** Significant digits of recorded latencies: 1 %, and about 30 KiB per histogram. */
    static final int LATENCY_DIGITS = 2;

    private static final int COMMANDS = 0;          // + kind: 3 slots
    private static final int BYTES = 3;             // + READ or WRITE: 2 slots
    private static final int LATENCY_SUM = 5;       // + READ or WRITE: 2 slots, nanoseconds
    private static final int ERRORS = 7;
    private static final int QUEUE_DEPTH = 8;
    private static final int COUNTERS = 9;

    private final SingleWriterCounters counters = new SingleWriterCounters(COUNTERS);
    private final SingleWriterRecorder[] latency = {recorder(), recorder()};
    // readers only, under this object's lock
    private final Histogram[] cumulative = {histogram(), histogram()};
    private final Histogram[] window = {histogram(), histogram()};
    /** Per kind, the interval histogram the recorder handed out last, handed back to it next time (null at first). */
    private final Histogram[] spare = new Histogram[2];

    private static SingleWriterRecorder recorder() {
        return new SingleWriterRecorder(HIGHEST_LATENCY_NANOS, LATENCY_DIGITS);
    }

    private static Histogram histogram() {
        return new Histogram(HIGHEST_LATENCY_NANOS, LATENCY_DIGITS);
    }

    /** The kind of a command by the first byte of its CDB. */
    public static int kindOf(final int opcode) {
        return switch (opcode) {
            case 0x08, 0x28, 0xA8, 0x88 -> READ;
            case 0x0A, 0x2A, 0xAA, 0x8A, 0x2E, 0xAE, 0x8E -> WRITE;
            default -> OTHER;
        };
    }

    // ---- the writer (the intake stage)

    /** A command arrived: one more in the target's hands. */
    public void commandArrived() {
        counters.add(QUEUE_DEPTH, 1);
    }

    /**
     * A command's response went.
     *
     * @param kind         {@link #READ}, {@link #WRITE} or {@link #OTHER}
     * @param good         whether its status was GOOD; every other status counts as an error
     * @param bytes        data moved (0 unless good)
     * @param latencyNanos from its arrival to its response's send completion
     */
    public void commandAnswered(final int kind, final boolean good, final long bytes, final long latencyNanos) {
        counters.add(COMMANDS + kind, 1);
        if (!good) {
            counters.add(ERRORS, 1);
        }
        if (kind != OTHER) {
            counters.add(BYTES + kind, bytes);
            counters.add(LATENCY_SUM + kind, latencyNanos);
            latency[kind].recordValue(Math.clamp(latencyNanos, 0, HIGHEST_LATENCY_NANOS));
        }
    }

    /** A command left the target's hands: answered, aborted by task management, or gone with its channel. */
    public void commandLeft() {
        counters.add(QUEUE_DEPTH, -1);
    }

    // ---- readers

    /** The counts and latency distributions since this object was made. */
    public synchronized IoSnapshot snapshot() {
        drain();
        return new IoSnapshot(counters.get(COMMANDS + READ), counters.get(COMMANDS + WRITE), counters.get(COMMANDS + OTHER),
                counters.get(BYTES + READ), counters.get(BYTES + WRITE), counters.get(ERRORS), counters.get(QUEUE_DEPTH),
                LatencySnapshot.of(cumulative[READ], counters.get(LATENCY_SUM + READ)),
                LatencySnapshot.of(cumulative[WRITE], counters.get(LATENCY_SUM + WRITE)));
    }

    /** Adds the read and write latencies recorded since the last call to {@code into}, and starts a new window. */
    public synchronized void takeWindow(final Histogram into) {
        drain();
        for (final Histogram w : window) {
            into.add(w);
            w.reset();
        }
    }

    private void drain() {
        for (int kind = READ; kind <= WRITE; kind++) {
            final Histogram interval = latency[kind].getIntervalHistogram(spare[kind]);
            cumulative[kind].add(interval);
            window[kind].add(interval);
            spare[kind] = interval;
        }
    }

    /** An empty histogram of the range and precision these latencies are kept in. */
    static Histogram latencyHistogram() {
        return histogram();
    }
}

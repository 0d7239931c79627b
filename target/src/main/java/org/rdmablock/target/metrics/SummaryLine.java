package org.rdmablock.target.metrics;

import org.HdrHistogram.Histogram;
import org.rdmablock.target.metrics.TargetStatistics.Count;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The periodic one-line summary in the log: what the target did since the last line, e.g.
 *
 * <pre>
 * last 60.0 s: 1523 IOPS (91380 commands: 72000 read, 19380 write, 0 other), read 4.7 MB/s, write 1.3 MB/s,
 * latency p50 210 µs p99 1.90 ms max 3.02 ms; 2 sessions, 3 channels, queue depth 5; 0 errors, 0 BUSY,
 * 12 credits exhausted, 0 IUs waited, 0 channels lost
 * </pre>
 *
 * (one line). Commands, bytes and latencies are those of the served LUNs; the rest is target-wide.
 */
public final class SummaryLine implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SummaryLine.class);

    private final TargetStatistics statistics;
    private final Histogram window = IoStats.latencyHistogram();
    private ScheduledExecutorService timer;
    private long lastNanos;
    private Totals last;

    /** What the lines are differences of. */
    private record Totals(long reads, long writes, long others, long readBytes, long writeBytes, long queueDepth,
                          long errors, long busy, long creditsExhausted, long waited, long lost) {
    }

    /** A summary of {@code statistics}; its first {@link #next()} covers the time from now. */
    public SummaryLine(final TargetStatistics statistics) {
        this.statistics = statistics;
        this.lastNanos = System.nanoTime();
        this.last = totals();
        statistics.luns().values().forEach(l -> l.takeWindow(window)); // what came before is not this window's
        window.reset();
    }

    /** Logs {@link #next()} every {@code interval} on a daemon thread of its own, until {@link #close()}. */
    public static SummaryLine logEvery(final Duration interval, final TargetStatistics statistics) {
        final SummaryLine line = new SummaryLine(statistics);
        line.timer = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().name("rdmablock-summary").daemon().factory());
        line.timer.scheduleAtFixedRate(() -> LOG.info(line.next()), interval.toNanos(), interval.toNanos(), TimeUnit.NANOSECONDS);
        return line;
    }

    /** The line for the time since the last call (or since this was made), and the start of the next. */
    public synchronized String next() {
        final long now = System.nanoTime();
        final Totals t = totals();
        window.reset();
        statistics.luns().values().forEach(l -> l.takeWindow(window));
        final double seconds = Math.max(1e-9, (now - lastNanos) / 1e9);
        final long reads = delta(t.reads, last.reads);
        final long writes = delta(t.writes, last.writes);
        final long others = delta(t.others, last.others);
        final String latency = window.getTotalCount() == 0 ? "latency -"
                : "latency p50 " + time(window.getValueAtPercentile(50)) + " p99 " + time(window.getValueAtPercentile(99))
                + " max " + time(window.getMaxValue());
        final String line = String.format(Locale.ROOT,
                "last %.1f s: %.0f IOPS (%d commands: %d read, %d write, %d other), read %.1f MB/s, write %.1f MB/s, %s;"
                        + " %d sessions, %d channels, queue depth %d; %d errors, %d BUSY, %d credits exhausted,"
                        + " %d IUs waited, %d channels lost",
                seconds, (reads + writes + others) / seconds, reads + writes + others, reads, writes, others,
                delta(t.readBytes, last.readBytes) / 1e6 / seconds, delta(t.writeBytes, last.writeBytes) / 1e6 / seconds,
                latency, statistics.sessions().size(), statistics.channels(), t.queueDepth, delta(t.errors, last.errors),
                delta(t.busy, last.busy), delta(t.creditsExhausted, last.creditsExhausted), delta(t.waited, last.waited),
                delta(t.lost, last.lost));
        last = t;
        lastNanos = now;
        return line;
    }

    /** A difference of two totals; never negative (a LUN a reload removed takes its counts with it). */
    private static long delta(final long now, final long before) {
        return Math.max(0, now - before);
    }

    private static String time(final long nanos) {
        return nanos < 1_000_000 ? String.format(Locale.ROOT, "%d µs", nanos / 1000)
                : String.format(Locale.ROOT, "%.2f ms", nanos / 1e6);
    }

    private Totals totals() {
        long reads = 0;
        long writes = 0;
        long others = 0;
        long readBytes = 0;
        long writeBytes = 0;
        long queueDepth = 0;
        for (final IoStats lun : statistics.luns().values()) {
            final IoSnapshot s = lun.snapshot();
            reads += s.readCommands();
            writes += s.writeCommands();
            others += s.otherCommands();
            readBytes += s.readBytes();
            writeBytes += s.writeBytes();
            queueDepth += s.queueDepth();
        }
        return new Totals(reads, writes, others, readBytes, writeBytes, queueDepth, statistics.count(Count.ERRORS),
                statistics.count(Count.BUSY), statistics.count(Count.CREDITS_EXHAUSTED), statistics.count(Count.WAITED_IUS),
                statistics.count(Count.LOST_CHANNELS));
    }

    /** Stops logging (a line made by {@link #SummaryLine} alone has nothing to stop). */
    @Override
    public void close() {
        if (timer != null) {
            timer.shutdownNow();
        }
    }
}

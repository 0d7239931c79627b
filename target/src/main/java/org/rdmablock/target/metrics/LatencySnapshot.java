package org.rdmablock.target.metrics;

import org.HdrHistogram.Histogram;

import java.util.Arrays;

/**
 * A latency distribution at one moment, in Prometheus's classic form: the count of commands in each bucket of
 * {@link #UPPER_BOUNDS_SECONDS} (not cumulative; the last bucket, up to +Inf, takes the rest), the total count and
 * the exact sum.
 *
 * @param bucketCounts commands per bucket, one more entry than {@link #UPPER_BOUNDS_SECONDS} (the +Inf bucket)
 * @param count        commands recorded
 * @param sumSeconds   their latencies added up
 */
public record LatencySnapshot(long[] bucketCounts, long count, double sumSeconds) {
    /**
     * Bucket bounds, 10 µs to 10 s: from a soft-provider round trip on loopback (tens of µs) to a command that is
     * about to meet the initiator's timeout (Linux sd: 30 s).
     */
    public static final double[] UPPER_BOUNDS_SECONDS = {
            10e-6, 25e-6, 50e-6, 100e-6, 250e-6, 500e-6, 1e-3, 2.5e-3, 5e-3, 10e-3, 25e-3, 50e-3, 100e-3, 250e-3,
            500e-3, 1, 2.5, 5, 10};

    public LatencySnapshot {
        bucketCounts = bucketCounts.clone();
    }

    /**
     * The buckets of {@code histogram} (values in nanoseconds). HdrHistogram keeps values to 2 significant digits, so
     * a value within 1 % of a bound may be counted on either side of it.
     */
    static LatencySnapshot of(final Histogram histogram, final long sumNanos) {
        final long[] counts = new long[UPPER_BOUNDS_SECONDS.length + 1];
        long below = 0;
        for (int i = 0; i < UPPER_BOUNDS_SECONDS.length; i++) {
            final long upTo = histogram.getCountBetweenValues(0, (long) (UPPER_BOUNDS_SECONDS[i] * 1e9));
            counts[i] = upTo - below;
            below = upTo;
        }
        counts[UPPER_BOUNDS_SECONDS.length] = histogram.getTotalCount() - below;
        return new LatencySnapshot(counts, histogram.getTotalCount(), sumNanos / 1e9);
    }

    @Override
    public long[] bucketCounts() {
        return bucketCounts.clone();
    }

    @Override
    public boolean equals(final Object o) {
        return o instanceof LatencySnapshot other && count == other.count && sumSeconds == other.sumSeconds
                && Arrays.equals(bucketCounts, other.bucketCounts);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(count) * 31 + Arrays.hashCode(bucketCounts);
    }

    @Override
    public String toString() {
        return "LatencySnapshot[count=" + count + ", sum=" + sumSeconds + " s, buckets=" + Arrays.toString(bucketCounts) + "]";
    }
}

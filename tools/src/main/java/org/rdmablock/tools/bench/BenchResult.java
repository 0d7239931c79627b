package org.rdmablock.tools.bench;

import org.HdrHistogram.Histogram;

import java.util.Locale;

/**
 * What a bench run measured, and how it reads: the text report, the one-line summary and the JSON document
 * ({@code --json}). Rates are over the measured window (ramp and drain left out); MB/s are 10^6 bytes per second;
 * latencies are from the submission to the callback, in nanoseconds in the JSON.
 *
 * @param workload      what ran
 * @param lun           the LUN number
 * @param blockSize     the LUN's logical block size
 * @param seconds       the measured window: {@code --runtime}, or in size mode until the last counted I/O completed
 * @param read          reads counted in the window
 * @param write         writes counted in the window
 * @param commands      SRP_CMDs the initiator sent during the measuring phase (ramp and drain included)
 * @param requests      I/O requests the bench submitted during the same phase
 * @param merged        requests that rode in another request's command (the initiator's merging), same phase
 * @param allocatedBytes bytes the bench threads allocated from the start of the measured window to the end of the
 *                      drain (-1: the JVM cannot tell); 0 per I/O is the design, and this figure checks it
 * @param blocksChecked logical blocks compared with the verify pattern
 * @param failure       the first I/O error or verify mismatch, in words, or null
 * @param verifyFailed  whether {@code failure} is a verify mismatch
 * @param wallSeconds   the whole run, pre-fill and read-back included
 */
public record BenchResult(Workload workload, int lun, int blockSize, double seconds, OpFigures read, OpFigures write,
                          long commands, long requests, long merged, long allocatedBytes, long blocksChecked, String failure, boolean verifyFailed,
                          double wallSeconds) {
    /** Exit status of a run that completed and verified. */
    public static final int EXIT_OK = 0;
    /** Exit status of a run that could not start or hit an I/O error. */
    public static final int EXIT_FAILED = 1;
    /** Exit status of a run whose verify found data other than what was written. */
    public static final int EXIT_VERIFY_FAILED = 3;

    /** Where the run went to, for the report: target address, provider, channels, and whether the target was embedded. */
    public record Setup(String target, String provider, int channels, String embeddedTarget) {
    }

    /**
     * One direction's figures.
     *
     * @param ios     I/Os counted
     * @param bytes   bytes they moved
     * @param latency their latencies in nanoseconds
     */
    public record OpFigures(long ios, long bytes, Histogram latency) {
    }

    /** ok, io error or verify failed. */
    public String status() {
        return failure == null ? "ok" : verifyFailed ? "verify failed" : "io error";
    }

    /** The process exit status for this result. */
    public int exitCode() {
        return failure == null ? EXIT_OK : verifyFailed ? EXIT_VERIFY_FAILED : EXIT_FAILED;
    }

    public long ios() {
        return read.ios + write.ios;
    }

    public long bytes() {
        return read.bytes + write.bytes;
    }

    public double iops() {
        return ios() / seconds;
    }

    public double megabytesPerSecond() {
        return bytes() / seconds / 1e6;
    }

    /** Reads' and writes' latencies together. */
    public Histogram latency() {
        final Histogram all = new Histogram(1, BenchWorker.HIGHEST_LATENCY_NANOS, 3);
        all.add(read.latency);
        all.add(write.latency);
        return all;
    }

    /** The human report: a header, a line per direction, commands against requests, verify, and the summary line. */
    public String text(final Setup setup) {
        final StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "rdmablock bench: %s %s, iodepth %d x %d thread(s), %d channel(s), %s to %s%s, LUN %d%n",
                workload.mode().fioName() + (workload.mode() == Workload.Mode.RANDRW ? " (" + workload.readPercent() + "% reads)" : ""),
                Units.formatSize(workload.blockBytes()), workload.ioDepth(), workload.threads(), setup.channels(),
                setup.provider(), setup.target(), setup.embeddedTarget() == null ? "" : " (embedded " + setup.embeddedTarget() + " target)",
                lun));
        out.append(String.format(Locale.ROOT, "  measured %.2f s%s over %s of the LUN%n", seconds,
                workload.rampNanos() > 0 ? String.format(Locale.ROOT, " after a %.2f s ramp", workload.rampNanos() / 1e9) : "",
                Units.formatSize(workload.sliceBytes() * workload.threads())));
        if (workload.reads()) {
            out.append(direction("read ", read));
        }
        if (workload.writes()) {
            out.append(direction("write", write));
        }
        out.append(String.format(Locale.ROOT, "  commands %d for %d requests (%.2f per request, %d merged); bench threads allocated %s%n",
                commands, requests, requests == 0 ? 0.0 : (double) commands / requests, merged,
                allocatedBytes < 0 ? "(unknown)" : allocatedBytes + " bytes in the window"));
        if (workload.verify()) {
            out.append(String.format(Locale.ROOT, "  verify: %d blocks checked, %s%n", blocksChecked,
                    verifyFailed ? "MISMATCH" : failure == null ? "all match" : "not finished"));
        }
        if (failure != null) {
            out.append("  FAILED: ").append(failure).append('\n');
        }
        out.append(summary()).append('\n');
        return out.toString();
    }

    private String direction(final String name, final OpFigures figures) {
        final Histogram h = figures.latency;
        if (figures.ios == 0) {
            return "  " + name + ": no I/O counted\n";
        }
        return String.format(Locale.ROOT, "  %s: %,.0f IOPS, %.1f MB/s, latency p50 %s, p99 %s, p99.9 %s (min %s, max %s)%n",
                name, figures.ios / seconds, figures.bytes / seconds / 1e6,
                Units.formatNanos(h.getValueAtPercentile(50)), Units.formatNanos(h.getValueAtPercentile(99)),
                Units.formatNanos(h.getValueAtPercentile(99.9)), Units.formatNanos(h.getMinValue()), Units.formatNanos(h.getMaxValue()));
    }

    /** One line: what ran and its figures. */
    public String summary() {
        final Histogram h = latency();
        return String.format(Locale.ROOT, "summary: rw=%s bs=%d iodepth=%d threads=%d: %.0f IOPS %.1f MB/s p50=%.1fus p99=%.1fus "
                        + "p99.9=%.1fus commands/request=%.2f%s result=%s",
                workload.mode().fioName(), workload.blockBytes(), workload.ioDepth(), workload.threads(), iops(),
                megabytesPerSecond(), h.getValueAtPercentile(50) / 1e3, h.getValueAtPercentile(99) / 1e3,
                h.getValueAtPercentile(99.9) / 1e3, requests == 0 ? 0.0 : (double) commands / requests,
                workload.verify() ? " verified=" + blocksChecked : "", status().replace(' ', '-'));
    }

    /** The JSON document: the setup, the workload, the figures overall and per direction, verify and the result. */
    public String json(final Setup setup) {
        final Json json = new Json();
        json.begin();
        json.field("tool", "rdmablock bench");
        json.field("target", setup.target());
        json.field("provider", setup.provider());
        json.field("embedded_target", setup.embeddedTarget());
        json.field("lun", lun);
        json.field("block_size", blockSize);
        json.field("rw", workload.mode().fioName());
        json.field("rwmix_read", workload.effectiveReadPercent());
        json.field("bs", workload.blockBytes());
        json.field("iodepth", workload.ioDepth());
        json.field("threads", workload.threads());
        json.field("channels", setup.channels());
        json.field("region_bytes", workload.sliceBytes() * workload.threads());
        json.field("runtime_s", workload.runtimeNanos() / 1e9);
        json.field("size_bytes", workload.runtimeNanos() > 0 ? 0 : workload.sliceBytes() * workload.threads());
        json.field("ramp_s", workload.rampNanos() / 1e9);
        json.field("seconds", seconds);
        json.field("wall_seconds", wallSeconds);
        json.field("ios", ios());
        json.field("bytes", bytes());
        json.field("iops", iops());
        json.field("mb_s", megabytesPerSecond());
        latency(json, "lat_ns", latency());
        direction(json, "read", read);
        direction(json, "write", write);
        json.field("commands", commands);
        json.field("requests", requests);
        json.field("merged", merged);
        json.field("bench_thread_bytes_allocated", allocatedBytes);
        json.begin("verify");
        json.field("enabled", workload.verify());
        json.field("blocks_checked", blocksChecked);
        json.field("errors", verifyFailed ? 1 : 0);
        json.end();
        json.field("result", status());
        json.field("error", failure);
        json.end();
        return json.toString();
    }

    private void direction(final Json json, final String name, final OpFigures figures) {
        json.begin(name);
        json.field("ios", figures.ios);
        json.field("bytes", figures.bytes);
        json.field("iops", figures.ios / seconds);
        json.field("mb_s", figures.bytes / seconds / 1e6);
        latency(json, "lat_ns", figures.latency);
        json.end();
    }

    private static void latency(final Json json, final String name, final Histogram h) {
        json.begin(name);
        final boolean any = h.getTotalCount() > 0;
        json.field("min", any ? h.getMinValue() : 0);
        json.field("mean", any ? h.getMean() : 0);
        json.field("p50", h.getValueAtPercentile(50));
        json.field("p90", h.getValueAtPercentile(90));
        json.field("p99", h.getValueAtPercentile(99));
        json.field("p99_9", h.getValueAtPercentile(99.9));
        json.field("max", h.getMaxValue());
        json.end();
    }

    /** A small JSON writer: objects, strings, numbers, booleans and null; enough for the report, no dependency. */
    static final class Json {
        private final StringBuilder out = new StringBuilder();
        private boolean first = true;
        private int depth;

        void begin() {
            out.append('{');
            first = true;
            depth++;
        }

        void begin(final String name) {
            key(name);
            begin();
        }

        void end() {
            depth--;
            out.append('\n').append("  ".repeat(depth)).append('}');
            first = false;
        }

        void field(final String name, final String value) {
            key(name);
            if (value == null) {
                out.append("null");
            } else {
                string(value);
            }
        }

        void field(final String name, final long value) {
            key(name);
            out.append(value);
        }

        void field(final String name, final double value) {
            key(name);
            out.append(Double.isFinite(value)
                    ? java.math.BigDecimal.valueOf(value).round(new java.math.MathContext(7)).stripTrailingZeros().toPlainString()
                    : "null");
        }

        void field(final String name, final boolean value) {
            key(name);
            out.append(value);
        }

        private void key(final String name) {
            if (!first) {
                out.append(',');
            }
            first = false;
            out.append('\n').append("  ".repeat(depth));
            string(name);
            out.append(": ");
        }

        private void string(final String value) {
            out.append('"');
            for (int i = 0; i < value.length(); i++) {
                final char c = value.charAt(i);
                switch (c) {
                    case '"' -> out.append("\\\"");
                    case '\\' -> out.append("\\\\");
                    case '\n' -> out.append("\\n");
                    case '\r' -> out.append("\\r");
                    case '\t' -> out.append("\\t");
                    default -> {
                        if (c < 0x20) {
                            out.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                        } else {
                            out.append(c);
                        }
                    }
                }
            }
            out.append('"');
        }

        @Override
        public String toString() {
            return out.toString();
        }
    }
}

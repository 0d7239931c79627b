package org.rdmablock.tools.bench;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamWriteFeature;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.HdrHistogram.Histogram;

import java.math.BigDecimal;
import java.math.MathContext;
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
 * @param commands      commands (SRP_CMDs, NVMe submissions) the initiator sent during the measuring phase (ramp and drain included)
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
    /** Significant digits of the JSON's measured figures (rates, seconds, mean latency). */
    static final int JSON_DIGITS = 7;
    /** The JSON document's writer: two-space indents, {@code "name": value}, decimals plain (never 1.0E7). */
    private static final ObjectWriter JSON = JsonMapper.builder().enable(StreamWriteFeature.WRITE_BIGDECIMAL_AS_PLAIN).build()
            .writer(new DefaultPrettyPrinter()
                    .withSeparators(Separators.createDefaultInstance().withObjectFieldValueSpacing(Separators.Spacing.AFTER))
                    .withObjectIndenter(new DefaultIndenter("  ", "\n")));

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
        final ObjectNode json = JsonNodeFactory.instance.objectNode();
        json.put("tool", "rdmablock bench");
        json.put("target", setup.target());
        json.put("provider", setup.provider());
        json.put("embedded_target", setup.embeddedTarget());
        json.put("lun", lun);
        json.put("block_size", blockSize);
        json.put("rw", workload.mode().fioName());
        json.put("rwmix_read", workload.effectiveReadPercent());
        json.put("bs", workload.blockBytes());
        json.put("iodepth", workload.ioDepth());
        json.put("threads", workload.threads());
        json.put("channels", setup.channels());
        json.put("region_bytes", workload.sliceBytes() * workload.threads());
        decimal(json, "runtime_s", workload.runtimeNanos() / 1e9);
        json.put("size_bytes", workload.runtimeNanos() > 0 ? 0 : workload.sliceBytes() * workload.threads());
        decimal(json, "ramp_s", workload.rampNanos() / 1e9);
        decimal(json, "seconds", seconds);
        decimal(json, "wall_seconds", wallSeconds);
        json.put("ios", ios());
        json.put("bytes", bytes());
        decimal(json, "iops", iops());
        decimal(json, "mb_s", megabytesPerSecond());
        latency(json.putObject("lat_ns"), latency());
        direction(json.putObject("read"), read);
        direction(json.putObject("write"), write);
        json.put("commands", commands);
        json.put("requests", requests);
        json.put("merged", merged);
        json.put("bench_thread_bytes_allocated", allocatedBytes);
        final ObjectNode verify = json.putObject("verify");
        verify.put("enabled", workload.verify());
        verify.put("blocks_checked", blocksChecked);
        verify.put("errors", verifyFailed ? 1 : 0);
        json.put("result", status());
        json.put("error", failure);
        try {
            return JSON.writeValueAsString(json);
        } catch (JsonProcessingException e) { // a tree of strings and numbers written to a String: cannot happen
            throw new IllegalStateException(e);
        }
    }

    private void direction(final ObjectNode json, final OpFigures figures) {
        json.put("ios", figures.ios);
        json.put("bytes", figures.bytes);
        decimal(json, "iops", figures.ios / seconds);
        decimal(json, "mb_s", figures.bytes / seconds / 1e6);
        latency(json.putObject("lat_ns"), figures.latency);
    }

    private static void latency(final ObjectNode json, final Histogram h) {
        final boolean any = h.getTotalCount() > 0;
        json.put("min", any ? h.getMinValue() : 0);
        decimal(json, "mean", any ? h.getMean() : 0);
        json.put("p50", h.getValueAtPercentile(50));
        json.put("p90", h.getValueAtPercentile(90));
        json.put("p99", h.getValueAtPercentile(99));
        json.put("p99_9", h.getValueAtPercentile(99.9));
        json.put("max", h.getMaxValue());
    }

    /**
     * A measured figure to {@link #JSON_DIGITS} significant digits, written plain (no exponent, no trailing zeros), or
     * null where it is not a number (no time measured): more digits than the measurement has would only be noise.
     */
    private static void decimal(final ObjectNode json, final String name, final double value) {
        if (Double.isFinite(value)) {
            json.put(name, BigDecimal.valueOf(value).round(new MathContext(JSON_DIGITS)).stripTrailingZeros());
        } else {
            json.putNull(name);
        }
    }
}

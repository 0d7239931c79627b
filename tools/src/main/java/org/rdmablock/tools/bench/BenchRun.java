package org.rdmablock.tools.bench;

import org.HdrHistogram.Histogram;
import org.rdmablock.initiator.Lun;
import org.rdmablock.initiator.SrpInitiator;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * One bench run over a logged-in session: makes the workers, then runs their phases one after the other, each on
 * a thread per worker, and adds up what they measured.
 *
 * <pre>
 *  pre-fill (--verify with reads; not measured) ─► ramp ─► measured window ─► drain ─► read-back (--verify with writes)
 *                                                  └──── progress line each second ────┘
 * </pre>
 */
final class BenchRun {
    private final SrpInitiator initiator;
    private final Lun lun;
    private final Workload workload;
    private final PrintStream progress;
    private final List<BenchWorker> workers = new ArrayList<>();
    private final Histogram readTotal = new Histogram(1, BenchWorker.HIGHEST_LATENCY_NANOS, 3);
    private final Histogram writeTotal = new Histogram(1, BenchWorker.HIGHEST_LATENCY_NANOS, 3);
    private final Histogram[] readInterval;
    private final Histogram[] writeInterval;

    /** @param progress where the progress line goes each second, or null for none */
    BenchRun(final SrpInitiator initiator, final Lun lun, final Workload workload, final BenchWorker.WaitMode wait,
             final PrintStream progress) {
        this.initiator = initiator;
        this.lun = lun;
        this.workload = workload;
        this.progress = progress;
        for (int i = 0; i < workload.threads(); i++) {
            workers.add(new BenchWorker(i, initiator, lun, workload, wait));
        }
        readInterval = new Histogram[workers.size()];
        writeInterval = new Histogram[workers.size()];
    }

    /** Runs every phase and returns the figures. */
    BenchResult execute() throws InterruptedException {
        final long began = System.nanoTime();
        if (workload.verify() && workload.reads()) {
            note("pre-filling " + Units.formatSize(workload.sliceBytes() * workers.size()) + " with the verify pattern (not measured)");
            runPhase("prefill", w -> w.bulk(true));
        }
        final long commandsBefore = initiator.commandsIssued();
        final long mergedBefore = initiator.requestsMerged();
        final long measureStart;
        final long measureEnd;
        final long quota;
        final boolean prefillFailed = failure() != null;
        final long start = System.nanoTime();
        measureStart = start + workload.rampNanos();
        if (workload.runtimeNanos() > 0) {
            measureEnd = measureStart + workload.runtimeNanos();
            quota = 0;
        } else {
            measureEnd = Long.MAX_VALUE;
            quota = workload.sliceBytes() / workload.blockBytes();
        }
        if (!prefillFailed) {
            final Thread reporter = progress == null ? null
                    : Thread.ofPlatform().daemon().name("bench-progress").start(() -> report(start, measureStart));
            try {
                runPhase("measure", w -> w.measure(measureStart, measureEnd, quota));
            } finally {
                if (reporter != null) {
                    reporter.interrupt();
                    reporter.join();
                }
            }
        }
        final long commands = initiator.commandsIssued() - commandsBefore;
        final long merged = initiator.requestsMerged() - mergedBefore;
        drainLatencies();
        long end = measureEnd;
        if (quota > 0) {
            end = measureStart;
            for (final BenchWorker w : workers) {
                end = Math.max(end, w.lastCountedCompletion);
            }
        }
        if (workload.verify() && workload.writes() && failure() == null) {
            note("reading back " + Units.formatSize(workload.sliceBytes() * workers.size()) + " to verify (not measured)");
            runPhase("read-back", w -> w.bulk(false));
        }
        long readIos = 0;
        long writeIos = 0;
        long readBytes = 0;
        long writeBytes = 0;
        long requests = 0;
        long checked = 0;
        long allocated = 0;
        for (final BenchWorker w : workers) {
            allocated = allocated < 0 || w.allocatedBytes < 0 ? -1 : allocated + w.allocatedBytes;
            readIos += w.readIos;
            writeIos += w.writeIos;
            readBytes += w.readBytes;
            writeBytes += w.writeBytes;
            requests += w.requests;
            checked += w.blocksChecked;
        }
        final String failure = failure();
        final boolean verifyFailed = workers.stream().anyMatch(w -> w.verifyFailed);
        return new BenchResult(workload, lun.number(), lun.blockSize(), Math.max(1, end - measureStart) / 1e9,
                new BenchResult.OpFigures(readIos, readBytes, readTotal),
                new BenchResult.OpFigures(writeIos, writeBytes, writeTotal), commands, requests, merged, allocated, checked,
                failure, verifyFailed, (System.nanoTime() - began) / 1e9);
    }

    private String failure() {
        for (final BenchWorker w : workers) {
            if (w.failure != null) {
                return w.failure;
            }
        }
        return null;
    }

    /** Runs {@code phase} on a platform thread per worker and waits for all. */
    private void runPhase(final String name, final Consumer<BenchWorker> phase) throws InterruptedException {
        final List<Thread> threads = new ArrayList<>();
        final Throwable[] thrown = new Throwable[workers.size()];
        for (final BenchWorker w : workers) {
            threads.add(Thread.ofPlatform().name("bench-" + name + "-" + w.index).start(() -> {
                try {
                    phase.accept(w);
                } catch (Throwable t) {
                    thrown[w.index] = t;
                    if (w.failure == null) {
                        w.failure = name + " on thread " + w.index + " failed: " + t;
                    }
                }
            }));
        }
        for (final Thread t : threads) {
            t.join();
        }
    }

    /** The progress line, once a second until interrupted: IOPS and MB/s of the last second, p99 once measuring. */
    private void report(final long start, final long measureStart) {
        long lastIos = 0;
        long lastBytes = 0;
        long last = start;
        final Histogram second = new Histogram(1, BenchWorker.HIGHEST_LATENCY_NANOS, 3);
        long next = start + 1_000_000_000L;
        while (true) {
            final long wait = next - System.nanoTime();
            if (wait > 0) {
                try {
                    Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                } catch (InterruptedException e) {
                    return;
                }
            }
            final long now = System.nanoTime();
            long ios = 0;
            long bytes = 0;
            for (final BenchWorker w : workers) {
                ios += w.progressIos;
                bytes += w.progressBytes;
            }
            second.reset();
            synchronized (this) {
                drainInto(second);
            }
            final double seconds = (now - last) / 1e9;
            final String latency = second.getTotalCount() == 0 ? ""
                    : ", p99 " + Units.formatNanos(second.getValueAtPercentile(99));
            progress.printf(Locale.ROOT, "[%5.1f s] %,10.0f IOPS %10.1f MB/s%s%s%n", (now - start) / 1e9,
                    (ios - lastIos) / seconds, (bytes - lastBytes) / seconds / 1e6, latency, last + (now - last) / 2 < measureStart ? " (ramp)" : "");
            progress.flush();
            lastIos = ios;
            lastBytes = bytes;
            last = now;
            next += 1_000_000_000L;
        }
    }

    /** Moves what the workers' recorders hold into the totals (and into {@code alsoInto}, when given). */
    private void drainInto(final Histogram alsoInto) {
        for (int i = 0; i < workers.size(); i++) {
            final BenchWorker w = workers.get(i);
            readInterval[i] = w.readLatency.getIntervalHistogram(readInterval[i]);
            writeInterval[i] = w.writeLatency.getIntervalHistogram(writeInterval[i]);
            readTotal.add(readInterval[i]);
            writeTotal.add(writeInterval[i]);
            if (alsoInto != null) {
                alsoInto.add(readInterval[i]);
                alsoInto.add(writeInterval[i]);
            }
        }
    }

    private synchronized void drainLatencies() {
        drainInto(null);
    }

    private void note(final String line) {
        if (progress != null) {
            progress.println(line);
            progress.flush();
        }
    }
}

package org.rdmablock.tools.bench;

import org.HdrHistogram.SingleWriterRecorder;
import org.rdmablock.initiator.IoCallback;
import org.rdmablock.initiator.InitiatorConfig;
import org.rdmablock.initiator.Lun;
import org.rdmablock.initiator.SrpInitiator;
import org.rdmablock.initiator.SrpIoException;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

/**
 * One bench thread: keeps {@link Workload#ioDepth()} I/Os in flight on its own slice of the region through the
 * initiator's callback API, records each one's latency, and (with {@code --verify}) writes the {@link VerifyPattern}
 * and checks what it reads.
 *
 * <pre>
 *  bench thread:   free slot ─► pick op and unit (fill the pattern) ─► Lun.read/write(slot, CALLBACK)
 *  channel thread: CALLBACK ─► slot.completedAt, bytes, failure ─► CompletionRing ─► (unpark the bench thread)
 *  bench thread:   CompletionRing ─► latency into the recorder, counters, generation or check ─► free slot
 * </pre>
 *
 * <p>Everything the measuring loop touches is made before it starts: slots, their part of one registered buffer,
 * the completion ring, the recorders. It allocates nothing per I/O (a failure or a mismatch, which ends the run,
 * makes its message).
 */
final class BenchWorker {
    /** Highest latency the recorders hold: a minute (longer ones are recorded as a minute). */
    static final long HIGHEST_LATENCY_NANOS = TimeUnit.MINUTES.toNanos(1);

    /** How a bench thread waits for completions ({@code --wait}). */
    enum WaitMode {
        /** Spin a little, yield a while, then park until a completion unparks the thread. */
        ADAPTIVE(32, 256),
        /** Park at once: leaves the cores to the initiator's and the target's threads (few cores). */
        PARK(0, 0),
        /** Never park: spin, then yield (a core per bench thread). */
        SPIN(32, Integer.MAX_VALUE - 32);

        final int spins;
        final int yields;

        WaitMode(final int spins, final int yields) {
            this.spins = spins;
            this.yields = yields;
        }
    }

    /** Empty polls a thread that drives the channels spins through before it yields (whatever {@link WaitMode}). */
    private static final int DRIVING_SPINS = 32;
    /** Longest park: the thread looks at the clock at least this often. */
    private static final long PARK_NANOS = 1_000_000;
    /** I/Os a bulk pass (pre-fill, read-back) keeps in flight, and its largest I/O. */
    private static final int BULK_DEPTH = 4;
    private static final long BULK_CHUNK = 1 << 20;
    /** How long a bulk I/O may take. */
    private static final long BULK_TIMEOUT_SECONDS = 120;

    /** The one callback of every measured I/O: the attachment is its slot. */
    private static final IoCallback CALLBACK = (attachment, bytes, failure) -> ((Slot) attachment).completed(bytes, failure);

    final int index;
    private final Lun lun;
    private final Workload workload;
    private final int spins;
    private final int yields;
    private final int blockSize;
    private final int blocksPerUnit;
    private final long firstLba;
    private final long units;
    private final MemorySegment buffer;
    private final MemorySegment bulkBuffer;
    private final long bulkChunk;
    private final Slot[] slots;
    private final int[] freeSlots;
    private final CompletionRing completions;
    /** Per unit of the slice, the generation last written (0: never), with --verify. */
    private final int[] generations;
    final SingleWriterRecorder readLatency;
    final SingleWriterRecorder writeLatency;
    private long random;
    private long nextSequential;

    private volatile Thread thread;
    private volatile boolean parked;

    /** Every completion of the measuring phase, ramp and drain included: the progress line's figures. */
    volatile long progressIos;
    volatile long progressBytes;

    // the measured window's figures: written by this worker's thread, read after it is joined
    long readIos;
    long writeIos;
    long readBytes;
    long writeBytes;
    /** I/Os submitted in the measuring phase (ramp and window). */
    long requests;
    /** When the last I/O counted in the window completed. */
    long lastCountedCompletion;
    /** Logical blocks whose content was checked against the pattern. */
    long blocksChecked;
    /** Bytes the bench thread allocated from the start of the measured window to the end of the drain (-1: unknown). */
    long allocatedBytes = -1;
    /** The thread's allocation counter when the window began (after the ramp, when the one-time costs are paid). */
    private long allocatedInWindowFrom = -1;
    /** What one read of the allocation counter allocates. */
    private long counterCost;
    private final SrpInitiator initiator;
    /** Whether this thread drives the initiator's channels ({@code --channel-wait caller}): it never parks then. */
    private final boolean drives;
    /** The first I/O error or verify mismatch, in words; the run stops at it. */
    volatile String failure;
    boolean verifyFailed;

    /**
     * A worker on slice {@code index} of the region; allocates its registered buffers from {@code initiator}.
     */
    BenchWorker(final int index, final SrpInitiator initiator, final Lun lun, final Workload workload, final WaitMode wait) {
        this.index = index;
        this.initiator = initiator;
        this.drives = initiator.config().waiting() == InitiatorConfig.Waiting.CALLER;
        this.spins = wait.spins;
        this.yields = wait.yields;
        this.lun = lun;
        this.workload = workload;
        this.blockSize = lun.blockSize();
        this.blocksPerUnit = workload.blockBytes() / blockSize;
        final long slice = workload.sliceBytes();
        this.firstLba = index * slice / blockSize;
        this.units = slice / workload.blockBytes();
        final int depth = workload.ioDepth();
        this.buffer = initiator.allocateBuffer((long) depth * workload.blockBytes());
        fillRandom(buffer, 0x5EED_0000L + index); // writes without --verify carry data, not zeroes (fio's default too)
        this.slots = new Slot[depth];
        this.freeSlots = new int[depth];
        for (int i = 0; i < depth; i++) {
            slots[i] = new Slot(this, i, (long) i * workload.blockBytes());
            freeSlots[i] = depth - 1 - i;
        }
        this.completions = new CompletionRing(depth);
        if (workload.verify()) {
            this.generations = new int[(int) units];
            this.bulkChunk = Math.min(slice, Math.max(workload.blockBytes(), BULK_CHUNK / workload.blockBytes() * workload.blockBytes()));
            this.bulkBuffer = initiator.allocateBuffer(BULK_DEPTH * bulkChunk);
        } else {
            this.generations = null;
            this.bulkChunk = 0;
            this.bulkBuffer = null;
        }
        this.readLatency = new SingleWriterRecorder(1, HIGHEST_LATENCY_NANOS, 3);
        this.writeLatency = new SingleWriterRecorder(1, HIGHEST_LATENCY_NANOS, 3);
        this.random = 0x9E37_79B9_7F4A_7C15L * (index + 1);
    }

    /** The first LBA of this worker's slice. */
    long firstLba() {
        return firstLba;
    }

    /**
     * The measuring phase: I/O from now until {@code measureEnd} (time mode), or until the I/Os submitted from
     * {@code measureStart} on have moved this thread's share of {@code --size} ({@code quota} I/Os, size mode); counts
     * the I/Os submitted at or after {@code measureStart} that completed by {@code measureEnd}.
     */
    void measure(final long measureStart, final long measureEnd, final long quota) {
        thread = Thread.currentThread();
        LockSupport.parkNanos(this, 1); // a thread's first park allocates (once, in the JDK): paid here, not in the window
        // reading the allocation counter allocates too (the management bean): measured and taken off
        final long first = allocatedByThisThread();
        counterCost = allocatedByThisThread() - first;
        try {
            measureLoop(measureStart, measureEnd, quota);
        } finally {
            final long allocatedAfter = allocatedByThisThread();
            allocatedBytes = allocatedInWindowFrom < 0 || allocatedAfter < 0 ? -1
                    : Math.max(0, allocatedAfter - allocatedInWindowFrom - counterCost);
        }
    }

    private void measureLoop(final long measureStart, final long measureEnd, final long quota) {
        int free = slots.length;
        int inFlight = 0;
        long issuedInWindow = 0;
        boolean stopping = false;
        boolean inWindow = false;
        int idle = 0;
        while (true) {
            if (!inWindow && System.nanoTime() >= measureStart) {
                inWindow = true;
                allocatedInWindowFrom = allocatedByThisThread();
            }
            if (!stopping) {
                if (System.nanoTime() >= measureEnd || (quota > 0 && issuedInWindow >= quota)) {
                    stopping = true;
                } else {
                    while (free > 0 && (quota == 0 || issuedInWindow < quota)) {
                        final Slot slot = slots[freeSlots[free - 1]];
                        if (!prepare(slot)) {
                            break; // --verify: the unit picked is in flight; after the next completion
                        }
                        free--;
                        inFlight++;
                        requests++;
                        slot.inFlight = true;
                        slot.submittedAt = System.nanoTime();
                        slot.counted = slot.submittedAt >= measureStart;
                        if (slot.counted) {
                            issuedInWindow++;
                        }
                        submit(slot);
                    }
                }
            }
            int reaped = 0;
            int done;
            while ((done = completions.poll()) >= 0) {
                final Slot slot = slots[done];
                slot.inFlight = false;
                freeSlots[free++] = done;
                inFlight--;
                reaped++;
                reap(slot, measureEnd);
            }
            if (failure != null) {
                stopping = true;
            }
            if (stopping && inFlight == 0) {
                return;
            }
            if (reaped > 0) {
                idle = 0;
            } else {
                idle = await(idle);
            }
        }
    }

    /** What the current thread has allocated so far, or -1 (HotSpot's com.sun.management.ThreadMXBean tells). */
    private static long allocatedByThisThread() {
        if (java.lang.management.ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean bean
                && bean.isThreadAllocatedMemorySupported() && bean.isThreadAllocatedMemoryEnabled()) {
            return bean.getCurrentThreadAllocatedBytes();
        }
        return -1;
    }

    /**
     * Nothing completed: spin, then yield, then park until a completion unparks the thread (or a millisecond), as its
     * {@link WaitMode} says. When this thread drives the channels it polls them instead, spinning {@link #DRIVING_SPINS}
     * polls and then yielding rather than parking (nothing would wake it), whatever the mode.
     */
    private int await(final int idle) {
        if (drives) {
            if (initiator.poll() > 0) {
                return 0;
            }
            if (idle < DRIVING_SPINS) {
                Thread.onSpinWait();
            } else {
                Thread.yield();
            }
            return idle == Integer.MAX_VALUE - 1 ? DRIVING_SPINS : idle + 1;
        }
        if (idle < spins) {
            Thread.onSpinWait();
        } else if (idle < spins + yields) {
            Thread.yield();
        } else {
            parked = true;
            if (completions.isEmpty()) {
                LockSupport.parkNanos(this, PARK_NANOS);
            }
            parked = false;
        }
        return idle == Integer.MAX_VALUE - 1 ? spins : idle + 1;
    }

    /** Picks the slot's operation and unit and, for a verified write, fills its pattern; false: try again later. */
    private boolean prepare(final Slot slot) {
        final Workload.Mode mode = workload.mode();
        final boolean write = mode.mixed ? Long.remainderUnsigned(next(), 100) >= workload.readPercent()
                : mode == Workload.Mode.RANDWRITE || mode == Workload.Mode.WRITE;
        long unit;
        if (mode.random) {
            unit = Long.remainderUnsigned(next(), units);
            if (generations != null) {
                for (int tries = 0; busy(unit); tries++) {
                    if (tries == 8) {
                        return false;
                    }
                    unit = Long.remainderUnsigned(next(), units);
                }
            }
        } else {
            unit = nextSequential;
            if (generations != null && busy(unit)) {
                return false;
            }
            nextSequential = unit + 1 == units ? 0 : unit + 1;
        }
        slot.write = write;
        slot.unit = unit;
        if (write && generations != null) {
            slot.generation = generations[(int) unit] + 1;
            VerifyPattern.fill(buffer, slot.offset, lbaOf(unit), blocksPerUnit, blockSize, slot.generation);
        }
        return true;
    }

    /** Whether an I/O of this thread on {@code unit} is in flight (two at once would make the content ambiguous). */
    private boolean busy(final long unit) {
        for (final Slot slot : slots) {
            if (slot.inFlight && slot.unit == unit) {
                return true;
            }
        }
        return false;
    }

    private void submit(final Slot slot) {
        final long lba = lbaOf(slot.unit);
        if (slot.write) {
            lun.write(lba, blocksPerUnit, buffer, slot.offset, false, slot, CALLBACK);
        } else {
            lun.read(lba, blocksPerUnit, buffer, slot.offset, slot, CALLBACK);
        }
    }

    private void reap(final Slot slot, final long measureEnd) {
        final SrpIoException error = slot.failure;
        if (error != null) {
            if (failure == null) {
                failure = String.format(Locale.ROOT, "%s of %d blocks at LBA %d failed: %s", slot.write ? "WRITE" : "READ",
                        blocksPerUnit, lbaOf(slot.unit), error.getMessage());
            }
            slot.failure = null;
            return;
        }
        final long bytes = slot.bytes;
        if (generations != null) {
            if (slot.write) {
                generations[(int) slot.unit] = slot.generation;
            } else if (!check(buffer, slot.offset, slot.unit, "read")) {
                return;
            }
        }
        progressIos++;
        progressBytes += bytes;
        if (slot.counted && slot.completedAt <= measureEnd) {
            final long latency = Math.min(Math.max(1, slot.completedAt - slot.submittedAt), HIGHEST_LATENCY_NANOS);
            if (slot.write) {
                writeIos++;
                writeBytes += bytes;
                writeLatency.recordValue(latency);
            } else {
                readIos++;
                readBytes += bytes;
                readLatency.recordValue(latency);
            }
            lastCountedCompletion = slot.completedAt;
        }
    }

    /** Checks one unit read into {@code data} at {@code offset} against its generation; false (and the failure) on a mismatch. */
    private boolean check(final MemorySegment data, final long offset, final long unit, final String how) {
        final int generation = generations[(int) unit];
        if (generation == 0) {
            return true; // never written by this run: nothing to expect
        }
        final long lba = lbaOf(unit);
        final long mismatch = VerifyPattern.firstMismatch(data, offset, lba, blocksPerUnit, blockSize, generation);
        blocksChecked += blocksPerUnit;
        if (mismatch < 0) {
            return true;
        }
        if (failure == null) {
            verifyFailed = true;
            failure = String.format(Locale.ROOT, "verify failed: LUN %d, %s (%s of %d blocks at LBA %d by thread %d)",
                    lun.number(), VerifyPattern.describe(data, offset, lba, blockSize, generation, mismatch), how,
                    blocksPerUnit, lba, index);
        }
        return false;
    }

    /**
     * A pass over the whole slice in large I/Os, not measured: {@code write}: writes the pattern at generation 1 (the
     * pre-fill that lets a verified read check every block); else reads the slice back and checks every unit written.
     */
    void bulk(final boolean write) {
        thread = Thread.currentThread();
        final List<CompletableFuture<Long>> pending = new ArrayList<>(BULK_DEPTH);
        final long slice = units * workload.blockBytes();
        for (long position = 0; position < slice && failure == null; position += BULK_DEPTH * bulkChunk) {
            pending.clear();
            int n = 0;
            for (; n < BULK_DEPTH && position + n * bulkChunk < slice; n++) {
                final long at = position + n * bulkChunk;
                final long bytes = Math.min(bulkChunk, slice - at);
                final long lba = firstLba + at / blockSize;
                if (write) {
                    final long firstUnit = at / workload.blockBytes();
                    for (long u = firstUnit; u < firstUnit + bytes / workload.blockBytes(); u++) {
                        generations[(int) u] = 1;
                    }
                    VerifyPattern.fill(bulkBuffer, n * bulkChunk, lba, bytes / blockSize, blockSize, 1);
                    pending.add(lun.write(lba, bytes / blockSize, bulkBuffer, n * bulkChunk, false));
                } else {
                    pending.add(lun.read(lba, bytes / blockSize, bulkBuffer, n * bulkChunk));
                }
            }
            for (int i = 0; i < n; i++) {
                final long at = position + i * bulkChunk;
                final long bytes = Math.min(bulkChunk, slice - at);
                if (!awaitBulk(pending.get(i), write, firstLba + at / blockSize, bytes / blockSize)) {
                    continue;
                }
                if (!write) {
                    final long firstUnit = at / workload.blockBytes();
                    for (long u = 0; u < bytes / workload.blockBytes(); u++) {
                        if (!check(bulkBuffer, i * bulkChunk + u * workload.blockBytes(), firstUnit + u, "read-back")) {
                            break;
                        }
                    }
                }
            }
        }
    }

    private boolean awaitBulk(final CompletableFuture<Long> future, final boolean write, final long lba, final long blocks) {
        String why;
        try {
            initiator.awaitDone(future, BULK_TIMEOUT_SECONDS, TimeUnit.SECONDS); // drives the channels if this thread must
            future.get(0, TimeUnit.SECONDS);
            return true;
        } catch (ExecutionException e) {
            why = e.getCause().getMessage();
        } catch (TimeoutException e) {
            why = "no answer within " + BULK_TIMEOUT_SECONDS + " s";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            why = "interrupted";
        }
        if (failure == null) {
            failure = String.format(Locale.ROOT, "%s of %d blocks at LBA %d failed: %s", write ? "pre-fill WRITE" : "read-back READ",
                    blocks, lba, why);
        }
        return false;
    }

    private long lbaOf(final long unit) {
        return firstLba + unit * blocksPerUnit;
    }

    /** xorshift64*: the worker's own random numbers, no allocation, no sharing. */
    private long next() {
        long x = random;
        x ^= x >>> 12;
        x ^= x << 25;
        x ^= x >>> 27;
        random = x;
        return x * 0x2545_F491_4F6C_DD1DL;
    }

    private static void fillRandom(final MemorySegment segment, final long seed) {
        long x = seed | 1;
        for (long at = 0; at + 8 <= segment.byteSize(); at += 8) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            segment.set(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, at, x);
        }
    }

    /** One I/O of the worker's depth: its part of the buffer and what the bench thread and the callback hand over. */
    static final class Slot {
        final BenchWorker worker;
        final int index;
        final long offset;
        // the bench thread's
        boolean write;
        long unit;
        int generation;
        long submittedAt;
        boolean counted;
        boolean inFlight;
        // written by the callback before the completion ring's volatile write, read after its volatile read
        long completedAt;
        long bytes;
        SrpIoException failure;

        Slot(final BenchWorker worker, final int index, final long offset) {
            this.worker = worker;
            this.index = index;
            this.offset = offset;
        }

        /** A channel thread: the I/O is answered. */
        void completed(final long moved, final SrpIoException error) {
            completedAt = System.nanoTime();
            bytes = moved;
            failure = error;
            worker.completions.push(index);
            if (worker.parked) {
                LockSupport.unpark(worker.thread);
            }
        }
    }
}

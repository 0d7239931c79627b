package org.rdmablock.tools.bench;

import java.util.Locale;

/**
 * What one bench run does, checked: the I/O pattern, its size and depth, how it is spread over threads, when it
 * ends and whether it verifies.
 *
 * @param mode         the access pattern
 * @param readPercent  for {@link Mode#RANDRW}, the share of reads (0..100); 100 for reads, 0 for writes
 * @param blockBytes   bytes per I/O (a multiple of the LUN's block size)
 * @param ioDepth      I/Os in flight per thread
 * @param threads      submitting threads; each works on its own slice of the region
 * @param regionBytes  bytes of the LUN used, from LBA 0
 * @param runtimeNanos how long the measured part lasts, or 0 when the run ends after {@link #sizeBytes} instead
 * @param sizeBytes    with no runtime: the bytes the measured part moves (one pass over the region)
 * @param rampNanos    how long the run goes before it measures
 * @param verify       write the {@link VerifyPattern} and check every read
 */
public record Workload(Mode mode, int readPercent, int blockBytes, int ioDepth, int threads, long regionBytes,
                       long runtimeNanos, long sizeBytes, long rampNanos, boolean verify) {
    /** Units (I/Os of {@code blockBytes}) a verifying thread keeps a generation for, at most: 128 MiB of ints. */
    public static final long MAX_VERIFY_UNITS_PER_THREAD = 32L << 20;

    /** The access patterns, named as fio's {@code rw}. */
    public enum Mode {
        /** Random reads. */
        RANDREAD(true, false),
        /** Random writes. */
        RANDWRITE(true, false),
        /** Sequential reads, each thread through its slice. */
        READ(false, false),
        /** Sequential writes, each thread through its slice. */
        WRITE(false, false),
        /** Random reads and writes, {@code --rwmix-read} percent reads. */
        RANDRW(true, true);

        final boolean random;
        final boolean mixed;

        Mode(final boolean random, final boolean mixed) {
            this.random = random;
            this.mixed = mixed;
        }

        /** fio's name for it. */
        public String fioName() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** The mode fio calls {@code name}. */
        public static Mode of(final String name) {
            for (final Mode mode : values()) {
                if (mode.fioName().equals(name.toLowerCase(Locale.ROOT))) {
                    return mode;
                }
            }
            throw new IllegalArgumentException("--rw must be randread, randwrite, read, write or randrw, not " + name);
        }
    }

    public Workload {
        if (blockBytes <= 0) {
            throw new IllegalArgumentException("--bs must be positive");
        }
        if (ioDepth < 1 || ioDepth > 4096) {
            throw new IllegalArgumentException("--iodepth must be 1..4096, not " + ioDepth);
        }
        if (threads < 1 || threads > 256) {
            throw new IllegalArgumentException("--threads must be 1..256, not " + threads);
        }
        if (readPercent < 0 || readPercent > 100) {
            throw new IllegalArgumentException("--rwmix-read must be 0..100, not " + readPercent);
        }
        if (regionBytes / threads < blockBytes) {
            throw new IllegalArgumentException("the region (" + regionBytes + " bytes) gives each of " + threads
                    + " threads less than one I/O of " + blockBytes + " bytes");
        }
        if (runtimeNanos < 0 || rampNanos < 0) {
            throw new IllegalArgumentException("durations must not be negative");
        }
        if (verify && regionBytes / threads / blockBytes > MAX_VERIFY_UNITS_PER_THREAD) {
            throw new IllegalArgumentException("--verify keeps a generation per I/O unit: " + regionBytes / threads / blockBytes
                    + " units per thread is more than " + MAX_VERIFY_UNITS_PER_THREAD + "; give a smaller --size");
        }
    }

    /** Whether any I/O of the run reads. */
    public boolean reads() {
        return mode == Mode.RANDREAD || mode == Mode.READ || (mode == Mode.RANDRW && readPercent > 0);
    }

    /** Whether any I/O of the run writes. */
    public boolean writes() {
        return mode == Mode.RANDWRITE || mode == Mode.WRITE || (mode == Mode.RANDRW && readPercent < 100);
    }

    /** Bytes of each thread's slice of the region (whole I/O units). */
    public long sliceBytes() {
        return regionBytes / threads / blockBytes * blockBytes;
    }

    /** The share of reads (0..100) the run's I/Os have. */
    public int effectiveReadPercent() {
        return switch (mode) {
            case RANDREAD, READ -> 100;
            case RANDWRITE, WRITE -> 0;
            case RANDRW -> readPercent;
        };
    }
}

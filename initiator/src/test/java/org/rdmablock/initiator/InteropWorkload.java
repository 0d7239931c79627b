package org.rdmablock.initiator;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * What the interop tests run against a second target ({@link LioInteropTest}, {@link NvmeInteropTest}) on one LUN of
 * at least 64 MiB: 64 MiB written in 1 MiB sequential I/O and read back, then every 4 KiB block again in random order
 * at depth 16 and read back in another random order, everything verified, the figures printed under a label.
 */
final class InteropWorkload {
    static final int MIB = 1 << 20;
    static final int DEPTH = 16;

    private InteropWorkload() {
    }

    /** Runs the workload on the first 64 MiB of {@code lun}, through {@code initiator}'s registered memory. */
    static void run(final String label, final SrpInitiator initiator, final Lun lun) throws Exception {
        final MemorySegment buffer = initiator.allocateBuffer(DEPTH * MIB);
        final long total = 64L * MIB;
        final int blockSize = lun.blockSize();
        final Random random = new Random(2026);
        final byte[] expected = new byte[(int) total];
        random.nextBytes(expected);

        long started = System.nanoTime();
        for (long at = 0; at < total; at += (long) DEPTH * MIB) {
            final List<CompletableFuture<Long>> pending = new ArrayList<>();
            for (int i = 0; i < DEPTH && at + (long) i * MIB < total; i++) {
                final long offset = at + (long) i * MIB;
                MemorySegment.copy(expected, (int) offset, buffer, ValueLayout.JAVA_BYTE, (long) i * MIB, MIB);
                pending.add(lun.write(offset / blockSize, MIB / blockSize, buffer, (long) i * MIB, false));
            }
            for (final CompletableFuture<Long> f : pending) {
                assertEquals(MIB, f.get(60, TimeUnit.SECONDS));
            }
        }
        report(label, "1 MiB sequential write", total, started);
        started = System.nanoTime();
        verifySequential(lun, buffer, expected);
        report(label, "1 MiB sequential read", total, started);

        final int blocks4k = (int) (total / 4096);
        final List<Integer> order = new ArrayList<>();
        for (int i = 0; i < blocks4k; i++) {
            order.add(i);
        }
        Collections.shuffle(order, random);
        for (int i = 0; i < blocks4k; i++) {
            final byte[] fresh = new byte[4096];
            random.nextBytes(fresh);
            System.arraycopy(fresh, 0, expected, order.get(i) * 4096, 4096);
        }
        started = System.nanoTime();
        randomPass(lun, buffer, expected, order, true);
        report(label, "4 KiB random write", total, started);
        Collections.shuffle(order, random);
        started = System.nanoTime();
        randomPass(lun, buffer, expected, order, false);
        report(label, "4 KiB random read", total, started);
        verifySequential(lun, buffer, expected);
    }

    private static void report(final String label, final String what, final long bytes, final long startedNanos) {
        final double seconds = (System.nanoTime() - startedNanos) / 1e9;
        System.out.printf("%s: %s of %d MiB in %.1f s (%.1f MB/s)%n", label, what, bytes >> 20, seconds, bytes / seconds / 1e6);
    }

    private static void verifySequential(final Lun lun, final MemorySegment buffer, final byte[] expected) throws Exception {
        final int blockSize = lun.blockSize();
        final byte[] got = new byte[MIB];
        for (long at = 0; at < expected.length; at += MIB) {
            assertEquals(MIB, lun.readBlocking(at / blockSize, MIB / blockSize, buffer, 0));
            MemorySegment.copy(buffer, ValueLayout.JAVA_BYTE, 0, got, 0, MIB);
            for (int i = 0; i < MIB; i++) {
                if (got[i] != expected[(int) at + i]) {
                    throw new AssertionError("byte " + (at + i) + " read back " + got[i] + ", written " + expected[(int) at + i]);
                }
            }
        }
    }

    /** Every 4 KiB block in {@code order}, {@link #DEPTH} at a time: written from, or read and checked against, {@code expected}. */
    private static void randomPass(final Lun lun, final MemorySegment buffer, final byte[] expected, final List<Integer> order,
                                   final boolean write) throws Exception {
        final int perBlock = 4096 / lun.blockSize();
        for (int i = 0; i < order.size(); i += DEPTH) {
            final List<CompletableFuture<Long>> pending = new ArrayList<>();
            final int n = Math.min(DEPTH, order.size() - i);
            for (int j = 0; j < n; j++) {
                final int block = order.get(i + j);
                if (write) {
                    MemorySegment.copy(expected, block * 4096, buffer, ValueLayout.JAVA_BYTE, j * 4096L, 4096);
                    pending.add(lun.write((long) block * perBlock, perBlock, buffer, j * 4096L, false));
                } else {
                    pending.add(lun.read((long) block * perBlock, perBlock, buffer, j * 4096L));
                }
            }
            for (final CompletableFuture<Long> f : pending) {
                assertEquals(4096, f.get(60, TimeUnit.SECONDS));
            }
            if (!write) {
                for (int j = 0; j < n; j++) {
                    final int block = order.get(i + j);
                    for (int k = 0; k < 4096; k += 509) {
                        assertEquals(expected[block * 4096 + k], buffer.get(ValueLayout.JAVA_BYTE, j * 4096L + k),
                                "block " + block + " byte " + k);
                    }
                }
            }
        }
    }
}

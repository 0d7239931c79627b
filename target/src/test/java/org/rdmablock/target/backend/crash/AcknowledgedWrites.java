package org.rdmablock.target.backend.crash;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The writes a crash-test writer acknowledged, as it reported them: one line {@code ack <writer> <seq>} per write whose
 * completion said OK (and, in write-back, whose flush did too), printed only then. Each writer acknowledges its writes
 * in order, one at a time, so the log keeps the last seq per writer. {@link #record} is called by the thread that reads
 * the writer's output, the getters by the checking thread.
 */
public final class AcknowledgedWrites {
    private static final String PREFIX = "ack ";
    /** The last acknowledged seq of each writer; -1 before its first. */
    private final AtomicLongArray last;

    public AcknowledgedWrites(int writers) {
        last = new AtomicLongArray(writers);
        for (int w = 0; w < writers; w++) {
            last.set(w, -1);
        }
    }

    /** The line a writer prints when write {@code seq} of writer {@code writer} is acknowledged. */
    public static String line(int writer, long seq) {
        return PREFIX + writer + " " + seq + "\n";
    }

    /**
     * Records the acknowledgement {@code line} holds; returns false for a line that is not one (the writer's JVM may
     * print other things). Throws when a writer's acknowledgements come out of order: the writer is broken.
     */
    public boolean record(String line) {
        if (!line.startsWith(PREFIX)) {
            return false;
        }
        String[] fields = line.substring(PREFIX.length()).trim().split(" ");
        int writer = Integer.parseInt(fields[0]);
        long seq = Long.parseLong(fields[1]);
        long previous = last.getAndSet(writer, seq);
        if (seq != previous + 1) {
            throw new IllegalStateException("writer " + writer + " acknowledged " + seq + " after " + previous);
        }
        return true;
    }

    /** Writers the log covers. */
    public int writers() {
        return last.length();
    }

    /** The last acknowledged seq of {@code writer}, -1 if none. */
    public long lastAcknowledged(int writer) {
        return last.get(writer);
    }

    /** Acknowledged writes, all writers together. */
    public long total() {
        long total = 0;
        for (int w = 0; w < last.length(); w++) {
            total += last.get(w) + 1;
        }
        return total;
    }
}

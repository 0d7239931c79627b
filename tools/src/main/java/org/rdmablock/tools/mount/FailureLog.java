package org.rdmablock.tools.mount;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * At most one log line per {@link #INTERVAL_NANOS} for a file's failed operations, the others counted and reported in
 * the next line: while its target is away every request fails (at once, once the initiator's channel is down), and fio
 * sends thousands a second. Any thread; allocates nothing.
 */
final class FailureLog {
    /** Ten seconds between lines. */
    static final long INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);
    private final AtomicLong nextLineNanos;
    private final AtomicLong unlogged = new AtomicLong();

    FailureLog(final long nowNanos) {
        this.nextLineNanos = new AtomicLong(nowNanos);
    }

    /**
     * A failure at {@code nowNanos}: -1 when it is not to be logged (it is counted), else how many failures went
     * unlogged since the last line (this one to be logged with that count).
     */
    long admit(final long nowNanos) {
        final long next = nextLineNanos.get();
        if (nowNanos - next >= 0 && nextLineNanos.compareAndSet(next, nowNanos + INTERVAL_NANOS)) {
            return unlogged.getAndSet(0);
        }
        unlogged.incrementAndGet();
        return -1;
    }
}

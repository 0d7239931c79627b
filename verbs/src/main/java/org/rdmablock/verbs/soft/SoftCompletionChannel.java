package org.rdmablock.verbs.soft;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.rdmablock.verbs.CompletionChannel;
import org.rdmablock.verbs.CompletionQueue;
import org.rdmablock.verbs.VerbsException;

/**
 * A completion channel of the soft provider: a fixed ring of signalled CQs and a count of pending wakeups under
 * one monitor, which waiters wait on. A blocking queue would allocate a condition node per wait; the monitor
 * allocates nothing. An armed CQ signals at most once per arming, so the ring never needs more entries than
 * there are CQs.
 */
final class SoftCompletionChannel implements CompletionChannel {
    private static final int MAX_PENDING_EVENTS = 4096;

    private final SoftContext context;
    private final CompletionQueue[] ring = new CompletionQueue[MAX_PENDING_EVENTS];
    /** Guards ring, head, count, wakeups and closed; waiters wait on it. */
    private final Object lock = new Object();
    private int head;
    private int count;
    private int wakeups;
    private boolean closed;

    SoftCompletionChannel(final SoftContext context) {
        this.context = context;
    }

    /** An armed CQ got a completion (the agent or a posting thread): queues the event for one waiter. */
    void signal(final CompletionQueue cq) {
        synchronized (lock) {
            if (count == ring.length) {
                return; // more events than CQs cannot happen while each arming signals once
            }
            ring[(head + count) % ring.length] = cq;
            count++;
            lock.notify();
        }
    }

    @Override
    public CompletionQueue awaitEvent(final Duration timeout) throws InterruptedException {
        final long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (lock) {
            if (closed) {
                throw new VerbsException(VerbsException.EINVAL, "completion channel is closed");
            }
            while (true) {
                if (wakeups > 0) {
                    wakeups--;
                    return null;
                }
                if (count > 0) {
                    final CompletionQueue cq = ring[head];
                    ring[head] = null;
                    head = (head + 1) % ring.length;
                    count--;
                    return cq;
                }
                final long left = deadline - System.nanoTime();
                if (closed || left <= 0) {
                    return null;
                }
                TimeUnit.NANOSECONDS.timedWait(lock, left);
            }
        }
    }

    @Override
    public void wakeup() {
        synchronized (lock) {
            wakeups++;
            lock.notify();
        }
    }

    @Override
    public void close() {
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            lock.notifyAll();
        }
        context.released(this);
    }
}

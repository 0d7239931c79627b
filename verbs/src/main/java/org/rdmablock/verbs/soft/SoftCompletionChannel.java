package org.rdmablock.verbs.soft;

import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.rdmablock.verbs.CompletionChannel;
import org.rdmablock.verbs.CompletionQueue;

/**
 * A completion channel of the soft provider. An armed CQ signals it at most once per arming, so the queue never
 * holds more events than there are CQs; its fixed capacity means no allocation per event.
 */
final class SoftCompletionChannel implements CompletionChannel {
    private static final int MAX_PENDING_EVENTS = 4096;

    private final SoftContext context;
    private final ArrayBlockingQueue<CompletionQueue> events = new ArrayBlockingQueue<>(MAX_PENDING_EVENTS);

    SoftCompletionChannel(final SoftContext context) {
        this.context = context;
    }

    void signal(final CompletionQueue cq) {
        events.offer(cq);
    }

    @Override
    public CompletionQueue awaitEvent(final Duration timeout) throws InterruptedException {
        return events.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    @Override
    public void close() {
        context.released(this);
    }
}

package org.rdmablock.target.core;

import com.lmax.disruptor.PhasedBackoffWaitStrategy;
import com.lmax.disruptor.RingBuffer;
import com.lmax.disruptor.dsl.Disruptor;
import com.lmax.disruptor.dsl.ProducerType;
import org.rdmablock.target.metrics.TargetStatistics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.TimeUnit;

/**
 * The blocking-call threads of a pipeline that the completion poller runs itself ({@code backend_threads = 0},
 * {@code blocking_threads} N): the backend calls the poller did not make because they would wait on a device (a
 * file read the page cache does not hold, an fdatasync, a FUA or write-through write, every RocksDB call; see
 * {@link org.rdmablock.target.backend.DeferredCall}) reach them through a Disruptor ring per thread. The poller gives
 * each call to the thread with the fewest calls waiting (so that a thread stuck in a long call does not hold up the
 * calls behind it while another is free, and a publish wakes one thread, not all). A thread makes the call, blocking
 * as long as it takes, and the command goes on from its callback there (the response is posted from that thread at
 * once, as backend threads post theirs). Memory LUNs and
 * cached file reads never come here, so they keep the poller's latency while a cold read waits on the disk here
 * without holding up every channel.
 *
 * <p>The poller is each ring's only producer (no lock or CAS on its side); a thread sleeps on a lite lock once idle,
 * which the poller's publish takes only while it sleeps. Each ring holds as many calls as the pipeline has slots, and
 * a slot has at most one call here at a time, so a ring fills only behind a stuck thread; should every ring be full,
 * the poller makes the call itself rather than wait (counted in {@link #madeByPoller}).
 */
final class BlockingCalls {
    private static final Logger LOG = LoggerFactory.getLogger(BlockingCalls.class);

    /** A ring entry: the command whose {@code deferredCall} waits. */
    static final class Event {
        CommandSlot slot;
    }

    private final Disruptor<Event>[] disruptors;
    private final RingBuffer<Event>[] rings;
    /** Where the search for the least busy thread starts: the one after the last chosen, so that ties rotate. */
    private int next;
    /**
     * Where a hand-over is counted ({@code BLOCKING_CALLS}, the pipeline's only count of them): here, so that it counts
     * the calls handed over and not those the poller made itself.
     */
    private final TargetStatistics statistics;
    /** How the blocking-call threads post: at once (they are not the poller, whose posts wait for its cycle's end). */
    private final DirectPosts posts;
    /** Calls the poller made itself because every ring was full (statistics; poller thread writes). */
    volatile long madeByPoller;

    @SuppressWarnings("unchecked")
    BlockingCalls(final int threads, final int slotCount, final TargetStatistics statistics, final DirectPosts posts) {
        this.statistics = statistics;
        this.posts = posts;
        final int size = Integer.highestOneBit(Math.max(2, slotCount) - 1) << 1;
        this.disruptors = new Disruptor[threads];
        this.rings = new RingBuffer[threads];
        for (int i = 0; i < threads; i++) {
            disruptors[i] = new Disruptor<>(Event::new, size, Thread.ofPlatform().daemon().name("srp-blocking-" + i).factory(),
                    ProducerType.SINGLE, PhasedBackoffWaitStrategy.withLiteLock(0, 0, TimeUnit.MICROSECONDS));
            disruptors[i].handleEventsWith((event, sequence, endOfBatch) -> make(event.slot, posts));
            rings[i] = disruptors[i].start();
        }
    }

    /** Poller thread: hands the slot's pending call to the least busy blocking-call thread (all full: makes it here). */
    void submit(final CommandSlot slot) {
        final int threads = rings.length;
        int chosen = -1;
        long fewest = Long.MAX_VALUE;
        for (int k = 0; k < threads && fewest > 0; k++) {
            final int i = (next + k) % threads;
            final RingBuffer<Event> ring = rings[i];
            final long waiting = ring.getCursor() - ring.getMinimumGatingSequence();
            if (waiting < fewest && waiting < ring.getBufferSize()) {
                fewest = waiting;
                chosen = i;
            }
        }
        if (chosen < 0) {
            madeByPoller++;
            make(slot, null); // on the poller: its posts stay in its batch
            return;
        }
        next = (chosen + 1) % threads;
        final RingBuffer<Event> ring = rings[chosen];
        final long sequence = ring.next(); // room checked above, and the poller is the only producer
        ring.get(sequence).slot = slot;
        // counted before the publish: the call's answer may reach the initiator before this thread runs on
        statistics.add(TargetStatistics.Count.BLOCKING_CALLS, 1);
        ring.publish(sequence);
    }

    /** Makes the slot's stashed call; {@code posts}, when not null, is the calling thread's poster for the slot. */
    private static void make(final CommandSlot slot, final SendPoster posts) {
        if (posts != null) {
            slot.postsThrough(posts);
        }
        slot.command.deferBlockingCallsTo(null); // this thread may wait: the call, and any the engine issues after it
        try {
            slot.deferredCall.run();
        } catch (RuntimeException e) { // the backends turn their own failures into a status; this is a bug past them
            LOG.error("a deferred backend call of {} failed", slot.channel, e);
        }
    }

    /**
     * Any thread: waits until every call handed over before this call has been made; false when {@code deadline}
     * ({@link System#nanoTime()}) passed first or the thread was interrupted.
     */
    boolean awaitMade(final long deadline) {
        for (final RingBuffer<Event> ring : rings) {
            final long handed = ring.getCursor();
            while (ring.getMinimumGatingSequence() < handed) {
                if (!CommandPipeline.sleepUntil(deadline)) {
                    return false;
                }
            }
        }
        return true;
    }

    /** Stops the threads once every call handed over was made, waiting at most {@code seconds} for each. */
    void close(final int seconds) {
        for (final Disruptor<Event> disruptor : disruptors) {
            try {
                disruptor.shutdown(seconds, TimeUnit.SECONDS);
            } catch (com.lmax.disruptor.TimeoutException e) {
                LOG.warn("a blocking-call thread still busy after {} s; halting it", seconds);
                disruptor.halt();
            }
        }
    }
}

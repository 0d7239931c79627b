package org.rdmablock.target.srp;

import com.lmax.disruptor.EventHandler;
import com.lmax.disruptor.InsufficientCapacityException;
import com.lmax.disruptor.PhasedBackoffWaitStrategy;
import com.lmax.disruptor.RingBuffer;
import com.lmax.disruptor.dsl.Disruptor;
import com.lmax.disruptor.dsl.ProducerType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.TimeUnit;

/**
 * The blocking-call threads of a pipeline that the completion poller runs itself ({@code backend_threads = 0},
 * {@code blocking_threads} N): the backend calls the poller did not make because they would wait on a device (a
 * file read the page cache does not hold, an fdatasync, a FUA or write-through write, every RocksDB call; see
 * {@link org.rdmablock.target.backend.DeferredCall}) reach them through a Disruptor ring, each thread taking the
 * sequences that fall to it. A thread makes the call, blocking as long as it takes, and the command goes on from its
 * callback there (the response is posted from that thread at once, as backend threads post theirs). Memory LUNs and
 * cached file reads never come here, so they keep the poller's latency while a cold read waits on the disk here
 * without holding up every channel.
 *
 * <p>The poller is the ring's only producer (no lock or CAS on its side); the threads sleep on a lite lock once
 * idle, which the poller's publish takes only while one sleeps. The ring holds four times the pipeline's slots, and
 * each slot has at most one call here at a time; should a thread stuck in a long call still let the ring fill, the
 * poller makes that call itself rather than wait (counted in {@link #madeByPoller}).
 */
final class BlockingCalls {
    private static final Logger LOG = LoggerFactory.getLogger(BlockingCalls.class);

    /** A ring entry: the command whose {@code deferredCall} waits. */
    static final class Event {
        CommandSlot slot;
    }

    private final Disruptor<Event> disruptor;
    private final RingBuffer<Event> ring;
    /** Calls the poller made itself because the ring was full (statistics; poller thread writes). */
    volatile long madeByPoller;

    BlockingCalls(final int threads, final int slotCount) {
        final int size = Integer.highestOneBit(Math.max(1, slotCount) * 4 - 1) << 1;
        this.disruptor = new Disruptor<>(Event::new, size, Thread.ofPlatform().daemon().name("srp-blocking-", 0).factory(),
                ProducerType.SINGLE, PhasedBackoffWaitStrategy.withLiteLock(0, 0, TimeUnit.MICROSECONDS));
        @SuppressWarnings("unchecked")
        final EventHandler<Event>[] handlers = new EventHandler[threads];
        for (int i = 0; i < threads; i++) {
            final int ordinal = i;
            handlers[i] = (event, sequence, endOfBatch) -> {
                if (sequence % threads == ordinal) {
                    make(event.slot);
                }
            };
        }
        disruptor.handleEventsWith(handlers);
        this.ring = disruptor.start();
    }

    /** Poller thread: hands the slot's pending call to a blocking-call thread (or, with the ring full, makes it). */
    void submit(final CommandSlot slot) {
        final long sequence;
        try {
            sequence = ring.tryNext();
        } catch (InsufficientCapacityException e) {
            madeByPoller++;
            make(slot);
            return;
        }
        ring.get(sequence).slot = slot;
        ring.publish(sequence);
    }

    private static void make(final CommandSlot slot) {
        try {
            slot.deferredCall.run();
        } catch (RuntimeException e) { // the backends turn their own failures into a status; this is a bug past them
            LOG.error("a deferred backend call of {} failed", slot.channel, e);
        }
    }

    /** The last sequence published (any thread; with {@link #handledUpTo()} for the pipeline's awaitHandled). */
    long published() {
        return ring.getCursor();
    }

    /** Every call up to this sequence has been made. */
    long handledUpTo() {
        return ring.getMinimumGatingSequence();
    }

    /** Stops the threads once every call handed over was made, waiting at most {@code seconds}. */
    void close(final int seconds) {
        try {
            disruptor.shutdown(seconds, TimeUnit.SECONDS);
        } catch (com.lmax.disruptor.TimeoutException e) {
            LOG.warn("blocking-call threads still busy after {} s; halting them", seconds);
            disruptor.halt();
        }
    }
}

package org.rdmablock.target.core;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The pipeline without a ring ({@code backend_threads = 0}): the completion poller's thread runs the intake stage on
 * each completion, right in {@link #publish}, and then executes the command that completion made ready: no hand-off
 * and no thread to wake between a completion and the response it leads to (the lowest latency for memory LUNs and
 * files in the page cache). Its posts gather in the duty cycle's {@link SendBatch}. With blocking-call threads, a
 * backend call that would wait on a device is not made here but handed to {@link BlockingCalls}, and that command goes
 * on from there.
 *
 * <p>Thread: the completion poller's, for everything but {@link #published}, {@link #handledUpTo} and
 * {@link #awaitHandedCalls} (any thread) and {@link #close} (the closing thread, once the poller has stopped).
 */
final class PollerExecution implements PipelineExecution {
    private static final Logger LOG = LoggerFactory.getLogger(CommandPipeline.class);
    private final Intake intake;
    private final SendBatch sendBatch;
    /** Where the backend calls go that the poller does not make because they would wait; null without such threads. */
    private final BlockingCalls blockingCalls;
    private final PipelineExceptionHandler exceptionHandler;
    /** The one event the poller reuses for every completion. */
    private final PipelineEvent event = new PipelineEvent();
    /** Events begun and finished (sequence numbers from 1), for the pipeline's quiescence wait. */
    private final AtomicLong eventsBegun = new AtomicLong();
    private final AtomicLong eventsHandled = new AtomicLong();

    PollerExecution(final Intake intake, final SendBatch sendBatch, final BlockingCalls blockingCalls,
                    final PipelineExceptionHandler exceptionHandler) {
        this.intake = intake;
        this.sendBatch = sendBatch;
        this.blockingCalls = blockingCalls;
        this.exceptionHandler = exceptionHandler;
    }

    @Override
    public void publish(final int kind, final int channel, final int index, final int byteLength, final int status) {
        event.set(kind, channel, index, byteLength, status);
        // a volatile store: a reload's awaitHandled that reads it after changing the tables waits for this event,
        // and one that reads the previous value changed the tables before this event reads them
        final long sequence = eventsBegun.incrementAndGet();
        try {
            intake.onEvent(event, sequence, true);
            final CommandSlot slot = event.ready;
            if (slot != null && BackendStage.runs(slot)) {
                execute(slot);
            }
        } catch (final Throwable e) { // as the Disruptor's processors do: one bad command must not stop the poller
            exceptionHandler.handleEventException(e, sequence, event);
        } finally {
            eventsHandled.lazySet(sequence);
        }
    }

    /**
     * Executes a ready command here. With blocking-call threads the command is told that this thread must not wait: a
     * backend call that would is stashed in the slot's deferred call, and handed over.
     */
    private void execute(final CommandSlot slot) {
        slot.postsThrough(sendBatch);
        if (blockingCalls == null) {
            slot.channel.units.execute(slot.lunField, slot.command);
            return;
        }
        slot.command.deferBlockingCallsTo(slot.deferredCall);
        try {
            slot.channel.units.execute(slot.lunField, slot.command);
        } finally {
            if (slot.deferredCall.pending()) {
                blockingCalls.submit(slot); // counts the hand-over (BLOCKING_CALLS) before publishing it
            }
        }
    }

    @Override
    public int flushPosts() {
        return sendBatch.flush();
    }

    @Override
    public long published() {
        return eventsBegun.get();
    }

    @Override
    public long handledUpTo() {
        return eventsHandled.get();
    }

    @Override
    public boolean awaitHandedCalls(final long deadline) {
        // the events handled so far handed their deferred calls over before they ended
        return blockingCalls == null || blockingCalls.awaitMade(deadline);
    }

    @Override
    public void close(final int seconds) {
        // the poller has stopped, or is stuck in a backend call that this wait bounds
        final long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        final long published = eventsBegun.get();
        while (eventsHandled.get() < published) {
            if (!CommandPipeline.sleepUntil(deadline)) {
                LOG.warn("the poller still runs a command after {} s; closing the pipeline under it", seconds);
                break;
            }
        }
        if (blockingCalls != null) {
            blockingCalls.close(seconds);
        }
    }
}

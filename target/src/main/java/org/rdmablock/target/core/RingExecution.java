package org.rdmablock.target.core;

import com.lmax.disruptor.PhasedBackoffWaitStrategy;
import com.lmax.disruptor.RingBuffer;
import com.lmax.disruptor.SleepingWaitStrategy;
import com.lmax.disruptor.WaitStrategy;
import com.lmax.disruptor.dsl.Disruptor;
import com.lmax.disruptor.dsl.ProducerType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.TimeUnit;

/**
 * The pipeline with backend threads ({@code backend_threads} N): completions enter a Disruptor ring whose first stage,
 * the {@link Intake}, runs on a thread of its own, and whose second, N {@link BackendStage}s, execute the commands the
 * intake made ready, each taking the slots whose index falls to it. The poller is the ring's only producer
 * (single-producer sequencer: no lock or CAS on its side). Every post from the stage threads goes at once.
 *
 * <p>Threads: {@link #publish} on the poller; the stages on the ring's threads ({@code srp-pipeline-N}); the waits
 * on any thread.
 */
final class RingExecution implements PipelineExecution {
    private static final Logger LOG = LoggerFactory.getLogger(CommandPipeline.class);
    private final Disruptor<PipelineEvent> disruptor;
    private final RingBuffer<PipelineEvent> ring;

    RingExecution(final Intake intake, final int backendThreads, final int ringSize, final boolean sleepWhenIdle,
                  final SendPoster posts, final PipelineExceptionHandler exceptionHandler) {
        this.disruptor = new Disruptor<>(PipelineEvent::new, ringSize,
                Thread.ofPlatform().daemon().name("srp-pipeline-", 0).factory(),
                ProducerType.SINGLE, sleepWhenIdle ? sleepingStages() : new SleepingWaitStrategy());
        final BackendStage[] backends = new BackendStage[backendThreads];
        for (int i = 0; i < backendThreads; i++) {
            backends[i] = new BackendStage(i, backendThreads, posts);
        }
        disruptor.handleEventsWith(intake).then(backends);
        disruptor.setDefaultExceptionHandler(exceptionHandler);
        this.ring = disruptor.start();
    }

    /**
     * The stages' wait with {@code completions = "event"}: spin {@link CommandPipeline#STAGE_SPIN_MICROS}, yield until
     * {@link CommandPipeline#STAGE_YIELD_MICROS}, then sleep until the next publish. The default
     * {@link SleepingWaitStrategy} never sleeps longer than a park of 100 ns, so five idle stages keep waking thousands
     * of times a second, which on a small or shared machine (or under emulation: Soft-RoCE in the QEMU harness) takes
     * the CPU the I/O needs. The lite lock is only taken when a stage sleeps: the poller's publish reads one flag
     * otherwise.
     */
    private static WaitStrategy sleepingStages() {
        return PhasedBackoffWaitStrategy.withLiteLock(CommandPipeline.STAGE_SPIN_MICROS, CommandPipeline.STAGE_YIELD_MICROS,
                TimeUnit.MICROSECONDS);
    }

    @Override
    public void publish(final int kind, final int channel, final int index, final int byteLength, final int status) {
        final long sequence = ring.next();
        ring.get(sequence).set(kind, channel, index, byteLength, status);
        ring.publish(sequence);
    }

    @Override
    public int flushPosts() {
        return 0; // the poller posts nothing: the stage threads post at once
    }

    @Override
    public long published() {
        return ring.getCursor();
    }

    @Override
    public long handledUpTo() {
        // the ring's gating sequences are its last stage's (the backend threads'), which follow the intake stage's
        return ring.getMinimumGatingSequence();
    }

    @Override
    public boolean awaitHandedCalls(final long deadline) {
        return true; // the backend threads make their calls inside their events
    }

    @Override
    public void close(final int seconds) {
        try {
            disruptor.shutdown(seconds, TimeUnit.SECONDS);
        } catch (com.lmax.disruptor.TimeoutException e) {
            LOG.warn("pipeline stages still busy after {} s; halting them", seconds);
            disruptor.halt();
        }
    }
}

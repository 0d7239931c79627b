package org.rdmablock.target.core;

/**
 * How a pipeline runs its intake stage and its commands: on the completion poller's own thread
 * ({@link PollerExecution}, {@code backend_threads = 0}) or through a Disruptor ring to an intake stage thread and
 * backend threads ({@link RingExecution}). Chosen once, when the pipeline is made.
 */
interface PipelineExecution {
    /** Poller thread: one completion (or a tick) for the intake stage. */
    void publish(int kind, int channel, int index, int byteLength, int status);

    /** Poller thread, at the end of each duty cycle: posts what the cycle's work gathered; the queue pairs posted to. */
    int flushPosts();

    /** Any thread: the sequence of the last event published. */
    long published();

    /** Any thread: the sequence up to which every stage has handled every event. */
    long handledUpTo();

    /**
     * Any thread: waits until every backend call handed to another thread before this call was made; false when
     * {@code deadline} ({@link System#nanoTime()}) passed first.
     */
    boolean awaitHandedCalls(long deadline);

    /** Stops the stages once everything published is handled, waiting at most {@code seconds}. */
    void close(int seconds);
}

package org.rdmablock.target.srp;

/**
 * The seam between the transport-neutral core and a protocol: what the core's intake stage asks of the front end that
 * speaks the protocol (SRP today: {@link SrpFrontEnd}; NVMe over Fabrics next). The core owns the completions, the
 * command slots ({@link SlotPool}), the data room ({@link DataRoom}), the data phase ({@link DataPhase}), backend
 * dispatch, command timeouts and statistics; the front end owns its requests' decoding, flow control (credits), task
 * management, and what its responses say ({@link ResponseEncoder}).
 *
 * <p>Thread: the intake stage's, but for {@link #hasWork} (any thread).
 */
interface FrontEnd {
    /**
     * A request arrived in receive buffer {@code receiveIndex} of {@code channel}, {@code length} bytes, at
     * {@code arrivedNanos}: decode and handle it. A command it admits starts its data phase on {@code event}. False
     * when it must wait for a slot or a buffer run (nothing consumed): the core queues it and offers it again first.
     */
    boolean received(Channel channel, int receiveIndex, int length, PipelineEvent event, long arrivedNanos);

    /** An admitted command is dropped without a response (task management aborted it): its flow control goes on. */
    void commandDropped(Channel channel);

    /** Each housekeeping tick, after the core's own (returned slots, timeouts): the front end's timers and logouts. */
    void tick(long now);

    /** Any thread: whether the front end has work that only a tick brings the intake stage to. */
    boolean hasWork();
}

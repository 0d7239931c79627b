package org.rdmablock.target.core;

import org.rdmablock.target.metrics.TargetStatistics;

/**
 * The seam between the transport-neutral core and a protocol: what the core's intake stage asks of the front end that
 * speaks the protocol (SRP today: {@code org.rdmablock.target.srp.SrpFrontEnd}; NVMe over Fabrics next). The core owns
 * the completions, the command slots ({@link SlotPool}), the data room ({@link DataRoom}), the data phase
 * ({@link DataPhase}), backend dispatch, command timeouts and statistics; the front end owns its requests' decoding,
 * flow control (credits), task management, and what its responses say ({@link ResponseEncoder}).
 *
 * <p>Thread: the intake stage's, but for {@link #hasWork} (any thread).
 */
public interface FrontEnd {
    /**
     * A request arrived in receive buffer {@code receiveIndex} of {@code channel}, {@code length} bytes, at
     * {@code arrivedNanos}: decode and handle it. A command it admits starts its data phase on {@code event}. False
     * when it must wait for a slot or a buffer run (nothing consumed): the core queues it and offers it again first.
     */
    boolean received(Channel channel, int receiveIndex, int length, PipelineEvent event, long arrivedNanos);

    /**
     * The data-out of a command the front end keeps for itself ({@link CommandSlot#frontEndTakesDataOut}) has arrived
     * in the slot's data buffer: the front end acts on it and answers it, or hands it on ({@link DataPhase#execute} on
     * {@code event}). A front end that keeps none never sees this.
     */
    default void dataOutArrived(CommandSlot slot, PipelineEvent event) {
        throw new IllegalStateException("this front end keeps no command for itself");
    }

    /** An admitted command is dropped without a response (task management aborted it): its flow control goes on. */
    void commandDropped(Channel channel);

    /**
     * Each housekeeping tick, after the core's own (returned slots, timeouts): the front end's timers and logouts;
     * {@code stopping} once the target is shutting down, when every channel is to be logged out.
     */
    void tick(long now, boolean stopping);

    /** Any thread: whether the front end has work that only a tick brings the intake stage to. */
    boolean hasWork();

    /** Whether {@code channel} is one of this front end's (several front ends may share a pipeline: {@link FrontEnds}). */
    boolean serves(Channel channel);

    /**
     * Its response encoders, one per slot by index: what its channels answer with ({@link Channel#respondsWith}, set by
     * its target before a channel is entered).
     */
    ResponseEncoder[] responseEncoders();

    /** Makes the front end of a pipeline from the core's parts it works with (once, as the pipeline is made). */
    @FunctionalInterface
    interface Factory {
        FrontEnd create(CoreParts core);
    }

    /**
     * What the core lends its front end: the slots, the data room, per-command statistics, the requests waiting for
     * either, the channels, the target's statistics, and how the intake stage posts.
     */
    record CoreParts(SlotPool slots, DataRoom room, CommandStatistics commands, WaitingRequests waiting,
                     ChannelTable channels, TargetStatistics statistics, SendPoster posts) {
    }
}

package org.rdmablock.target.core;

/**
 * One entry of the pipeline's Disruptor ring: a completion the poller saw, in the few fields the stages need.
 * Preallocated by the ring and overwritten in place; the intake stage may hand a command slot to the backend stage
 * through {@link #ready}.
 */
public final class PipelineEvent {
    /** {@link WorkRequestIds} kind. */
    int kind;
    int channel;
    /** Receive index or slot index. */
    int index;
    int byteLength;
    /** Work completion status, 0 for success. */
    int status;
    /** Set by the intake stage when this event makes a command ready for the backend stage; null otherwise. */
    CommandSlot ready;

    void set(final int kind, final int channel, final int index, final int byteLength, final int status) {
        this.kind = kind;
        this.channel = channel;
        this.index = index;
        this.byteLength = byteLength;
        this.status = status;
        this.ready = null;
    }
}

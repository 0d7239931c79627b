package org.rdmablock.target.metrics;

import org.rdmablock.target.config.InitiatorPortId;

/**
 * One session, an I_T nexus: the channels one initiator port has logged in to this target. Its I/O ({@link #io}) and
 * its credit stalls, written by the pipeline's intake stage for all of its channels; the channel count by the login
 * threads and the intake stage through {@link TargetStatistics}.
 */
public final class SessionStats {
    private static final int CREDITS_EXHAUSTED = 0;
    private static final int BUSY = 1;

    /** The initiator port id of the session. */
    public final InitiatorPortId initiator;
    /** The session's commands, on all of its channels. */
    public final IoStats io = new IoStats();
    private final SingleWriterCounters credits = new SingleWriterCounters(2);
    /** When its first channel logged in. */
    public final java.time.Instant since = java.time.Instant.now();
    /** Channels logged in (changed inside {@link TargetStatistics}'s map updates only, which are atomic per key). */
    volatile int channels;
    /** Where its latest channel came from (the initiator's address and port). */
    private volatile String address = "";
    /** The initiator's name where its protocol gives one (an NVMe host NQN), else "". */
    private volatile String name = "";

    SessionStats(final InitiatorPortId initiator) {
        this.initiator = initiator;
    }

    /** Login thread: the address a channel of this session came from. */
    public void cameFrom(final String remote) {
        address = remote;
    }

    /** The session's initiator is called {@code initiatorName} (an NVMe host's NQN). */
    public void named(final String initiatorName) {
        name = initiatorName;
    }

    /** The initiator's name, or "" where its protocol has none (SRP). */
    public String name() {
        return name;
    }

    /** Where the session's latest channel came from. */
    public String address() {
        return address;
    }

    /** Intake stage: a command took its channel's last credit; the initiator can send no more until a response. */
    public void creditsExhausted() {
        credits.add(CREDITS_EXHAUSTED, 1);
    }

    /** Intake stage: a command came beyond its channel's credits and was answered BUSY. */
    public void answeredBusy() {
        credits.add(BUSY, 1);
    }

    /** Times a command took the last credit of one of the session's channels. */
    public long creditsExhaustedCount() {
        return credits.get(CREDITS_EXHAUSTED);
    }

    /** Commands that came without a credit and were answered BUSY. */
    public long busyCount() {
        return credits.get(BUSY);
    }

    /** Channels the session has now. */
    public int channels() {
        return channels;
    }
}

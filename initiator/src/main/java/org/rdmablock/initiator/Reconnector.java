package org.rdmablock.initiator;

import org.rdmablock.verbs.CompletionChannel;
import org.rdmablock.verbs.ReceiveWorkRequest;

/** Logs a channel in again over a new connection, on the channel's agent thread (or the thread driving it). */
@FunctionalInterface
interface Reconnector {
    /**
     * Logs channel {@code index} in again, posting {@code receives} on the new QP first and making its CQ on
     * {@code events} (null: none).
     */
    ChannelLink reconnect(int index, ReceiveWorkRequest[] receives, CompletionChannel events) throws SrpIoException;

    /**
     * The target answered through the session's current path that its port's target port group is in standby or
     * unavailable: whether there is another path to log in through (the session's next login goes there).
     */
    default boolean leavePath(final String why) {
        return false;
    }
}

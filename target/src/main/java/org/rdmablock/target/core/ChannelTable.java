package org.rdmablock.target.core;

import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The channels logged in, by channel id, and (with a shared receive queue) their queue pair numbers: what the login
 * side ({@code SrpTarget}) enters and the intake stage looks up and removes. Owned by the target, given to its
 * pipeline; neither reaches into the other's fields.
 *
 * <p>Threads: login threads enter (under the target's lock) and remove a channel whose accept failed; the intake stage
 * looks up and removes drained channels; any thread counts. Lock-free: an {@link AtomicReferenceArray} and a
 * {@link QueuePairDirectory}.
 */
public final class ChannelTable {
    private final AtomicReferenceArray<Channel> channels;
    /** QP number to channel id, for shared receives; null without an SRQ. */
    private final QueuePairDirectory directory;

    public ChannelTable(final int capacity, final boolean sharedReceives) {
        this.channels = new AtomicReferenceArray<>(capacity);
        this.directory = sharedReceives ? new QueuePairDirectory(capacity) : null;
    }

    /** Channels served at once. */
    public int capacity() {
        return channels.length();
    }

    /** The channel with this id, or null. */
    public Channel get(final int id) {
        return channels.get(id);
    }

    /** The lowest free channel id, or -1 when every one is taken (login threads, under the target's lock). */
    public int freeId() {
        for (int i = 0; i < channels.length(); i++) {
            if (channels.get(i) == null) {
                return i;
            }
        }
        return -1;
    }

    /** Enters an admitted channel under its id (and its QP number, with shared receives). */
    public void enter(final Channel channel) {
        channels.set(channel.id, channel);
        if (directory != null) {
            directory.add(channel.queuePair.qpNum(), channel.id);
        }
    }

    /** Removes {@code channel} if it is still entered; false when another thread removed it first. */
    public boolean remove(final Channel channel) {
        if (!channels.compareAndSet(channel.id, channel, null)) {
            return false;
        }
        if (directory != null) {
            directory.remove(channel.queuePair.qpNum());
        }
        return true;
    }

    /** Removes whatever channel has this id (a stopping target's last sweep); null when none. */
    Channel take(final int id) {
        final Channel channel = channels.getAndSet(id, null);
        if (channel != null && directory != null) {
            directory.remove(channel.queuePair.qpNum());
        }
        return channel;
    }

    /** The channel id of a shared receive's queue pair, or -1 (intake stage). */
    int channelOfQueuePair(final int qpNum) {
        return directory == null ? -1 : directory.channelOf(qpNum);
    }

    /** Whether a channel of I_T nexus {@code nexus} is entered now (a snapshot; intake stage, when one leaves). */
    boolean anyOf(final org.rdmablock.protocol.scsi.Nexus nexus) {
        for (int i = 0; i < channels.length(); i++) {
            final Channel c = channels.get(i);
            if (c != null && c.nexus == nexus) {
                return true;
            }
        }
        return false;
    }

    /** Channels entered now (a snapshot). */
    public int count() {
        int n = 0;
        for (int i = 0; i < channels.length(); i++) {
            if (channels.get(i) != null) {
                n++;
            }
        }
        return n;
    }
}

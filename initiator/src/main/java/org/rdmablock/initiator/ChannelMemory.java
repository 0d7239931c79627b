package org.rdmablock.initiator;

import org.rdmablock.verbs.AccessFlags;
import org.rdmablock.verbs.MemoryRegion;
import org.rdmablock.verbs.ProtectionDomain;
import org.rdmablock.verbs.ReceiveWorkRequest;

import java.lang.foreign.Arena;
import java.util.List;

/**
 * The registered memory of one channel, registered on the connecting thread and used by the channel's agent: an IU
 * buffer per command slot and per control IU, a receive buffer (and its receive work request) per command slot and
 * spare receive, and a bounce buffer per command slot. Closed with the session.
 */
record ChannelMemory(MemoryRegion ius, int iuLength, MemoryRegion receives, int receiveLength,
                     ReceiveWorkRequest[] receiveRequests, MemoryRegion bounce, int bounceBytes) {
    /** Receives beyond the queue depth: the target's own requests (credit, AER, logout) need a buffer too. */
    static final int SPARE_RECEIVES = 4;

    /**
     * Registers the buffers of a channel of {@code depth} command slots in {@code pd}, from {@code arena}; each region
     * goes into {@code closeLater}.
     */
    static ChannelMemory register(final ProtectionDomain pd, final Arena arena, final int depth, final int iuLength,
                                  final int bounceBytes, final List<AutoCloseable> closeLater) {
        final MemoryRegion ius = register(pd, arena, (long) (depth + ControlIus.COUNT) * iuLength, AccessFlags.LOCAL_WRITE,
                closeLater);
        final int receiveCount = depth + SPARE_RECEIVES;
        final MemoryRegion receiveRegion = register(pd, arena, (long) receiveCount * iuLength, AccessFlags.LOCAL_WRITE,
                closeLater);
        final MemoryRegion bounce = register(pd, arena, (long) depth * bounceBytes,
                AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_WRITE, closeLater);
        final ReceiveWorkRequest[] receives = new ReceiveWorkRequest[receiveCount];
        for (int i = 0; i < receiveCount; i++) {
            receives[i] = new ReceiveWorkRequest(1).wrId(WorkRequestIds.receive(i));
            receives[i].sgl().add(receiveRegion, (long) i * iuLength, iuLength);
        }
        return new ChannelMemory(ius, iuLength, receiveRegion, iuLength, receives, bounce, bounceBytes);
    }

    private static MemoryRegion register(final ProtectionDomain pd, final Arena arena, final long bytes, final int access,
                                         final List<AutoCloseable> closeLater) {
        final MemoryRegion region = pd.registerMemory(arena.allocate(bytes, 4096), access);
        closeLater.add(region);
        return region;
    }
}

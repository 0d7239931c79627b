package org.rdmablock.target.nvme;

import org.rdmablock.protocol.nvme.NvmeRegister;
import org.rdmablock.target.config.NvmeConfig;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * One host's controller of a subsystem (NVMe over Fabrics' dynamic controller model): made by the admin queue's
 * Connect, joined by its I/O queues' Connects (same controller id and host NQN), ended when its admin queue goes or
 * its keep-alive timer runs out. Holds the controller's properties (CC, CSTS), its features and its outstanding
 * Asynchronous Event Requests.
 *
 * <p>Thread: the intake stage's alone.
 */
final class NvmeController {
    /** Asynchronous Event Requests held at once (Identify Controller's AERL is this minus one). */
    static final int MAX_EVENT_REQUESTS = 4;

    final int id;
    /** Null for the discovery controller. */
    final NvmeConfig.Subsystem subsystem;
    final String hostNqn;
    final byte[] hostId;
    final NvmeQueue adminQueue;
    /** The namespaces it serves, by LUN: looked up per command without boxing. */
    private final BitSet namespaces = new BitSet();
    private final boolean everyNamespace;
    final List<NvmeQueue> ioQueues = new ArrayList<>();
    /** Keep Alive Timeout in milliseconds (0: none), from Connect or Set Features. */
    long keepAliveMillis;
    /** When a command last came on any of its queues: traffic keeps it alive, as nvmet's does. */
    long lastSeenNanos;
    int configuration;
    int status;
    /** I/O queues granted by Set Features Number of Queues (0: not asked yet; the host may connect none). */
    int ioQueuesGranted;
    int asyncEventConfiguration;
    /** Command ids of the Asynchronous Event Requests held, oldest first. */
    final int[] eventRequests = new int[MAX_EVENT_REQUESTS];
    int eventRequestCount;
    /** Whether the namespace list changed since the host last read the Changed Namespace List log page. */
    boolean namespacesChanged;
    /** A Namespace Attribute Changed event not reported yet (no request was outstanding, or no slot was free). */
    boolean eventPending;
    /** Set once it is ending: its queues disconnect, nothing more is taken. */
    boolean ending;

    NvmeController(final int id, final NvmeConfig.Subsystem subsystem, final String hostNqn, final byte[] hostId,
                   final NvmeQueue adminQueue, final long keepAliveMillis, final long now) {
        this.id = id;
        this.subsystem = subsystem;
        this.hostNqn = hostNqn;
        this.hostId = hostId.clone();
        this.adminQueue = adminQueue;
        this.keepAliveMillis = keepAliveMillis;
        this.lastSeenNanos = now;
        this.everyNamespace = subsystem == null || subsystem.namespaces().isEmpty();
        if (subsystem != null) {
            subsystem.namespaces().forEach(namespaces::set);
        }
    }

    boolean isDiscovery() {
        return subsystem == null;
    }

    /** Whether LUN {@code lun} is a namespace of its subsystem (if the host may see the LUN at all). */
    boolean serves(final int lun) {
        return !isDiscovery() && (everyNamespace || namespaces.get(lun));
    }

    boolean enabled() {
        return (configuration & NvmeRegister.CC_ENABLE) != 0 && (status & NvmeRegister.CSTS_READY) != 0;
    }

    /** Whether no command came for longer than the keep-alive timeout (and a grace of half of it, as hosts send at half). */
    boolean keepAliveExpired(final long now) {
        return keepAliveMillis > 0 && now - lastSeenNanos > (keepAliveMillis + keepAliveMillis / 2) * 1_000_000L;
    }

    @Override
    public String toString() {
        return "controller " + id + " of " + hostNqn + " on " + (isDiscovery() ? "the discovery subsystem" : subsystem.nqn());
    }
}

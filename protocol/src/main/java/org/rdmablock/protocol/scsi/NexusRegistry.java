package org.rdmablock.protocol.scsi;

import java.util.HexFormat;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The I_T nexuses one target has seen, interned by TransportID and relative target port: a nexus is made the first
 * time its initiator port logs in (or is named by a REGISTER AND MOVE) and kept while the target runs, with its unit
 * attentions and whatever registrations name it. Any thread; {@link #of} allocates only for a nexus not seen before.
 */
public final class NexusRegistry {
    private final ConcurrentHashMap<String, Nexus> nexuses = new ConcurrentHashMap<>();
    /** The target's ports in their groups and states, as every nexus's commands see them now. */
    private volatile TargetPortGroups portGroups = TargetPortGroups.SINGLE;

    /** The nexus of the initiator port named {@code transportId} at target port {@code relativeTargetPort}. */
    public Nexus of(final byte[] transportId, final int relativeTargetPort) {
        final byte[] copy = transportId.clone();
        return nexuses.computeIfAbsent(HexFormat.of().formatHex(copy) + "/" + relativeTargetPort,
                k -> new Nexus(this, copy, relativeTargetPort));
    }

    /** The nexus of SRP initiator port {@code high}:{@code low} at target port {@code relativeTargetPort}. */
    public Nexus ofSrp(final long high, final long low, final int relativeTargetPort) {
        return of(Nexus.srpTransportId(high, low), relativeTargetPort);
    }

    /** The target's port groups now (one volatile read: what a command through a nexus of this target checks). */
    public TargetPortGroups portGroups() {
        return portGroups;
    }

    /**
     * Publishes the target's port groups: commands that begin from now on see these states. The caller raises
     * ASYMMETRIC ACCESS STATE CHANGED for the nexuses whose port changed state.
     */
    public void portGroups(final TargetPortGroups groups) {
        portGroups = java.util.Objects.requireNonNull(groups);
    }

    /** How many nexuses it holds. */
    public int size() {
        return nexuses.size();
    }
}

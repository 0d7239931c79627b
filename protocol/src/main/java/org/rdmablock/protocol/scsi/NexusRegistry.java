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

    /** How many nexuses it holds. */
    public int size() {
        return nexuses.size();
    }
}

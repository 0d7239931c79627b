package org.rdmablock.protocol.scsi;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * One I_T nexus (SAM-5 4.7): an initiator port, named by its TransportID, with a target port, named by its relative
 * target port identifier. Persistent reservations register nexuses, and a nexus keeps its unit attentions while its
 * initiator is logged out. Made and interned by a {@link NexusRegistry}, so the same initiator port at the same target
 * port is the same object for as long as the target runs: compare with {@code ==}.
 *
 * <p>The TransportID is kept in SPC-4's wire form (7.6.4): for SRP (protocol identifier 4h) 24 bytes, the protocol
 * identifier in byte {@link #PROTOCOL_ID_OFFSET} and the 16-byte initiator port identifier at
 * {@link #SRP_PORT_ID_OFFSET}, big-endian as SRP_LOGIN_REQ carries it.
 */
public final class Nexus {
    /** Where a TransportID keeps its format code (bits 7-6) and protocol identifier (bits 3-0). */
    public static final int PROTOCOL_ID_OFFSET = 0;
    /** SPC-4 7.6.1's protocol identifier of SRP. */
    public static final int PROTOCOL_SRP = 0x4;
    /** SRP's TransportID (SPC-4 7.6.4.5): its length and where its initiator port identifier starts. */
    public static final int SRP_TRANSPORT_ID_LENGTH = 24;
    public static final int SRP_PORT_ID_OFFSET = 8;
    private static final int PROTOCOL_ID_MASK = 0x0F;
    private static final int FORMAT_CODE_MASK = 0xC0;
    private static final ValueLayout.OfLong BIG_ENDIAN_LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN);

    private final NexusRegistry registry;
    private final byte[] transportId;
    private final int relativeTargetPort;
    private final UnitAttentions attentions = new UnitAttentions();

    Nexus(final NexusRegistry registry, final byte[] transportId, final int relativeTargetPort) {
        this.registry = registry;
        this.transportId = transportId;
        this.relativeTargetPort = relativeTargetPort;
    }

    /** SRP's TransportID for the initiator port identifier {@code high}:{@code low}. */
    public static byte[] srpTransportId(final long high, final long low) {
        final byte[] id = new byte[SRP_TRANSPORT_ID_LENGTH];
        final MemorySegment s = MemorySegment.ofArray(id);
        s.set(ValueLayout.JAVA_BYTE, PROTOCOL_ID_OFFSET, (byte) PROTOCOL_SRP);
        s.set(BIG_ENDIAN_LONG, SRP_PORT_ID_OFFSET, high);
        s.set(BIG_ENDIAN_LONG, SRP_PORT_ID_OFFSET + Long.BYTES, low);
        return id;
    }

    /**
     * The length of the TransportID at {@code offset} in {@code data} (of which {@code available} bytes are there), or -1
     * when it is not one this target's ports name initiators by: SRP's, format code 00b, whole.
     */
    public static int transportIdLength(final MemorySegment data, final long offset, final long available) {
        if (available < SRP_TRANSPORT_ID_LENGTH) {
            return -1;
        }
        final int first = Byte.toUnsignedInt(data.get(ValueLayout.JAVA_BYTE, offset + PROTOCOL_ID_OFFSET));
        return (first & PROTOCOL_ID_MASK) == PROTOCOL_SRP && (first & FORMAT_CODE_MASK) == 0 ? SRP_TRANSPORT_ID_LENGTH : -1;
    }

    /** The registry that interned it: where a nexus named in a command's parameters (REGISTER AND MOVE) is found. */
    public NexusRegistry registry() {
        return registry;
    }

    /** The initiator port's TransportID, a copy. */
    public byte[] transportId() {
        return transportId.clone();
    }

    /** Writes the TransportID at {@code offset}; returns its length. */
    public int writeTransportId(final MemorySegment out, final long offset) {
        MemorySegment.copy(transportId, 0, out, ValueLayout.JAVA_BYTE, offset, transportId.length);
        return transportId.length;
    }

    /** Whether {@code other} is the same initiator port, at any target port. */
    public boolean sameInitiatorPort(final Nexus other) {
        return other == this || other != null && Arrays.equals(transportId, other.transportId);
    }

    /** SPC-4 7.6.1's protocol identifier of the initiator port's transport (SRP: 4h). */
    public int protocolIdentifier() {
        return transportId[PROTOCOL_ID_OFFSET] & PROTOCOL_ID_MASK;
    }

    public int relativeTargetPort() {
        return relativeTargetPort;
    }

    /** The unit attentions pending for this nexus, whichever of its channels reports them. */
    public UnitAttentions attentions() {
        return attentions;
    }

    @Override
    public String toString() {
        return "nexus " + HexFormat.of().formatHex(transportId, SRP_PORT_ID_OFFSET, transportId.length) + "/port " + relativeTargetPort;
    }
}

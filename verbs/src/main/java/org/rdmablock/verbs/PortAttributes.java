package org.rdmablock.verbs;

/**
 * State and limits of a device port ({@code struct ibv_port_attr}), as far as this API uses them.
 *
 * @param state       port state
 * @param maxMtu      largest MTU the port supports, bytes
 * @param activeMtu   MTU in use, bytes: the largest UD message
 * @param gidTableLen entries in the GID table
 * @param lid         local identifier (InfiniBand), 0 elsewhere
 * @param linkLayer   link layer
 */
public record PortAttributes(State state, int maxMtu, int activeMtu, int gidTableLen, int lid, LinkLayer linkLayer) {
    /** Port state ({@code enum ibv_port_state}). */
    public enum State {
        NOP, DOWN, INIT, ARMED, ACTIVE, ACTIVE_DEFER
    }

    /** Link layer of a port. */
    public enum LinkLayer {
        UNSPECIFIED, INFINIBAND, ETHERNET
    }

    /** The IB MTU enum value (1 = 256 bytes ... 5 = 4096 bytes) for a size in bytes. */
    public static int mtuEnum(final int bytes) {
        return Integer.numberOfTrailingZeros(bytes) - 7;
    }
}

package org.rdmablock.verbs;

/**
 * Where an address handle points ({@code struct ibv_ah_attr}). For RoCE and the soft provider the destination
 * is the GID (global routing); InfiniBand may route by LID alone.
 *
 * @param destinationGid remote GID (from {@link DeviceContext#queryGid} on the peer), or null for LID routing
 * @param sourceGidIndex local GID table index (1 for RoCE v2 IPv4-mapped addresses on rxe)
 * @param hopLimit       GRH hop limit
 * @param dlid           destination LID (InfiniBand)
 * @param serviceLevel   service level
 * @param portNum        local port, from 1
 */
public record AddressHandleAttributes(Gid destinationGid, int sourceGidIndex, int hopLimit, int dlid,
                                      int serviceLevel, int portNum) {
    /** Global routing to {@code gid} from port 1 with source GID index {@code sgidIndex}. */
    public static AddressHandleAttributes global(final Gid gid, final int sgidIndex) {
        return new AddressHandleAttributes(gid, sgidIndex, 64, 0, 0, 1);
    }

    public boolean isGlobal() {
        return destinationGid != null;
    }
}

package org.rdmablock.target.config;

/**
 * The target's SRP identity: the two 64-bit values an initiator passes to {@code add_target} ({@code id_ext=},
 * {@code ioc_guid=}) and that make up the 16-byte target port identifier (id_ext first, then ioc_guid, SRP r16a
 * 5.6.2).
 */
public record IdentityConfig(long idExt, long iocGuid) {
    /**
     * The id_ext used when a config gives none, derived from where the daemon listens so that it stays the same
     * across restarts and differs between daemons on one host ({@link org.rdmablock.protocol.srp.SrpTargetPortId}):
     * {@code 0x0272} (a locally administered EUI-64 prefix and 'r'), then the port (16 bits), then the CRC-32 of the
     * address as written. 127.0.0.1 port 5555 gives {@code 0x027215b3} followed by
     * CRC-32("127.0.0.1"). Two hosts listening on the same address text (0.0.0.0, say) get the same id_ext: give
     * id_ext explicitly there, as Linux's ib_srp refuses a second target with the same id_ext and ioc_guid.
     */
    public static long derivedIdExt(String address, int port) {
        return org.rdmablock.protocol.srp.SrpTargetPortId.derivedIdExt(address, port);
    }
}

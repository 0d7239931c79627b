package org.rdmablock.protocol.srp;

import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32;

/**
 * The 16-byte SRP target port identifier: id_ext, then ioc_guid (SRP r16a 5.6.2, what Linux's {@code add_target}
 * takes as {@code id_ext=} and {@code ioc_guid=}), and the identifier a target derives when its configuration gives
 * none, which its initiators derive the same way.
 */
public final class SrpTargetPortId {
    /**
     * High 16 bits of a derived id_ext: {@code 0x02} (a locally administered EUI-64: no OUI is ours) and
     * {@code 0x72} ('r'). Not public: every public constant of this package is pinned to Linux's headers, and this
     * one is ours.
     */
    private static final long DERIVED_ID_PREFIX = 0x0272L << 48;

    private SrpTargetPortId() {
    }

    /**
     * The id_ext of a target listening on {@code address} (as written) and {@code port}: {@code 0x0272} (a locally
     * administered EUI-64 prefix and 'r'),
     * the port (16 bits), then the CRC-32 of the address. It stays the same across restarts and differs between
     * targets on one host; two hosts listening on the same address text (0.0.0.0, say) get the same one.
     */
    public static long derivedIdExt(final String address, final int port) {
        final CRC32 crc = new CRC32();
        crc.update(address.getBytes(StandardCharsets.UTF_8));
        return DERIVED_ID_PREFIX | (long) port << 32 | crc.getValue();
    }
}

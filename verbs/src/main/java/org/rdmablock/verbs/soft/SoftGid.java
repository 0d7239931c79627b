package org.rdmablock.verbs.soft;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

import org.rdmablock.verbs.Gid;
import org.rdmablock.verbs.VerbsException;

/**
 * The soft provider's GIDs: an IPv4-mapped IPv6 address ({@code ::ffff:a.b.c.d}) whose otherwise zero bytes 8
 * and 9 carry the device's UDP port, so that a GID alone addresses a soft device's UD endpoint (several soft
 * devices can share one IP address on loopback). A deviation: real iWARP has no UD and no such GID.
 */
final class SoftGid {
    static final int PORT_OFFSET = 8;
    static final int MAPPED_MARKER_OFFSET = 10;
    static final int IPV4_OFFSET = 12;

    private SoftGid() {
    }

    static Gid of(final InetSocketAddress endpoint) {
        final byte[] raw = new byte[Gid.LENGTH];
        final byte[] ip = endpoint.getAddress().getAddress();
        if (ip.length != 4) {
            throw new VerbsException(VerbsException.EINVAL, "the soft provider's UD endpoint must be IPv4: " + endpoint);
        }
        raw[PORT_OFFSET] = (byte) (endpoint.getPort() >>> 8);
        raw[PORT_OFFSET + 1] = (byte) endpoint.getPort();
        raw[MAPPED_MARKER_OFFSET] = (byte) 0xFF;
        raw[MAPPED_MARKER_OFFSET + 1] = (byte) 0xFF;
        System.arraycopy(ip, 0, raw, IPV4_OFFSET, 4);
        return Gid.of(raw);
    }

    static InetSocketAddress endpoint(final Gid gid) {
        final byte[] raw = gid.toBytes();
        if ((raw[MAPPED_MARKER_OFFSET] & 0xFF) != 0xFF || (raw[MAPPED_MARKER_OFFSET + 1] & 0xFF) != 0xFF) {
            throw new VerbsException(VerbsException.EINVAL, "not a soft provider GID (no IPv4 mapping): " + gid);
        }
        final int port = (raw[PORT_OFFSET] & 0xFF) << 8 | raw[PORT_OFFSET + 1] & 0xFF;
        final byte[] ip = new byte[4];
        System.arraycopy(raw, IPV4_OFFSET, ip, 0, 4);
        try {
            return new InetSocketAddress((Inet4Address) InetAddress.getByAddress(ip), port);
        } catch (final UnknownHostException e) {
            throw new VerbsException(VerbsException.EINVAL, "bad GID " + gid, e);
        }
    }
}

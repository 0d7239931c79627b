package org.rdmablock.verbs;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * A 128-bit global identifier ({@code union ibv_gid}): an IPv6 address, or an IPv4-mapped one for RoCE v2 and
 * iWARP. Immutable; exchanged out of band to address UD peers.
 */
public final class Gid {
    /** Size of a GID. */
    public static final int LENGTH = 16;

    private final byte[] raw;

    private Gid(final byte[] raw) {
        this.raw = raw;
    }

    /** A GID from its 16 bytes in network order. */
    public static Gid of(final byte[] raw) {
        if (raw.length != LENGTH) {
            throw new IllegalArgumentException("a GID has 16 bytes, not " + raw.length);
        }
        return new Gid(raw.clone());
    }

    /** Parses the text form {@code fe80:0000:...} or any form {@link InetAddress} accepts for IPv6. */
    public static Gid parse(final String text) {
        final String hex = text.replace(":", "");
        if (hex.length() == 32) {
            return new Gid(HexFormat.of().parseHex(hex));
        }
        try {
            final byte[] address = InetAddress.getByName(text).getAddress();
            if (address.length == 4) {
                final byte[] mapped = new byte[LENGTH];
                mapped[10] = (byte) 0xFF;
                mapped[11] = (byte) 0xFF;
                System.arraycopy(address, 0, mapped, 12, 4);
                return new Gid(mapped);
            }
            return new Gid(address);
        } catch (final UnknownHostException e) {
            throw new IllegalArgumentException("not a GID: " + text, e);
        }
    }

    /** The 16 bytes, network order (a copy). */
    public byte[] toBytes() {
        return raw.clone();
    }

    /** Byte {@code i}. */
    public int byteAt(final int i) {
        return raw[i] & 0xFF;
    }

    @Override
    public boolean equals(final Object o) {
        return o instanceof Gid other && Arrays.equals(raw, other.raw);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(raw);
    }

    /** The rdma-core text form: eight groups of four hex digits. */
    @Override
    public String toString() {
        final String hex = HexFormat.of().formatHex(raw);
        final StringBuilder sb = new StringBuilder(39);
        for (int i = 0; i < 32; i += 4) {
            sb.append(i == 0 ? "" : ":").append(hex, i, i + 4);
        }
        return sb.toString();
    }
}

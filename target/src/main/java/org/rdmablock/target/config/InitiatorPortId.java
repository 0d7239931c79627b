package org.rdmablock.target.config;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.HexFormat;

/**
 * A 16-byte SRP initiator port identifier (SRP r16a 5.6.2), as it appears in SRP_LOGIN_REQ's
 * {@code initiator_port_id}; written in configs as 32 hex digits (an optional {@code 0x} prefix).
 */
public record InitiatorPortId(long high, long low) {
    private static final ValueLayout.OfLong BIG_ENDIAN_LONG =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /** Parses 32 hex digits; throws IllegalArgumentException saying what is wrong. */
    public static InitiatorPortId parse(String text) {
        String digits = text.startsWith("0x") || text.startsWith("0X") ? text.substring(2) : text;
        if (digits.length() != 32 || !digits.chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
            throw new IllegalArgumentException("an initiator port id is 32 hex digits, not '" + text + "'");
        }
        return new InitiatorPortId(Long.parseUnsignedLong(digits.substring(0, 16), 16),
                Long.parseUnsignedLong(digits.substring(16), 16));
    }

    /** Reads the 16 bytes at {@code offset} (big-endian, as on the wire). */
    public static InitiatorPortId read(MemorySegment segment, long offset) {
        return new InitiatorPortId(segment.get(BIG_ENDIAN_LONG, offset), segment.get(BIG_ENDIAN_LONG, offset + 8));
    }

    @Override
    public String toString() {
        return HexFormat.of().toHexDigits(high) + HexFormat.of().toHexDigits(low);
    }
}

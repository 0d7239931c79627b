package org.rdmablock.protocol.scsi;

/**
 * Converts between LUN numbers 0..16383 and the 8-byte SAM LUN field (SAM-5 4.7), carried here as a
 * big-endian long: LUNs below 256 use peripheral device addressing ({@code 00 LL 00..}), larger ones flat
 * space addressing ({@code 01hh hhhh LL 00..}); this matches Linux's {@code int_to_scsilun}.
 */
public final class LunAddress {
    /** The largest LUN the single-level formats can express. */
    public static final int MAX_LUN = 0x3FFF;

    private LunAddress() {
    }

    /** The 8-byte LUN field for {@code lun}, as a big-endian long. */
    public static long encode(int lun) {
        if (lun < 0 || lun > MAX_LUN) {
            throw new IllegalArgumentException("LUN " + lun + " is outside 0.." + MAX_LUN);
        }
        if (lun < 256) {
            return (long) lun << 48;
        }
        return ((0x40L | (lun >>> 8)) << 56) | ((lun & 0xFFL) << 48);
    }

    /**
     * The LUN number of an 8-byte LUN field, or -1 when it uses another addressing method, a bus
     * number, or more than one level.
     */
    public static int decode(long field) {
        if ((field & 0x0000_FFFF_FFFF_FFFFL) != 0) {
            return -1;
        }
        int first = (int) (field >>> 56) & 0xFF;
        int second = (int) (field >>> 48) & 0xFF;
        return switch (first >>> 6) {
            case 0 -> (first & 0x3F) == 0 ? second : -1;
            case 1 -> ((first & 0x3F) << 8) | second;
            default -> -1;
        };
    }
}

package org.rdmablock.protocol.srp;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Computes member offsets and sizes of a C struct from its declarations, the way GCC lays out the
 * structs of Linux {@code include/scsi/srp.h} on x86-64: each member at its type's natural alignment
 * (1 when the struct is packed), the size rounded up to the largest alignment. The tests transcribe the
 * header's declarations into this and compare with the codecs' constants, so no offset is typed twice.
 */
final class CStructLayout {
    private final Map<String, Integer> offsets = new LinkedHashMap<>();
    private final int size;

    private CStructLayout(boolean packed, String... declarations) {
        int at = 0;
        int maxAlign = 1;
        for (String declaration : declarations) {
            String[] parts = declaration.trim().split("\\s+");
            String type = parts[0].equals("struct") ? parts[1] : parts[0];
            String name = parts[parts.length - 1];
            int count = 1;
            int bracket = name.indexOf('[');
            if (bracket >= 0) {
                count = Integer.parseInt(name.substring(bracket + 1, name.indexOf(']')));
                name = name.substring(0, bracket);
            }
            int typeSize = sizeOf(type);
            int align = packed ? 1 : alignOf(type);
            maxAlign = Math.max(maxAlign, align);
            at = (at + align - 1) / align * align;
            offsets.put(name, at);
            at += typeSize * count;
        }
        this.size = (at + maxAlign - 1) / maxAlign * maxAlign;
    }

    static CStructLayout of(String... declarations) {
        return new CStructLayout(false, declarations);
    }

    static CStructLayout packed(String... declarations) {
        return new CStructLayout(true, declarations);
    }

    int offsetOf(String member) {
        Integer offset = offsets.get(member);
        if (offset == null) {
            throw new IllegalArgumentException("no member " + member + " in " + offsets.keySet());
        }
        return offset;
    }

    int size() {
        return size;
    }

    private static int sizeOf(String type) {
        return switch (type) {
            case "u8" -> 1;
            case "__be16" -> 2;
            case "__be32", "u32" -> 4;
            case "u64", "__be64" -> 8;
            case "scsi_lun" -> 8;
            case "srp_direct_buf" -> 16;
            default -> throw new IllegalArgumentException("unknown type " + type);
        };
    }

    private static int alignOf(String type) {
        return switch (type) {
            case "scsi_lun" -> 1;           // struct scsi_lun { __u8 scsi_lun[8]; }
            case "srp_direct_buf" -> 8;     // contains a __be64
            default -> sizeOf(type);
        };
    }
}

package org.rdmablock.protocol.nvme;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Member offsets and sizes of a C struct from its declarations, as GCC lays out the structs of Linux
 * {@code include/linux/nvme.h} and {@code nvme-rdma.h} on x86-64 (none of them packed): each member at its type's
 * natural alignment, the size rounded up to the largest. The tests transcribe the headers' declarations into this and
 * compare with the codecs' constants, so no offset is typed twice.
 */
final class NvmeStructLayout {
    private final Map<String, Integer> offsets = new LinkedHashMap<>();
    private final int size;

    private NvmeStructLayout(final String... declarations) {
        int at = 0;
        int maxAlign = 1;
        for (final String declaration : declarations) {
            final String[] parts = declaration.trim().split("\\s+");
            final String type = parts[0].equals("struct") || parts[0].equals("union") ? parts[1] : parts[0];
            String name = parts[parts.length - 1];
            int count = 1;
            final int bracket = name.indexOf('[');
            if (bracket >= 0) {
                count = Integer.parseInt(name.substring(bracket + 1, name.indexOf(']')));
                name = name.substring(0, bracket);
            }
            final int align = alignOf(type);
            maxAlign = Math.max(maxAlign, align);
            at = (at + align - 1) / align * align;
            offsets.put(name, at);
            at += sizeOf(type) * count;
        }
        this.size = (at + maxAlign - 1) / maxAlign * maxAlign;
    }

    static NvmeStructLayout of(final String... declarations) {
        return new NvmeStructLayout(declarations);
    }

    int offsetOf(final String member) {
        final Integer offset = offsets.get(member);
        if (offset == null) {
            throw new IllegalArgumentException("no member " + member + " in " + offsets.keySet());
        }
        return offset;
    }

    int size() {
        return size;
    }

    private static int sizeOf(final String type) {
        return switch (type) {
            case "__u8", "u8", "char" -> 1;
            case "__u16", "__le16" -> 2;
            case "__u32", "__le32" -> 4;
            case "__u64", "__le64" -> 8;
            case "nvme_result" -> 8;      // union { __le16 u16; __le32 u32; __le64 u64; }
            case "nvme_data_ptr" -> 16;   // union { struct { __le64 prp1, prp2; }; struct nvme_sgl_desc; ... }
            case "uuid_t" -> 16;          // typedef struct { __u8 b[16]; } uuid_t
            case "nvme_id_power_state" -> 32;
            case "nvme_lbaf" -> 4;        // { __le16 ms; __u8 ds; __u8 rp; }
            default -> throw new IllegalArgumentException("unknown type " + type);
        };
    }

    private static int alignOf(final String type) {
        return switch (type) {
            case "nvme_result", "nvme_data_ptr" -> 8;
            case "uuid_t" -> 1;
            case "nvme_id_power_state" -> 4;   // holds __le32 entry_lat, exit_lat
            case "nvme_lbaf" -> 2;
            default -> sizeOf(type);
        };
    }
}

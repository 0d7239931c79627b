package org.rdmablock.protocol.srp;

/**
 * SRP data-buffer format codes: the login bit mask that says which descriptor formats a channel may use
 * ({@code SRP_BUF_FORMAT_*} in Linux {@code include/scsi/srp.h}) and the per-command descriptor format
 * nibbles of {@code srp_cmd.buf_fmt} ({@code SRP_NO_DATA_DESC} .. {@code SRP_DATA_DESC_IMM}).
 */
public final class SrpBufferFormat {
    /** Login {@code req_buf_fmt}/{@code buf_fmt} bit: direct data buffer descriptors are supported. */
    public static final int SUPPORTS_DIRECT = 1 << 1;
    /** Login {@code req_buf_fmt}/{@code buf_fmt} bit: indirect data buffer descriptors are supported. */
    public static final int SUPPORTS_INDIRECT = 1 << 2;

    /** Descriptor format: no data buffer. */
    public static final int NONE = 0;
    /** Descriptor format: one {@code srp_direct_buf} (16 bytes). */
    public static final int DIRECT = 1;
    /** Descriptor format: an {@code srp_indirect_buf} (20 bytes plus 16 per descriptor in the IU). */
    public static final int INDIRECT = 2;
    /** Descriptor format (SRP-2, data-out only): an {@code srp_imm_buf}; the data rides inside the IU. */
    public static final int IMMEDIATE = 3;

    private SrpBufferFormat() {
    }
}

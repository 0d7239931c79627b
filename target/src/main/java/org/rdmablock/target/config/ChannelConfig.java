package org.rdmablock.target.config;

/**
 * Limits of one SRP channel (one RDMA connection), negotiated at login.
 *
 * @param credits           receive credits granted per channel (SRP req_lim); at most 4096, ib_srpt uses 128
 * @param maxIuLength       largest initiator-to-target IU accepted (max_it_iu_len), at least 64
 * @param maxIoSize         largest data transfer of one command in bytes
 * @param immediateData     whether immediate data (data-out inside the SRP_CMD IU) is offered
 * @param immediateDataSize largest immediate data accepted, bytes; must fit in maxIuLength
 * @param maxChannels       channels the daemon serves at once; a login beyond them is rejected
 * @param maxChannelsPerInitiator channels one initiator port may hold at once (at most maxChannels): a login beyond
 *                          them is rejected, so that one initiator (or one that logs in and falls silent, again and
 *                          again) cannot take every channel
 */
public record ChannelConfig(int credits, int maxIuLength, int maxIoSize, boolean immediateData,
                            int immediateDataSize, int maxChannels, int maxChannelsPerInitiator) {
    /** These limits with the default cap per initiator ({@link #defaultMaxChannelsPerInitiator}). */
    public ChannelConfig(int credits, int maxIuLength, int maxIoSize, boolean immediateData, int immediateDataSize,
                         int maxChannels) {
        this(credits, maxIuLength, maxIoSize, immediateData, immediateDataSize, maxChannels,
                defaultMaxChannelsPerInitiator(maxChannels));
    }

    /** The cap per initiator when the config gives none: {@link #DEFAULT_MAX_CHANNELS_PER_INITIATOR}, at most all. */
    public static int defaultMaxChannelsPerInitiator(int maxChannels) {
        return Math.min(DEFAULT_MAX_CHANNELS_PER_INITIATOR, maxChannels);
    }

    /** Default credits: ib_srpt's, the size of its per-channel receive ring ({@code MAX_SRPT_RQ_SIZE}). */
    public static final int DEFAULT_CREDITS = 128;
    /** Most credits one channel may grant (SRP req_lim is 32 bits; receive buffers are credits × maxIuLength). */
    public static final int MAX_CREDITS = 4096;
    /**
     * Default largest IU: ib_srpt's default {@code srp_max_req_size}, 80 + 4 + 8192 (its largest immediate-data
     * offset, the 4-byte immediate-data descriptor, 8 KiB of data).
     */
    public static final int DEFAULT_MAX_IU_LENGTH = 8276;
    /** Smallest IU length: an SRP_LOGIN_REQ and an SRP_CMD with a direct descriptor are 64 bytes. */
    public static final int MIN_IU_LENGTH = 64;
    /** Default largest transfer of one command: 1 MiB. */
    public static final int DEFAULT_MAX_IO_SIZE = 1 << 20;
    /** Immediate data is offered by default (Linux's ib_srp uses it for writes up to 8 KiB). */
    public static final boolean DEFAULT_IMMEDIATE_DATA = true;
    /** Default largest immediate data: 8 KiB, what Linux's ib_srp sends ({@code srp_max_imm_data}). */
    public static final int DEFAULT_IMMEDIATE_DATA_SIZE = 8192;
    /**
     * Where immediate data starts in an SRP_CMD IU as Linux's ib_srp sends it ({@code SRP_IMM_DATA_OFFSET}): the
     * 48-byte SRP_CMD, 16 bytes of additional CDB, the 4-byte immediate-data descriptor. An IU of maxIuLength bytes
     * holds at most {@code maxIuLength - IMMEDIATE_DATA_OFFSET} bytes of immediate data.
     */
    public static final int IMMEDIATE_DATA_OFFSET = 48 + 16 + 4;
    /** Default number of channels served at once. */
    public static final int DEFAULT_MAX_CHANNELS = 64;
    /**
     * Default cap of channels per initiator port: a quarter of the default {@link #DEFAULT_MAX_CHANNELS}. Linux's
     * ib_srp asks for one channel per completion vector up to the CPUs; refused a channel beyond the first, it goes on
     * with those it has.
     */
    public static final int DEFAULT_MAX_CHANNELS_PER_INITIATOR = 16;
}

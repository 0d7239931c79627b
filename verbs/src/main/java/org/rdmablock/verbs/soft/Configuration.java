package org.rdmablock.verbs.soft;

import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * The soft provider's settings, read from system properties ({@code -Drdmablock.soft.NAME=VALUE}): for each, the
 * property's name ({@code *_PROP_NAME}), its default ({@code *_DEFAULT}) and an accessor that reads the property.
 * The provider reads each once, when the class that uses it is initialised (most into {@code static final} fields
 * that the JIT folds into the hot path), so set them on the command line, not at run time. A value that does not
 * parse as a number falls back to the default, as {@link Integer#getInteger(String, int)} does.
 *
 * <table>
 * <caption>Properties</caption>
 * <tr><th>property</th><th>default</th><th>what it is for</th></tr>
 * <tr><td>{@code rdmablock.soft.address}</td><td>127.0.0.1</td><td>the address the UDP endpoint of UD QPs binds to</td></tr>
 * <tr><td>{@code rdmablock.soft.crc}</td><td>true</td><td>whether this side asks for the MPA CRC</td></tr>
 * <tr><td>{@code rdmablock.soft.agents}</td><td>1, 2 above 4 cores</td><td>I/O agent threads per device</td></tr>
 * <tr><td>{@code rdmablock.soft.agentSpins}</td><td>0, 2000 above 4 cores</td><td>idle duty cycles an agent polls before it blocks</td></tr>
 * <tr><td>{@code rdmablock.soft.rxStaging}</td><td>64 KiB</td><td>receive staging buffer per connection</td></tr>
 * <tr><td>{@code rdmablock.soft.headerFirstMin}</td><td>16 KiB</td><td>segment payload from which reads stop at the next header</td></tr>
 * <tr><td>{@code rdmablock.soft.txStaging}</td><td>128 KiB</td><td>transmit staging buffer per connection</td></tr>
 * <tr><td>{@code rdmablock.soft.maxSegment}</td><td>65408</td><td>largest payload of one FPDU</td></tr>
 * <tr><td>{@code rdmablock.soft.pollProgress}</td><td>true</td><td>whether an empty CQ poll reads its QPs' sockets</td></tr>
 * <tr><td>{@code rdmablock.soft.directProgressQps}</td><td>2</td><td>QPs up to which such a poll reads each socket</td></tr>
 * <tr><td>{@code rdmablock.soft.ackTimeout}</td><td>18</td><td>default local ACK timeout exponent of a QP</td></tr>
 * <tr><td>{@code rdmablock.soft.dumpStateSeconds}</td><td>0 (off)</td><td>period of the logged dump of every QP's state</td></tr>
 * </table>
 */
public final class Configuration {
    /** Property: the address that UD traffic (the device's UDP endpoint, and so its GID) binds to. */
    public static final String ADDRESS_PROP_NAME = "rdmablock.soft.address";
    /** Default UD address: loopback. */
    public static final String ADDRESS_DEFAULT = "127.0.0.1";

    /** Property: whether this side asks for MPA CRC in its request or reply ({@code false} turns the request off). */
    public static final String CRC_PROP_NAME = "rdmablock.soft.crc";
    /** Default: ask for CRC (it is used when either side asks, RFC 5044 §7.1.2). */
    public static final boolean CRC_DEFAULT = true;

    /** Property: I/O agent threads per device; connections are spread over them round robin. */
    public static final String AGENTS_PROP_NAME = "rdmablock.soft.agents";
    /** Default agents: 1 on machines of up to 4 cores, else 2. */
    public static final int AGENTS_DEFAULT = Runtime.getRuntime().availableProcessors() > 4 ? 2 : 1;

    /** Property: idle duty cycles an I/O agent spends polling its selector before it blocks in it. */
    public static final String AGENT_SPINS_PROP_NAME = "rdmablock.soft.agentSpins";
    /** Default agent spins: 0 on machines of up to 4 cores, where spinning starves peers, else 2000. */
    public static final int AGENT_SPINS_DEFAULT = Runtime.getRuntime().availableProcessors() > 4 ? 2000 : 0;

    /** Property: size in bytes of a connection's receive staging buffer (how many small FPDUs one read takes). */
    public static final String RX_STAGING_PROP_NAME = "rdmablock.soft.rxStaging";
    /** Default receive staging: 64 KiB. */
    public static final int RX_STAGING_DEFAULT = 64 * 1024;

    /**
     * Property: a data segment of at least this payload makes the next staging read stop at the end of the next
     * header, so that the payload behind it is read straight into memory; 2147483647 reads every header greedily.
     */
    public static final String HEADER_FIRST_MIN_PROP_NAME = "rdmablock.soft.headerFirstMin";
    /** Default header-first threshold: 16 KiB. */
    public static final int HEADER_FIRST_MIN_DEFAULT = 16 * 1024;

    /**
     * Property: size in bytes of a connection's transmit staging buffer (how many FPDUs one socket write carries);
     * never less than one FPDU of the largest payload.
     */
    public static final String TX_STAGING_PROP_NAME = "rdmablock.soft.txStaging";
    /** Default transmit staging: 128 KiB. */
    public static final int TX_STAGING_DEFAULT = 128 * 1024;

    /** Property: largest payload in bytes of one FPDU (DDP segment) a QP sends. */
    public static final String MAX_SEGMENT_PROP_NAME = "rdmablock.soft.maxSegment";
    /** Default largest segment: 64 KiB less 128 bytes, so that an FPDU with its headers fits in 64 KiB. */
    public static final int MAX_SEGMENT_DEFAULT = 64 * 1024 - 128;

    /**
     * Property: whether a poll that finds a CQ empty reads the sockets of its QPs itself, so that a polling thread
     * sees incoming messages without a hand-off from an I/O thread, as with a NIC's completion queue.
     */
    public static final String POLL_PROGRESS_PROP_NAME = "rdmablock.soft.pollProgress";
    /** Default: empty polls make progress. */
    public static final boolean POLL_PROGRESS_DEFAULT = true;

    /**
     * Property: up to this many QPs on a CQ, an empty poll reads each QP's socket directly; above it, it asks the
     * CQ's readiness selector which sockets have bytes and reads only those.
     */
    public static final String DIRECT_PROGRESS_QPS_PROP_NAME = "rdmablock.soft.directProgressQps";
    /** Default: 2 QPs. */
    public static final int DIRECT_PROGRESS_QPS_DEFAULT = 2;

    /**
     * Property: the local ACK timeout a new soft QP starts with, as in verbs (4.096 µs × 2^N; 0 waits forever):
     * with 7 retries, a peer that stops answering fails the work waiting on it after about 8 × that time.
     */
    public static final String ACK_TIMEOUT_PROP_NAME = "rdmablock.soft.ackTimeout";
    /** Default ACK timeout: 18, 1.07 s (about 8.6 s to fail with 7 retries; TCP alone would take 15 minutes). */
    public static final int ACK_TIMEOUT_DEFAULT = 18;

    /**
     * Property: milliseconds a connection may stay in the middle of a frame with nothing more arriving before it is
     * dropped (a peer that sent part of an FPDU and fell silent would hold its QP, and a target's channel, for as long
     * as its TCP connection lives); 0 waits forever. Read as each QP connects.
     */
    public static final String FRAME_TIMEOUT_MILLIS_PROP_NAME = "rdmablock.soft.frameTimeoutMillis";
    /** Default: 30 s, far beyond any pause a live peer makes inside one frame. */
    public static final long FRAME_TIMEOUT_MILLIS_DEFAULT = 30_000;

    /** Property: seconds between logged dumps of every connected QP's transmit and receive state (diagnosing stalls). */
    public static final String DUMP_STATE_SECONDS_PROP_NAME = "rdmablock.soft.dumpStateSeconds";
    /** Default: 0, no dumps. */
    public static final int DUMP_STATE_SECONDS_DEFAULT = 0;

    private Configuration() {
    }

    /**
     * The address UD traffic binds to.
     *
     * @return {@link #ADDRESS_PROP_NAME} resolved, or {@link #ADDRESS_DEFAULT}.
     * @throws IllegalArgumentException when the property does not resolve.
     */
    public static InetAddress address() {
        try {
            return InetAddress.getByName(System.getProperty(ADDRESS_PROP_NAME, ADDRESS_DEFAULT));
        } catch (final UnknownHostException e) {
            throw new IllegalArgumentException("bad " + ADDRESS_PROP_NAME, e);
        }
    }

    /**
     * Whether this side asks for MPA CRC.
     *
     * @return {@link #CRC_PROP_NAME} as {@link Boolean#parseBoolean}, or {@link #CRC_DEFAULT}.
     */
    public static boolean crcRequested() {
        return booleanProperty(CRC_PROP_NAME, CRC_DEFAULT);
    }

    /**
     * I/O agent threads per device.
     *
     * @return {@link #AGENTS_PROP_NAME}, or {@link #AGENTS_DEFAULT}.
     */
    public static int agents() {
        return Integer.getInteger(AGENTS_PROP_NAME, AGENTS_DEFAULT);
    }

    /**
     * Idle duty cycles an I/O agent polls before it blocks.
     *
     * @return {@link #AGENT_SPINS_PROP_NAME}, or {@link #AGENT_SPINS_DEFAULT}.
     */
    public static int agentSpins() {
        return Integer.getInteger(AGENT_SPINS_PROP_NAME, AGENT_SPINS_DEFAULT);
    }

    /**
     * Receive staging buffer size in bytes.
     *
     * @return {@link #RX_STAGING_PROP_NAME}, or {@link #RX_STAGING_DEFAULT}.
     */
    public static int rxStaging() {
        return Integer.getInteger(RX_STAGING_PROP_NAME, RX_STAGING_DEFAULT);
    }

    /**
     * Segment payload from which the next staging read stops at the next header.
     *
     * @return {@link #HEADER_FIRST_MIN_PROP_NAME}, or {@link #HEADER_FIRST_MIN_DEFAULT}.
     */
    public static int headerFirstMin() {
        return Integer.getInteger(HEADER_FIRST_MIN_PROP_NAME, HEADER_FIRST_MIN_DEFAULT);
    }

    /**
     * Transmit staging buffer size in bytes, as configured (the writer raises it to one FPDU of the largest payload).
     *
     * @return {@link #TX_STAGING_PROP_NAME}, or {@link #TX_STAGING_DEFAULT}.
     */
    public static int txStaging() {
        return Integer.getInteger(TX_STAGING_PROP_NAME, TX_STAGING_DEFAULT);
    }

    /**
     * Largest payload of one FPDU.
     *
     * @return {@link #MAX_SEGMENT_PROP_NAME}, or {@link #MAX_SEGMENT_DEFAULT}.
     */
    public static int maxSegment() {
        return Integer.getInteger(MAX_SEGMENT_PROP_NAME, MAX_SEGMENT_DEFAULT);
    }

    /**
     * Whether an empty CQ poll reads its QPs' sockets.
     *
     * @return {@link #POLL_PROGRESS_PROP_NAME} as {@link Boolean#parseBoolean}, or {@link #POLL_PROGRESS_DEFAULT}.
     */
    public static boolean pollProgress() {
        return booleanProperty(POLL_PROGRESS_PROP_NAME, POLL_PROGRESS_DEFAULT);
    }

    /**
     * QPs on a CQ up to which an empty poll reads each socket directly.
     *
     * @return {@link #DIRECT_PROGRESS_QPS_PROP_NAME}, or {@link #DIRECT_PROGRESS_QPS_DEFAULT}.
     */
    public static int directProgressQps() {
        return Integer.getInteger(DIRECT_PROGRESS_QPS_PROP_NAME, DIRECT_PROGRESS_QPS_DEFAULT);
    }

    /**
     * The local ACK timeout a new soft QP starts with.
     *
     * @return {@link #ACK_TIMEOUT_PROP_NAME}, or {@link #ACK_TIMEOUT_DEFAULT}.
     */
    public static int ackTimeout() {
        return Integer.getInteger(ACK_TIMEOUT_PROP_NAME, ACK_TIMEOUT_DEFAULT);
    }

    /**
     * How long a connection may stay in the middle of a frame with nothing arriving.
     *
     * @return {@link #FRAME_TIMEOUT_MILLIS_PROP_NAME}, or {@link #FRAME_TIMEOUT_MILLIS_DEFAULT}.
     */
    public static long frameTimeoutMillis() {
        return Long.getLong(FRAME_TIMEOUT_MILLIS_PROP_NAME, FRAME_TIMEOUT_MILLIS_DEFAULT);
    }

    /**
     * Seconds between state dumps; 0 for none.
     *
     * @return {@link #DUMP_STATE_SECONDS_PROP_NAME}, or {@link #DUMP_STATE_SECONDS_DEFAULT}.
     */
    public static int dumpStateSeconds() {
        return Integer.getInteger(DUMP_STATE_SECONDS_PROP_NAME, DUMP_STATE_SECONDS_DEFAULT);
    }

    /** A boolean property: unset gives {@code defaultValue}; set, only "true" (any case) is true. */
    private static boolean booleanProperty(final String name, final boolean defaultValue) {
        final String value = System.getProperty(name);
        return value == null ? defaultValue : Boolean.parseBoolean(value);
    }
}

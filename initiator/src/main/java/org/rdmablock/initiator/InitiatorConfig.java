package org.rdmablock.initiator;

import org.rdmablock.protocol.srp.SrpTargetPortId;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * How an {@link SrpInitiator} reaches its target, in which protocol, and what it asks for. Build it with {@link #of} and the
 * {@code with*} methods; each component's default is documented on its constant.
 *
 * @param provider          verbs provider: {@code soft}, {@code native} or {@code auto}
 * @param target            the target's address and port
 * @param idExt             the target port id's id_ext (what {@code bin/rdmablock} prints at start)
 * @param iocGuid           the target port id's ioc_guid
 * @param initiatorIdHigh   high 64 bits of this initiator's port id (what the target's access lists name)
 * @param initiatorIdLow    low 64 bits of this initiator's port id
 * @param channels          RC channels (QPs) per session, {@link #DEFAULT_CHANNELS}
 * @param queueDepth        commands in flight per channel at most, {@link #DEFAULT_QUEUE_DEPTH}; the target's credits
 *                          lower it further
 * @param iuLength          the initiator-to-target IU length asked for at login, {@link #DEFAULT_IU_LENGTH}
 * @param immediateData     ask for immediate data (small writes carried in the command IU), {@link #DEFAULT_IMMEDIATE_DATA}
 * @param bounceBytes       per command, the registered buffer that carries data of a caller buffer that is not
 *                          registered, {@link #DEFAULT_BOUNCE_BYTES}; larger I/O through such buffers is split
 * @param ringSize          submissions queued per channel before submitters wait, {@link #DEFAULT_RING_SIZE}
 * @param channelPolicy     how a submission picks its channel
 * @param connectTimeout    for address resolution, connect and login, {@link #DEFAULT_CONNECT_TIMEOUT}
 * @param merge             adjacent requests waiting together (same kind, LUN and buffer kind, each starting where the
 *                          last ends) go as one command, up to a command's size and 16 requests, {@link #DEFAULT_MERGE}
 * @param readPriority      while requests wait for credits, a read that overlaps no waiting write starts before the
 *                          writes ahead of it (a write is passed 8 times at most), {@link #DEFAULT_READ_PRIORITY}
 * @param commandTimeout    a command unanswered this long gets ABORT TASK (then LUN RESET, then a reconnect, each when
 *                          the one before gets no answer within half of it) and is sent again,
 *                          {@link #DEFAULT_COMMAND_TIMEOUT}
 * @param reconnectTimeout  how long a channel whose connection was lost keeps logging in again (with back-off from
 *                          100 ms to 2 s) before its requests fail, {@link #DEFAULT_RECONNECT_TIMEOUT}
 * @param maxRetries        times a command is sent again after an abort or a lost connection before its request
 *                          fails, {@link #DEFAULT_MAX_RETRIES}
 * @param waiting           how a channel's thread waits for completions while commands are in flight,
 *                          {@link #DEFAULT_WAITING}
 * @param nvme              null: SRP (the default); else speak NVMe over Fabrics to this subsystem
 *                          ({@link #withNvme}): each channel an I/O queue of one controller, each namespace a
 *                          {@link Lun} (numbered by namespace id); the SRP port ids and IU length are not used
 * @param paths             the target's other ports, more paths to the same LUNs ({@link #withPaths}): a channel whose
 *                          connection is lost logs in again through the next one, and a session that connects through
 *                          a port in a standby or unavailable target port group moves to the next; empty by default
 */
public record InitiatorConfig(String provider, InetSocketAddress target, long idExt, long iocGuid, long initiatorIdHigh,
                              long initiatorIdLow, int channels, int queueDepth, int iuLength, boolean immediateData,
                              int bounceBytes, int ringSize, ChannelPolicy channelPolicy, Duration connectTimeout,
                              boolean merge, boolean readPriority, Duration commandTimeout, Duration reconnectTimeout,
                              int maxRetries, Waiting waiting, Nvme nvme, List<InetSocketAddress> paths) {
    /** One channel: enough for one submitting thread; give one per submitting thread for more. */
    public static final int DEFAULT_CHANNELS = 1;
    /** 128 commands in flight per channel: what our target grants by default (its {@code channel.credits}). */
    public static final int DEFAULT_QUEUE_DEPTH = 128;
    /** 8276 bytes: what our target and Linux's ib_srpt take by default (an SRP_CMD with 512 bytes of descriptors). */
    public static final int DEFAULT_IU_LENGTH = 8276;
    /** Immediate data asked for: writes up to the IU length less 68 bytes go in the command IU, no RDMA READ. */
    public static final boolean DEFAULT_IMMEDIATE_DATA = true;
    /** 128 KiB per command: 16 MiB per channel at depth 128. */
    public static final int DEFAULT_BOUNCE_BYTES = 128 * 1024;
    /** 1024 submissions per channel. */
    public static final int DEFAULT_RING_SIZE = 1024;
    /** 10 s, as the target's accept timeout. */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);
    /** Merging on: fewer commands for small sequential I/O, at no cost when requests do not wait. */
    public static final boolean DEFAULT_MERGE = true;
    /** Read priority on: reads wait less behind writes under a mixed load (as Linux's deadline scheduler favours reads). */
    public static final boolean DEFAULT_READ_PRIORITY = true;
    /** 30 s, the timeout Linux's sd gives a command. */
    public static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofSeconds(30);
    /** 60 s: a target restart (a daemon or a host) fits. */
    public static final Duration DEFAULT_RECONNECT_TIMEOUT = Duration.ofSeconds(60);
    /** 3 retries, as the SCSI midlayer's default for disks (SD_MAX_RETRIES is 5; 3 keeps a dead LUN's wait short). */
    public static final int DEFAULT_MAX_RETRIES = 3;
    /** Spin a little, then yield: the lowest latency where cores are to spare. */
    public static final Waiting DEFAULT_WAITING = Waiting.YIELD;
    /** NVMe over Fabrics' port, where {@link #withNvme} sessions usually go. */
    public static final int NVME_PORT = 4420;
    /** Commands an NVMe I/O queue holds at most here: a command identifier names the slot, and 1024 are plenty. */
    public static final int NVME_MAX_QUEUE_DEPTH = 1024;
    /** NVMe Base 2.0, 4.5: an NQN has at most 223 bytes. */
    static final int NQN_MAX_LENGTH = 223;
    /**
     * Low 64 bits of the default initiator port id: this process's id, so that two programs on one host (a mount and a
     * bench) are two initiators, and neither logs the other out (a target that allows one channel set per initiator
     * port ends the older session). An access list must name a fixed id: {@link #withInitiatorPortId}.
     */
    public static final long DEFAULT_INITIATOR_ID_LOW = ProcessHandle.current().pid();

    /** How a channel's thread waits for the answers of the commands it has in flight. */
    public enum Waiting {
        /** Poll the completion queue, spinning a little, then yielding the core between polls. */
        YIELD,
        /**
         * Poll a little, then sleep on the completion queue's event channel until a completion or a submission wakes
         * it: no core spent waiting, at the cost of a thread wake-up per completion burst (what that costs against
         * {@link #YIELD} and {@link #CALLER} on the soft provider: docs/benchmarks/initiator-vs-nbdkit.md and docs/benchmarks/fuse-1mib-rows.md).
         */
        EVENTS,
        /**
         * No channel thread: the application's threads drive the channels by calling {@link SrpInitiator#poll()}
         * whenever they would wait (the blocking forms and a full ring call it themselves), and the callbacks run
         * in that call. No hand-off between threads per I/O and no core spent by the library: for applications that
         * poll anyway, a thread per channel. Timeouts and reconnects also happen only in {@code poll()}.
         */
        CALLER;

        /**
         * The mode a command line names: {@code yield}, {@code events} or {@code caller}.
         *
         * @throws IllegalArgumentException for any other name, saying which are known
         */
        public static Waiting named(final String name) {
            return switch (name) {
                case "yield" -> YIELD;
                case "events" -> EVENTS;
                case "caller" -> CALLER;
                default -> throw new IllegalArgumentException("--channel-wait must be yield, events or caller, not " + name);
            };
        }
    }

    /** How a submission picks the channel that carries it. */
    public enum ChannelPolicy {
        /** The channel of the submitting thread (thread id modulo channels): a channel per thread, no sharing. */
        PER_THREAD,
        /** Each operation the next channel in turn. */
        ROUND_ROBIN
    }

    public InitiatorConfig {
        Objects.requireNonNull(provider, "provider");
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(channelPolicy, "channelPolicy");
        Objects.requireNonNull(connectTimeout, "connectTimeout");
        Objects.requireNonNull(commandTimeout, "commandTimeout");
        Objects.requireNonNull(reconnectTimeout, "reconnectTimeout");
        Objects.requireNonNull(waiting, "waiting");
        paths = List.copyOf(paths);
        if (commandTimeout.isNegative() || commandTimeout.isZero()) {
            throw new IllegalArgumentException("commandTimeout must be positive, not " + commandTimeout);
        }
        if (maxRetries < 0) {
            throw new IllegalArgumentException("maxRetries must be 0 or more, not " + maxRetries);
        }
        if (channels < 1 || channels > 256) {
            throw new IllegalArgumentException("channels must be 1..256, not " + channels);
        }
        if (queueDepth < 2 || queueDepth > 4096) {
            throw new IllegalArgumentException("queueDepth must be 2..4096, not " + queueDepth);
        }
        if (iuLength < 64 + 16) {
            throw new IllegalArgumentException("iuLength must be at least 80, not " + iuLength);
        }
        if (bounceBytes < 4096 || Integer.bitCount(bounceBytes) != 1) {
            throw new IllegalArgumentException("bounceBytes must be a power of two of at least 4096, not " + bounceBytes);
        }
        if (ringSize < queueDepth || Integer.bitCount(ringSize) != 1) {
            throw new IllegalArgumentException("ringSize must be a power of two of at least queueDepth, not " + ringSize);
        }
        if (nvme != null && queueDepth > NVME_MAX_QUEUE_DEPTH) {
            throw new IllegalArgumentException("an NVMe I/O queue holds at most " + NVME_MAX_QUEUE_DEPTH
                    + " commands (queueDepth " + queueDepth + ")");
        }
    }

    /** The protocol a session speaks. */
    public enum Protocol {
        /** SCSI RDMA Protocol: Linux's ib_srpt, LIO, our target's SRP side. */
        SRP,
        /** NVMe over Fabrics on RDMA: Linux's nvmet-rdma, SPDK, our target's NVMe side. */
        NVME
    }

    /**
     * What an NVMe over Fabrics session names: the subsystem and this host (the NQN a subsystem's allowed hosts list
     * and the 16-byte host identifier).
     */
    public record Nvme(String subsystemNqn, String hostNqn, java.util.UUID hostId) {
        public Nvme {
            Objects.requireNonNull(subsystemNqn, "subsystemNqn");
            Objects.requireNonNull(hostNqn, "hostNqn");
            Objects.requireNonNull(hostId, "hostId");
            for (final String nqn : new String[] {subsystemNqn, hostNqn}) {
                if (nqn.isEmpty() || nqn.length() > NQN_MAX_LENGTH) {
                    throw new IllegalArgumentException("an NQN has 1 to " + NQN_MAX_LENGTH + " characters: \"" + nqn + "\"");
                }
            }
        }
    }

    public Protocol protocol() {
        return nvme == null ? Protocol.SRP : Protocol.NVME;
    }

    /**
     * The defaults for a target at {@code host}:{@code port}, with the target port id it derives when its configuration
     * gives none ({@link SrpTargetPortId#derivedIdExt}; ioc_guid = id_ext) and an initiator port id derived the same way
     * from this host's name (high 64 bits) and this process's id (low 64 bits: {@link #DEFAULT_INITIATOR_ID_LOW}).
     */
    public static InitiatorConfig of(final String provider, final String host, final int port) {
        final long id = SrpTargetPortId.derivedIdExt(host, port);
        return new InitiatorConfig(provider, new InetSocketAddress(host, port), id, id, defaultInitiatorIdHigh(),
                DEFAULT_INITIATOR_ID_LOW, DEFAULT_CHANNELS, DEFAULT_QUEUE_DEPTH, DEFAULT_IU_LENGTH, DEFAULT_IMMEDIATE_DATA,
                DEFAULT_BOUNCE_BYTES, DEFAULT_RING_SIZE, ChannelPolicy.PER_THREAD, DEFAULT_CONNECT_TIMEOUT, DEFAULT_MERGE,
                DEFAULT_READ_PRIORITY, DEFAULT_COMMAND_TIMEOUT, DEFAULT_RECONNECT_TIMEOUT, DEFAULT_MAX_RETRIES,
                DEFAULT_WAITING, null, List.of());
    }

    /**
     * Speak NVMe over Fabrics to subsystem {@code subsystemNqn}, as the host this process is by default: host NQN
     * {@code nqn.2014-08.org.nvmexpress:uuid:} and a UUID made from this host's name and this process's id (as the SRP
     * port id is, so that two programs are two hosts). A subsystem that lists its allowed hosts needs a fixed one:
     * {@link #withNvme(String, String)}.
     */
    public InitiatorConfig withNvme(final String subsystemNqn) {
        final java.util.UUID id = java.util.UUID.nameUUIDFromBytes(
                (defaultInitiatorIdHigh() + "/" + DEFAULT_INITIATOR_ID_LOW).getBytes(java.nio.charset.StandardCharsets.UTF_8));
        return withNvme(new Nvme(subsystemNqn, "nqn.2014-08.org.nvmexpress:uuid:" + id, id));
    }

    /** Speak NVMe over Fabrics to subsystem {@code subsystemNqn} as host {@code hostNqn} (its host id made from it). */
    public InitiatorConfig withNvme(final String subsystemNqn, final String hostNqn) {
        return withNvme(new Nvme(subsystemNqn, hostNqn,
                java.util.UUID.nameUUIDFromBytes(hostNqn.getBytes(java.nio.charset.StandardCharsets.UTF_8))));
    }

    /** Speak NVMe over Fabrics as {@code session} says (null: SRP). */
    public InitiatorConfig withNvme(final Nvme session) {
        return new InitiatorConfig(provider, target, idExt, iocGuid, initiatorIdHigh, initiatorIdLow, channels,
                queueDepth, iuLength, immediateData, bounceBytes, ringSize, channelPolicy, connectTimeout, merge,
                readPriority, commandTimeout, reconnectTimeout, maxRetries, waiting, session, paths);
    }

    /** High 64 bits of the default initiator port id: the derived prefix and the CRC-32 of this host's name. */
    static long defaultInitiatorIdHigh() {
        String host;
        try {
            host = java.net.InetAddress.getLocalHost().getHostName();
        } catch (java.net.UnknownHostException e) {
            host = "localhost";
        }
        return SrpTargetPortId.derivedIdExt(host, 0);
    }

    /** The target port id to log in to: id_ext and ioc_guid (what the target prints; for LIO its service guid twice). */
    public InitiatorConfig withTargetPortId(final long newIdExt, final long newIocGuid) {
        return new InitiatorConfig(provider, target, newIdExt, newIocGuid, initiatorIdHigh, initiatorIdLow, channels,
                queueDepth, iuLength, immediateData, bounceBytes, ringSize, channelPolicy, connectTimeout, merge,
                readPriority, commandTimeout, reconnectTimeout, maxRetries, waiting, nvme, paths);
    }

    /** This initiator's port id, what the target's access lists name (high and low 64 bits). */
    public InitiatorConfig withInitiatorPortId(final long high, final long low) {
        return new InitiatorConfig(provider, target, idExt, iocGuid, high, low, channels, queueDepth, iuLength,
                immediateData, bounceBytes, ringSize, channelPolicy, connectTimeout, merge, readPriority,
                commandTimeout, reconnectTimeout, maxRetries, waiting, nvme, paths);
    }

    /** {@code count} channels per session, chosen per submission by {@code policy}. */
    public InitiatorConfig withChannels(final int count, final ChannelPolicy policy) {
        return new InitiatorConfig(provider, target, idExt, iocGuid, initiatorIdHigh, initiatorIdLow, count,
                queueDepth, iuLength, immediateData, bounceBytes, ringSize, policy, connectTimeout, merge,
                readPriority, commandTimeout, reconnectTimeout, maxRetries, waiting, nvme, paths);
    }

    /** Commands in flight per channel at most (the ring grows to hold at least as many submissions). */
    public InitiatorConfig withQueueDepth(final int depth) {
        return new InitiatorConfig(provider, target, idExt, iocGuid, initiatorIdHigh, initiatorIdLow, channels, depth,
                iuLength, immediateData, bounceBytes, Math.max(ringSize, Integer.highestOneBit(depth - 1) << 1),
                channelPolicy, connectTimeout, merge, readPriority, commandTimeout, reconnectTimeout, maxRetries, waiting, nvme, paths);
    }

    /** The initiator-to-target IU length asked for at login (LIO's ib_srpt takes its {@code srp_max_req_size}). */
    public InitiatorConfig withIuLength(final int length) {
        return new InitiatorConfig(provider, target, idExt, iocGuid, initiatorIdHigh, initiatorIdLow, channels,
                queueDepth, length, immediateData, bounceBytes, ringSize, channelPolicy, connectTimeout, merge,
                readPriority, commandTimeout, reconnectTimeout, maxRetries, waiting, nvme, paths);
    }

    /** Whether to ask for immediate data. */
    public InitiatorConfig withImmediateData(final boolean on) {
        return new InitiatorConfig(provider, target, idExt, iocGuid, initiatorIdHigh, initiatorIdLow, channels,
                queueDepth, iuLength, on, bounceBytes, ringSize, channelPolicy, connectTimeout, merge, readPriority,
                commandTimeout, reconnectTimeout, maxRetries, waiting, nvme, paths);
    }

    /** How the channels' threads wait for completions. */
    public InitiatorConfig withWaiting(final Waiting how) {
        return new InitiatorConfig(provider, target, idExt, iocGuid, initiatorIdHigh, initiatorIdLow, channels,
                queueDepth, iuLength, immediateData, bounceBytes, ringSize, channelPolicy, connectTimeout, merge,
                readPriority, commandTimeout, reconnectTimeout, maxRetries, how, nvme, paths);
    }

    /** Switches the scheduling layer's merging and read priority. */
    public InitiatorConfig withScheduling(final boolean mergeAdjacent, final boolean readsFirst) {
        return new InitiatorConfig(provider, target, idExt, iocGuid, initiatorIdHigh, initiatorIdLow, channels,
                queueDepth, iuLength, immediateData, bounceBytes, ringSize, channelPolicy, connectTimeout,
                mergeAdjacent, readsFirst, commandTimeout, reconnectTimeout, maxRetries, waiting, nvme, paths);
    }

    /** The bounce buffer per command, a power of two of at least 4096 bytes. */
    public InitiatorConfig withBounceBytes(final int bytes) {
        return new InitiatorConfig(provider, target, idExt, iocGuid, initiatorIdHigh, initiatorIdLow, channels,
                queueDepth, iuLength, immediateData, bytes, ringSize, channelPolicy, connectTimeout, merge,
                readPriority, commandTimeout, reconnectTimeout, maxRetries, waiting, nvme, paths);
    }

    /**
     * The target's other ports ({@code [[port]]}s of our daemon, another ib_srpt port of LIO's): each path is tried in
     * turn, {@link #target} first, when a channel's connection is lost, and a port whose target port group is standby or
     * unavailable is left for the next at connect. SRP only.
     */
    public InitiatorConfig withPaths(final InetSocketAddress... others) {
        return new InitiatorConfig(provider, target, idExt, iocGuid, initiatorIdHigh, initiatorIdLow, channels,
                queueDepth, iuLength, immediateData, bounceBytes, ringSize, channelPolicy, connectTimeout, merge,
                readPriority, commandTimeout, reconnectTimeout, maxRetries, waiting, nvme, List.of(others));
    }

    /** Every path to the target: {@link #target} first, then {@link #paths}. */
    public List<InetSocketAddress> allPaths() {
        final List<InetSocketAddress> all = new java.util.ArrayList<>();
        all.add(target);
        all.addAll(paths);
        return all;
    }

    /** The command timeout, the reconnect timeout and the retries. */
    public InitiatorConfig withFaultHandling(final Duration command, final Duration reconnect, final int retries) {
        return new InitiatorConfig(provider, target, idExt, iocGuid, initiatorIdHigh, initiatorIdLow, channels,
                queueDepth, iuLength, immediateData, bounceBytes, ringSize, channelPolicy, connectTimeout, merge,
                readPriority, command, reconnect, retries, waiting, nvme, paths);
    }

    /** How long address resolution, connect and login may take (a target on a slow or emulated machine needs more). */
    public InitiatorConfig withConnectTimeout(final Duration timeout) {
        return new InitiatorConfig(provider, target, idExt, iocGuid, initiatorIdHigh, initiatorIdLow, channels,
                queueDepth, iuLength, immediateData, bounceBytes, ringSize, channelPolicy, timeout, merge,
                readPriority, commandTimeout, reconnectTimeout, maxRetries, waiting, nvme, paths);
    }
}

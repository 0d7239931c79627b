package org.rdmablock.target.config;

import java.util.List;

/**
 * The command pipeline: completion queue size, the Disruptor ring, backend threads, blocking-call threads and the
 * receive and completion modes. As read from a file, {@code backendThreads} and {@code blockingThreads} may be
 * automatic ({@link #AUTO_BACKEND_THREADS}, the default); the target runs the {@link #resolve resolved} values, chosen
 * from the LUNs' backends.
 *
 * @param cqSize         entries of the completion queue; must hold every completion maxChannels × credits can cause
 * @param ringSize       slots of the Disruptor ring (power of two)
 * @param backendThreads threads that run backend I/O; 0: the completion poller's thread runs the intake stage and
 *                       each command itself, no ring (inline: for memory LUNs and page-cache files; a blocking call
 *                       holds up every channel, and the command timeout cannot answer it); {@link #AUTO_BACKEND_THREADS}:
 *                       chosen at start
 * @param receiveQueue   one shared receive queue for all channels, or a receive queue per channel
 * @param completions    busy polling, or sleeping on a completion channel between completions
 * @param blockingThreads with {@code backendThreads} 0: threads that make the backend calls the poller's thread does
 *                       not make because they would wait on a device (a file read the page cache does not hold,
 *                       fdatasync, FUA and write-through writes, every RocksDB call); 0: the poller makes every call
 *                       itself; {@link #AUTO_BACKEND_THREADS}: chosen at start. Unused with backend threads.
 */
public record PipelineConfig(int cqSize, int ringSize, int backendThreads, ReceiveQueueMode receiveQueue,
                             CompletionMode completions, int blockingThreads) {
    /**
     * Completion queue entries a credit can hold at once: the receive of its command, the RDMA READ of an indirect
     * descriptor table that did not fit in the IU, the RDMA READ that fetches the command's data-out (one signalled per
     * command) and the SEND of its SRP_RSP. RDMA WRITEs are posted unsignalled, so they complete nothing.
     */
    public static final int CQ_ENTRIES_PER_CREDIT = 4;
    /**
     * Receives each channel posts beyond its credits, so that an IU sent without a credit is answered (SCSI BUSY)
     * rather than left to the transport's receiver-not-ready retries.
     */
    public static final int SPARE_RECEIVES_PER_CHANNEL = 2;
    /** Default Disruptor ring slots. */
    public static final int DEFAULT_RING_SIZE = 1024;
    /** {@code backend_threads = "auto"}: chosen at start by {@link #resolve}; the default. */
    public static final int AUTO_BACKEND_THREADS = -1;
    /** Default backend I/O threads: chosen at start. */
    public static final int DEFAULT_BACKEND_THREADS = AUTO_BACKEND_THREADS;
    /** Blocking-call threads {@code "auto"} gives LUNs whose calls can block (file, rocksdb). */
    public static final int BLOCKING_CALL_THREADS = 4;
    /** Default blocking-call threads: chosen at start ({@link #AUTO_BACKEND_THREADS}). */
    public static final int DEFAULT_BLOCKING_THREADS = AUTO_BACKEND_THREADS;
    /** Receive queues are per channel by default: the simplest, and what credits are counted against. */
    public static final ReceiveQueueMode DEFAULT_RECEIVE_QUEUE = ReceiveQueueMode.PER_CHANNEL;
    /** Completions are polled by default: the lowest latency (and, with backend threads, far fewer wake-ups). */
    public static final CompletionMode DEFAULT_COMPLETIONS = CompletionMode.POLL;

    public PipelineConfig {
        if (backendThreads < AUTO_BACKEND_THREADS) {
            throw new IllegalArgumentException("backendThreads " + backendThreads);
        }
        if (blockingThreads < AUTO_BACKEND_THREADS) {
            throw new IllegalArgumentException("blockingThreads " + blockingThreads);
        }
    }

    /** Without blocking-call threads: the poller makes every backend call itself when it runs the commands. */
    public PipelineConfig(final int cqSize, final int ringSize, final int backendThreads, final ReceiveQueueMode receiveQueue,
                          final CompletionMode completions) {
        this(cqSize, ringSize, backendThreads, receiveQueue, completions, 0);
    }

    /** Whether the backend threads are left to {@link #resolve}. */
    public boolean automatic() {
        return backendThreads == AUTO_BACKEND_THREADS;
    }

    /** Whether the blocking-call threads are left to {@link #resolve}. */
    public boolean blockingAutomatic() {
        return blockingThreads == AUTO_BACKEND_THREADS;
    }

    /**
     * The pipeline to run: explicit values as they are; {@code backend_threads = "auto"} is 0 (the poller's thread runs
     * each command without a hand-off, which pays on small machines: docs/benchmarks/target-pipeline-settings.md), and {@code blocking_threads = "auto"} is {@link #BLOCKING_CALL_THREADS} when a LUN's calls can
     * wait on a device (file, rocksdb: a read the page cache does not hold, an fdatasync, a compaction stall) and the
     * poller runs the commands, else 0. LUNs added by a later reload do not change it (the pipeline is fixed until a
     * restart).
     */
    public PipelineConfig resolve(final List<LunConfig> luns) {
        final int backend = backendThreads == AUTO_BACKEND_THREADS ? 0 : backendThreads;
        final int blocking = blockingThreads != AUTO_BACKEND_THREADS ? blockingThreads
                : backend == 0 && !luns.stream().allMatch(PipelineConfig::neverBlocks) ? BLOCKING_CALL_THREADS : 0;
        return backend == backendThreads && blocking == blockingThreads ? this
                : new PipelineConfig(cqSize, ringSize, backend, receiveQueue, completions, blocking);
    }

    /** Whether a LUN's backend calls return without waiting on a device: memory and null. */
    public static boolean neverBlocks(final LunConfig lun) {
        return lun.backend() == LunConfig.BackendKind.MEMORY || lun.backend() == LunConfig.BackendKind.NULL;
    }

    /**
     * The smallest CQ that cannot overflow: every channel with every credit and spare receive in use, each holding
     * {@link #CQ_ENTRIES_PER_CREDIT} completions; also the default cq_size.
     */
    public static long minimumCqSize(int maxChannels, int credits) {
        return (long) maxChannels * (credits + SPARE_RECEIVES_PER_CHANNEL) * CQ_ENTRIES_PER_CREDIT;
    }

    /** How receive buffers are shared between channels. */
    public enum ReceiveQueueMode {
        /** One SRQ for all channels (TOML {@code "srq"}). */
        SHARED,
        /** Each channel posts its own receives (TOML {@code "per-channel"}). */
        PER_CHANNEL
    }

    /** How the completion poller waits. */
    public enum CompletionMode {
        /** Spin on the CQ (TOML {@code "poll"}): lowest latency, one busy core. */
        POLL,
        /** Arm the CQ and sleep on its completion channel when idle (TOML {@code "event"}). */
        EVENT
    }
}

package org.rdmablock.target.srp;

import org.HdrHistogram.Histogram;
import org.rdmablock.protocol.srp.SrpLoginRequest;
import org.rdmablock.protocol.srp.SrpLoginResponse;
import org.rdmablock.protocol.srp.SrpResponse;
import org.rdmablock.verbs.AccessFlags;
import org.rdmablock.verbs.CompletionQueue;
import org.rdmablock.verbs.ConnectionId;
import org.rdmablock.verbs.ConnectionParameters;
import org.rdmablock.verbs.MemoryRegion;
import org.rdmablock.verbs.ProtectionDomain;
import org.rdmablock.verbs.QueuePair;
import org.rdmablock.verbs.QueuePairCapabilities;
import org.rdmablock.verbs.QueuePairInitAttributes;
import org.rdmablock.verbs.QueuePairType;
import org.rdmablock.verbs.ReceiveWorkRequest;
import org.rdmablock.verbs.SendFlags;
import org.rdmablock.verbs.SendOpcode;
import org.rdmablock.verbs.SendWorkRequest;
import org.rdmablock.verbs.VerbsProvider;
import org.rdmablock.verbs.WcOpcode;
import org.rdmablock.verbs.WorkCompletions;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The load generator of {@link TargetBench}: an SRP initiator host on the soft provider with {@code channelCount}
 * logged-in channels (one provider, PD, CQ and data region for all, as one host has), driven by one thread that
 * keeps {@code queueDepth} commands in flight on each channel in use and sends the next command of a slot as soon
 * as its SRP_RSP arrives. Commands are pre-built IUs re-aimed by tag and LBA ({@link CommandIus}); the run loop
 * allocates nothing.
 */
final class BenchInitiator implements AutoCloseable {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    /** Room per command slot for an SRP_CMD with 4 KiB of immediate data. */
    private static final int IU_SLOT = 4224;
    private static final int RESPONSE_SLOT = 256;
    private static final long DATA_BYTES = 64L << 20;
    /**
     * Send queue entries per command slot: the soft provider may complete a signaled SEND only when a later
     * confirmation covers it, so the SENDs of answered commands can hold their entries for a while.
     */
    private static final int SEND_QUEUE_PER_SLOT = 4;

    /** What to send: commands of {@code kind}, {@code bytes} each, at random or sequential block addresses. */
    record Workload(String name, CommandIus.Kind kind, int bytes, boolean sequential) {
    }

    /** One measurement: commands answered, bytes moved, time taken, latency (ns) and responses not GOOD. */
    record Result(long commands, long bytes, long nanos, long p50, long p99, long failed) {
        double iops() {
            return commands / (nanos / 1e9);
        }

        double megabytesPerSecond() {
            return bytes / (nanos / 1e9) / 1e6;
        }
    }

    private final Arena arena = Arena.ofShared();
    private final VerbsProvider provider;
    private final ProtectionDomain pd;
    private final CompletionQueue cq;
    private final MemoryRegion data;
    private final ConnectionId[] ids;
    private final QueuePair[] qps;
    private final MemoryRegion[] ius;
    private final MemoryRegion[] responses;
    private final ReceiveWorkRequest[][] receives;
    private final SendWorkRequest[][] sends;
    private final CommandIus.Kind[][] builtKind;
    private final int[][] builtBytes;
    private final long[][] sentAt;
    private final long[] nextBlock;
    final int channelCount;
    final int slots;
    private final int blockSize;
    private final long deviceBlocks;
    private final WorkCompletions wc = new WorkCompletions(64);
    private final Histogram latency = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
    private long random = 0x2545F4914F6CDD1DL;

    BenchInitiator(final InetSocketAddress target, final long idExt, final long iocGuid, final int channelCount,
                   final int slots, final int blockSize, final long deviceBytes) {
        this.channelCount = channelCount;
        this.slots = slots;
        this.blockSize = blockSize;
        this.deviceBlocks = deviceBytes / blockSize;
        ids = new ConnectionId[channelCount];
        qps = new QueuePair[channelCount];
        ius = new MemoryRegion[channelCount];
        responses = new MemoryRegion[channelCount];
        receives = new ReceiveWorkRequest[channelCount][slots + 4];
        sends = new SendWorkRequest[channelCount][slots];
        builtKind = new CommandIus.Kind[channelCount][slots];
        builtBytes = new int[channelCount][slots];
        sentAt = new long[channelCount][slots];
        nextBlock = new long[channelCount];
        provider = VerbsProvider.load("soft");
        try {
            ids[0] = provider.connectionManager().resolve(target, TIMEOUT);
            pd = ids[0].context().allocateProtectionDomain();
            cq = ids[0].context().createCompletionQueue(channelCount * ((SEND_QUEUE_PER_SLOT + 1) * slots + 24) + 64, null);
            data = pd.registerMemory(arena.allocate(DATA_BYTES, 4096),
                    AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_WRITE);
            for (int c = 0; c < channelCount; c++) {
                connect(target, idExt, iocGuid, c);
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    private void connect(final InetSocketAddress target, final long idExt, final long iocGuid, final int c) {
        if (ids[c] == null) {
            ids[c] = provider.connectionManager().resolve(target, TIMEOUT);
        }
        qps[c] = ids[c].createQueuePair(pd, new QueuePairInitAttributes(QueuePairType.RC, cq, cq, null,
                new QueuePairCapabilities(SEND_QUEUE_PER_SLOT * slots + 16, slots + 4, 1, 1, 0), false));
        ius[c] = pd.registerMemory(arena.allocate((long) slots * IU_SLOT, 4096), AccessFlags.LOCAL_WRITE);
        responses[c] = pd.registerMemory(arena.allocate((long) (slots + 4) * RESPONSE_SLOT, 4096), AccessFlags.LOCAL_WRITE);
        for (int r = 0; r < slots + 4; r++) {
            receives[c][r] = new ReceiveWorkRequest(1).wrId(((long) c << 32) | r);
            receives[c][r].sgl().add(responses[c], (long) r * RESPONSE_SLOT, RESPONSE_SLOT);
            qps[c].postReceive(receives[c][r]);
        }
        for (int s = 0; s < slots; s++) {
            sends[c][s] = new SendWorkRequest(1).opcode(SendOpcode.SEND).flags(SendFlags.SIGNALED).wrId(-1L);
        }
        final byte[] login = TestInitiator.loginPrivateData(idExt, iocGuid, 0x42, TestInitiator.IU_LENGTH,
                SrpLoginRequest.IMMEDIATE_DATA_REQUESTED | SrpLoginRequest.MULTICHANNEL_MULTI, PipelineHarness.IMMEDIATE_OFFSET);
        ids[c].connect(new ConnectionParameters(login, 16, 16, 7, 7), TIMEOUT);
        final SrpLoginResponse accepted = new SrpLoginResponse().wrap(MemorySegment.ofArray(ids[c].privateData()), 0);
        if (accepted.requestLimitDelta() < slots) {
            throw new IllegalStateException("channel " + c + " got " + accepted.requestLimitDelta() + " credits, fewer than "
                    + slots + " command slots");
        }
    }

    /**
     * Runs {@code workload} on the first {@code channels} channels with {@code queueDepth} commands in flight on
     * each for {@code nanos}, then waits for the commands in flight.
     */
    Result run(final Workload workload, final int channels, final int queueDepth, final long nanos) {
        if (channels > channelCount || queueDepth > slots) {
            throw new IllegalArgumentException(channels + " channels x QD " + queueDepth + " > " + channelCount + " x " + slots);
        }
        latency.reset();
        long commands = 0;
        long failed = 0;
        long inFlight = 0;
        final long start = System.nanoTime();
        final long end = start + nanos;
        for (int c = 0; c < channels; c++) {
            for (int s = 0; s < queueDepth; s++) {
                submit(workload, c, s);
                inFlight++;
            }
        }
        boolean running = true;
        long now = start;
        int idle = 0;
        while (inFlight > 0) {
            final int n = cq.poll(wc);
            if (n == 0) {
                idle = idle < 1000 ? idle + 1 : idle;
                if (idle > 200) {
                    Thread.yield();
                }
                now = System.nanoTime();
                running &= now < end;
                checkStall(now, end);
                continue;
            }
            idle = 0;
            now = System.nanoTime();
            running &= now < end;
            for (int i = 0; i < n; i++) {
                if (!wc.isSuccess(i)) {
                    throw new IllegalStateException("completion failed: " + wc.toString(i));
                }
                if (wc.opcode(i) != WcOpcode.RECV) {
                    continue; // our SRP_CMD SENDs
                }
                final long id = wc.wrId(i);
                final int c = (int) (id >>> 32);
                final int r = (int) id;
                final MemorySegment rsp = responses[c].segment();
                final long at = (long) r * RESPONSE_SLOT;
                final int s = (int) CommandIus.tag(rsp, at);
                if (rsp.get(ValueLayout.JAVA_BYTE, at + SrpResponse.STATUS_OFFSET) != 0) {
                    failed++;
                }
                qps[c].postReceive(receives[c][r]);
                latency.recordValue(Math.min(now - sentAt[c][s], latency.getHighestTrackableValue()));
                commands++;
                if (running) {
                    submit(workload, c, s);
                } else {
                    inFlight--;
                }
            }
        }
        return new Result(commands, commands * workload.bytes(), now - start, latency.getValueAtPercentile(50),
                latency.getValueAtPercentile(99), failed);
    }

    private static void checkStall(final long now, final long end) {
        if (now - end > TIMEOUT.toNanos()) {
            throw new IllegalStateException("commands in flight got no response within " + TIMEOUT + " after the run");
        }
    }

    private void submit(final Workload workload, final int c, final int s) {
        final MemorySegment iu = ius[c].segment();
        final long at = (long) s * IU_SLOT;
        if (builtKind[c][s] != workload.kind() || builtBytes[c][s] != workload.bytes()) {
            final long buffer = data.address() + ((long) c * slots + s) * workload.bytes() % DATA_BYTES;
            final int length = CommandIus.write(iu, at, workload.kind(), workload.bytes(), blockSize, buffer, data.rkey(),
                    PipelineHarness.IMMEDIATE_OFFSET);
            sends[c][s].sgl().clear().add(ius[c], at, length);
            builtKind[c][s] = workload.kind();
            builtBytes[c][s] = workload.bytes();
        }
        final int blocks = workload.bytes() / blockSize;
        final long lba;
        if (blocks == 0) {
            lba = 0;
        } else if (workload.sequential()) {
            lba = nextBlock[c];
            nextBlock[c] = lba + blocks >= deviceBlocks ? 0 : lba + blocks;
        } else {
            random ^= random << 13;
            random ^= random >>> 7;
            random ^= random << 17;
            lba = (random >>> 1) % (deviceBlocks / blocks) * blocks;
        }
        CommandIus.aim(iu, at, s, lba);
        sentAt[c][s] = System.nanoTime();
        qps[c].postSend(sends[c][s]);
    }

    /** Closes the connections (their QPs with them), the CQ, the regions, the PD and the provider. */
    @Override
    public void close() {
        final List<AutoCloseable> made = new ArrayList<>(Arrays.asList(ids));
        made.add(cq);
        made.addAll(Arrays.asList(ius));
        made.addAll(Arrays.asList(responses));
        made.addAll(Arrays.asList(data, pd, provider, arena));
        for (final AutoCloseable resource : made) {
            try {
                if (resource != null) {
                    resource.close();
                }
            } catch (Exception e) {
                throw new IllegalStateException("closing " + resource, e);
            }
        }
    }
}

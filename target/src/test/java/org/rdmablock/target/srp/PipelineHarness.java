package org.rdmablock.target.srp;

import org.rdmablock.target.core.TargetDevice;
import org.rdmablock.target.fakes.FakeVerbs;

import org.HdrHistogram.Histogram;
import org.rdmablock.protocol.scsi.BlockBackend;
import org.rdmablock.protocol.scsi.LogicalUnit;
import org.rdmablock.protocol.scsi.LogicalUnitConfig;
import org.rdmablock.protocol.scsi.LogicalUnitTable;
import org.rdmablock.protocol.scsi.NexusRegistry;
import org.rdmablock.target.config.InitiatorPortId;
import org.rdmablock.target.core.Channel;
import org.rdmablock.target.core.ChannelTable;
import org.rdmablock.target.core.FrontEnd;
import org.rdmablock.verbs.QueuePair;
import org.rdmablock.target.core.CommandPipeline;
import org.rdmablock.target.core.DeviceResources;
import org.rdmablock.target.core.WorkRequestIds;
import org.rdmablock.target.metrics.TargetStatistics;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.rdmablock.target.Waiting.waitUpTo;

/**
 * The {@link CommandPipeline} alone, driven as the completion poller drives it but with no transport: SRP_CMD IUs
 * are written into the channels' receive buffers and their receive completions published; the {@link FakeVerbs}
 * queue pairs count what the pipeline posts and hand each signaled RDMA READ (DATA_OUT) and response SEND
 * (RESPONSE) back as a completion, which this thread publishes in turn. The calling thread plays poller and
 * initiator: it keeps {@code queueDepth} commands in flight per channel, each sent as soon as a response frees
 * its credit. Records, per command, the nanoseconds from publishing the IU's receive completion to the post of its
 * response. The pipeline records every command into {@link #statistics} (LUN 0 served, one session per channel), as
 * the target's does. Nothing here allocates per command.
 */
public final class PipelineHarness implements AutoCloseable {
    /** The commands sent, 4 KiB each. */
    public enum Mix {
        READ, WRITE, WRITE_IMMEDIATE,
        /** Half READ, half WRITE (RDMA READ data-out), in random order. */
        MIXED
    }

    /** How a command moves its data: by the target's RDMA WRITE, its RDMA READ, or inside the request. */
    public enum Command {
        READ, WRITE, WRITE_IMMEDIATE
    }

    /**
     * What the harness needs of a protocol: its front end, its channels over the fake queue pairs, its requests
     * (written once per receive buffer, then re-aimed per command: tag and LBA) and how its responses read.
     */
    public interface Protocol {
        FrontEnd.Factory frontEnds();

        /** Receive buffers a channel of {@code queueDepth} requests posts. */
        int receiveCount(int queueDepth);

        /** Channel {@code c} over {@code queuePair}, serving {@code units}, counted into {@code statistics}. */
        Channel channel(int c, QueuePair queuePair, LogicalUnitTable units, int queueDepth, TargetStatistics statistics);

        /** Bytes of a receive buffer. */
        int receiveLength();

        /** Writes a request of {@code command} for {@link #IO_BYTES} into {@code out}; returns its length. */
        int template(Command command, MemorySegment out);

        /** Sets the tag and the LBA of the request at {@code at}. */
        void aim(MemorySegment buffer, long at, int tag, long lba);

        FakeVerbs.Responses responses();
    }

    /** SRP: SRP_CMD IUs ({@link CommandIus}) on {@link SrpChannel}s with immediate data, SRP_RSP back. */
    public static final Protocol SRP = new Protocol() {
        @Override
        public FrontEnd.Factory frontEnds() {
            return core -> new SrpFrontEnd(core, NO_TIMEOUTS);
        }

        @Override
        public int receiveCount(final int queueDepth) {
            return queueDepth + SrpChannel.SPARE_RECEIVES;
        }

        @Override
        public int receiveLength() {
            return IU_LENGTH;
        }

        @Override
        public Channel channel(final int c, final QueuePair queuePair, final LogicalUnitTable units, final int queueDepth,
                               final TargetStatistics statistics) {
            final InitiatorPortId initiator = new InitiatorPortId(1, c);
            return new SrpChannel(c, null, queuePair, initiator, new NexusRegistry().ofSrp(1, c, 1), units, queueDepth, IU_LENGTH, IU_LENGTH, IMMEDIATE_OFFSET,
                    TargetDevice.MAX_READ_DEPTH, null, statistics.channelJoined(initiator));
        }

        @Override
        public int template(final Command command, final MemorySegment out) {
            return CommandIus.write(out, 0, CommandIus.Kind.valueOf(command.name()), IO_BYTES, BLOCK_SIZE, 0x7f00_0000_0000L,
                    0x1234, IMMEDIATE_OFFSET);
        }

        @Override
        public void aim(final MemorySegment buffer, final long at, final int tag, final long lba) {
            CommandIus.aim(buffer, at, tag, lba);
        }

        @Override
        public FakeVerbs.Responses responses() {
            return FakeVerbs.SRP;
        }
    };

    /** No command or idle limit: the harness's tests drive time themselves. */
    public static final org.rdmablock.target.core.Timeouts NO_TIMEOUTS = new org.rdmablock.target.core.Timeouts(
            java.time.Duration.ZERO, java.time.Duration.ZERO);
    public static final int IO_BYTES = 4096;
    public static final int BLOCK_SIZE = 4096;
    static final int IU_LENGTH = 8276;
    static final int IMMEDIATE_OFFSET = 68;
    public static final long DEVICE_BYTES = 1L << 40;
    static final String THREAD_PREFIX = "srp-pipeline-";
    /** Empty polls spent spinning before this thread starts yielding (the poller's figure). */
    private static final int SPINS = 200;

    private final Arena arena = Arena.ofShared();
    public final CommandPipeline pipeline;
    private final FakeVerbs.Completions completions;
    private final FakeVerbs.Pair[] queuePairs;
    private final Channel[] channels;
    private final Protocol protocol;
    private final int queueDepth;
    private final int receiveCount;
    /** Injection time by tag; tags are the initiator's: channel × queueDepth + command number within the channel. */
    private final long[] injectedAt;
    /** Per channel, the free command numbers (a stack of queueDepth); inFlight[c] of them are taken. */
    private final int[][] freeTags;
    private final int[] inFlight;
    /** The kind of IU each receive buffer holds now (ordinal + 1), so that only tag and LBA change when it repeats. */
    private final byte[] bufferKind;
    private final MemorySegment[] templates = new MemorySegment[Command.values().length];
    private final int[] templateLength = new int[templates.length];
    private final List<Thread> pipelineThreads;
    final Histogram latency = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
    /** What the pipeline counted. */
    public final TargetStatistics statistics = new TargetStatistics();
    private Mix mix = Mix.READ;
    /** Idle time before each new command (after the last response), so that the stages go to sleep between them. */
    private long gapNanos;
    private long lastResponseNanos;
    private long random = 0x9E3779B97F4A7C15L;
    /** Blocks of the backend: the commands' LBAs fall in them. */
    private final long deviceBlocks;
    private int nextChannel;
    private int burst = 1;
    /** Commands answered, work requests posted by the pipeline, responses whose status was not GOOD. */
    public long completed;
    public long posts;
    public long failed;

    PipelineHarness(final int channelCount, final int queueDepth, final int backendThreads, final BlockBackend backend) {
        this(SRP, channelCount, queueDepth, backendThreads, backend, false);
    }

    PipelineHarness(final int channelCount, final int queueDepth, final int backendThreads, final BlockBackend backend,
                    final boolean inPlace) {
        this(SRP, channelCount, queueDepth, backendThreads, backend, inPlace);
    }

    /** @param inPlace serve an {@code InPlaceStorage} backend in place, as the target does on the soft provider */
    public PipelineHarness(final Protocol protocol, final int channelCount, final int queueDepth, final int backendThreads,
                           final BlockBackend backend, final boolean inPlace) {
        this.protocol = protocol;
        this.deviceBlocks = backend.sizeBytes() / BLOCK_SIZE;
        this.queueDepth = queueDepth;
        this.receiveCount = protocol.receiveCount(queueDepth);
        final int commands = channelCount * queueDepth;
        final int ringSize = Math.max(1024, Integer.highestOneBit(commands * 4 - 1) << 1);
        completions = new FakeVerbs.Completions(ringSize * 2);
        injectedAt = new long[commands];
        freeTags = new int[channelCount][queueDepth];
        for (final int[] tags : freeTags) {
            for (int t = 0; t < queueDepth; t++) {
                tags[t] = t;
            }
        }
        inFlight = new int[channelCount];
        bufferKind = new byte[channelCount * receiveCount];
        final FakeVerbs.Domain pd = new FakeVerbs.Domain();
        final Set<Thread> before = threadsNamed(THREAD_PREFIX);
        statistics.lunsServed(List.of(0));
        final ChannelTable table = new ChannelTable(channelCount, false);
        pipeline = new CommandPipeline(pd, ringSize, DeviceResources.MIN_DATA_BYTES, 1 << 20, ringSize, backendThreads, 0, table,
                NO_TIMEOUTS, null, statistics, false, inPlace, protocol.frontEnds());
        final Set<Thread> started = threadsNamed(THREAD_PREFIX);
        started.removeAll(before);
        pipelineThreads = List.copyOf(started);
        final LogicalUnitTable units = units(backend);
        queuePairs = new FakeVerbs.Pair[channelCount];
        channels = new Channel[channelCount];
        for (int c = 0; c < channelCount; c++) {
            queuePairs[c] = new FakeVerbs.Pair(pd, c, completions, receiveCount, injectedAt, protocol.responses());
            channels[c] = protocol.channel(c, queuePairs[c], units, queueDepth, statistics);
            channels[c].respondsWith(pipeline.frontEnd().responseEncoders());
            channels[c].postAllReceives();
            table.enter(channels[c]);
        }
        for (final Command command : Command.values()) {
            templates[command.ordinal()] = arena.allocate(protocol.receiveLength(), 8);
            templateLength[command.ordinal()] = protocol.template(command, templates[command.ordinal()]);
        }
    }

    /** LUN 0 of {@link #BLOCK_SIZE}-byte blocks over {@code backend}, taking commands of up to 1 MiB. */
    public static LogicalUnitTable units(final BlockBackend backend) {
        final LogicalUnitTable units = new LogicalUnitTable();
        units.add(new LogicalUnit(0, LogicalUnitConfig.builder().serialNumber("bench").blockSize(BLOCK_SIZE)
                .maxTransferBytes(1 << 20).build(), backend));
        return units;
    }

    public void mix(final Mix commands) {
        this.mix = commands;
    }

    /** Leaves {@code nanos} of idle time after each response before the next command is sent (0: none). */
    void gap(final long nanos) {
        this.gapNanos = nanos;
    }

    /** The pipeline's stage threads (intake first, then the backend threads, as the Disruptor started them). */
    public List<Thread> pipelineThreads() {
        return pipelineThreads;
    }

    /**
     * IUs each channel may get per cycle (default 1): more makes a cycle's work hold several commands of one channel,
     * as a poll batch does under load.
     */
    public void burst(final int ius) {
        this.burst = ius;
    }

    /** Calls to postSend on channel {@code c}'s queue pair. */
    public long postCalls(final int c) {
        return queuePairs[c].posts().calls.get();
    }

    /** Channel {@code c}'s queue pair, for a test to arm a refusal. */
    FakeVerbs.Pair queuePair(final int c) {
        return queuePairs[c];
    }

    /** Runs until {@code commands} more responses were posted; commands stay in flight across calls. */
    public void run(final long commands) {
        final long goal = completed + commands;
        int idle = 0;
        while (completed < goal) {
            final boolean work = reap() | inject();
            pipeline.flushPosts();
            if (work) {
                idle = 0;
            } else {
                idle(++idle);
            }
        }
    }

    /**
     * Injects nothing more: publishes and posts until the fake CQ stays empty, then lets the intake stage do its
     * housekeeping (where slots whose post was refused come back). Without backend threads all of it runs here.
     */
    void settle() {
        for (int idle = 0; idle < 1_000; ) {
            idle = reap() ? 0 : idle + 1;
            pipeline.flushPosts();
        }
        pipeline.tick();
        pipeline.flushPosts();
    }

    /** Commands injected and not answered. */
    int unanswered() {
        return inFlight();
    }

    /** Waits until no command is in flight, publishing and posting meanwhile as the poller would. */
    public void drain() {
        waitUpTo(Duration.ofSeconds(10), "every command in flight answered").until(() -> {
            reap();
            pipeline.flushPosts();
            return inFlight();
        }, inFlight -> inFlight == 0);
    }

    /**
     * Backs off as the poller does, short of parking: spins, then yields, so that on a machine with fewer free
     * cores than busy threads the stages get the CPU this thread would otherwise spin away.
     */
    private static void idle(final int count) {
        if (count <= SPINS) {
            Thread.onSpinWait();
        } else {
            Thread.yield();
        }
    }

    private int inFlight() {
        int n = 0;
        for (final int c : inFlight) {
            n += c;
        }
        return n;
    }

    /** Publishes what the fake CQ holds, as the poller would; false when it held nothing. */
    private boolean reap() {
        boolean any = false;
        while (completions.poll()) {
            any = true;
            final long id = completions.id;
            final int kind = WorkRequestIds.kind(id);
            pipeline.publish(kind, WorkRequestIds.channel(id), WorkRequestIds.index(id), 0, 0);
            posts += completions.chainLength;
            if (kind == WorkRequestIds.RESPONSE) {
                completed++;
                final int c = (int) completions.tag / queueDepth;
                freeTags[c][--inFlight[c]] = (int) completions.tag % queueDepth;
                final long nanos = completions.value;
                if (nanos < 0) {
                    failed++;
                } else {
                    latency.recordValue(Math.min(nanos, latency.getHighestTrackableValue()));
                }
                if (gapNanos > 0) {
                    lastResponseNanos = System.nanoTime();
                }
            }
        }
        return any;
    }

    /**
     * Sends up to {@link #burst} IUs into each channel with a free credit and a posted receive, round robin; false
     * when none could.
     */
    private boolean inject() {
        if (gapNanos > 0 && System.nanoTime() - lastResponseNanos < gapNanos) {
            return false;
        }
        boolean any = false;
        for (int i = 0; i < channels.length * burst; i++) {
            final int c = nextChannel;
            if ((i + 1) % burst == 0) {
                nextChannel = c + 1 == channels.length ? 0 : c + 1;
            }
            if (inFlight[c] >= queueDepth) {
                continue;
            }
            final int index = queuePairs[c].receives().take();
            if (index < 0) {
                continue;
            }
            final Command kind = nextKind();
            final int buffer = c * receiveCount + index;
            final MemorySegment buffers = channels[c].receiveSegment();
            final long at = channels[c].receiveOffset(index);
            if (bufferKind[buffer] != kind.ordinal() + 1) {
                MemorySegment.copy(templates[kind.ordinal()], 0, buffers, at, templateLength[kind.ordinal()]);
                bufferKind[buffer] = (byte) (kind.ordinal() + 1);
            }
            final int tag = c * queueDepth + freeTags[c][inFlight[c]++];
            protocol.aim(buffers, at, tag, (nextRandom() >>> 1) % deviceBlocks);
            injectedAt[tag] = System.nanoTime();
            pipeline.publish(WorkRequestIds.RECEIVE, c, index, templateLength[kind.ordinal()], 0);
            any = true;
        }
        return any;
    }

    private Command nextKind() {
        return switch (mix) {
            case READ -> Command.READ;
            case WRITE -> Command.WRITE;
            case WRITE_IMMEDIATE -> Command.WRITE_IMMEDIATE;
            case MIXED -> (nextRandom() & 1) == 0 ? Command.READ : Command.WRITE;
        };
    }

    private long nextRandom() {
        random ^= random << 13;
        random ^= random >>> 7;
        random ^= random << 17;
        return random;
    }

    /** Alive threads whose name starts with {@code prefix}. */
    static Set<Thread> threadsNamed(final String prefix) {
        final Set<Thread> found = new HashSet<>();
        for (final Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith(prefix)) {
                found.add(t);
            }
        }
        return found;
    }

    /** CPU time the pipeline's stage threads have used so far, in nanoseconds (allocates: not per command). */
    long pipelineCpuNanos() {
        return cpuNanos(THREAD_PREFIX);
    }

    /** CPU time of the intake stage's thread so far, in nanoseconds. */
    long intakeCpuNanos() {
        return cpuNanos(THREAD_PREFIX + "0");
    }

    private long cpuNanos(final String name) {
        final java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
        long sum = 0;
        for (final Thread t : pipelineThreads) {
            if (name.equals(THREAD_PREFIX) || t.getName().equals(name)) {
                sum += Math.max(0, mx.getThreadCpuTime(t.threadId()));
            }
        }
        return sum;
    }

    /** Thread ids of the caller and the pipeline's stages: every thread a command runs on. */
    public long[] commandThreadIds() {
        final List<Thread> all = new ArrayList<>(pipelineThreads);
        all.addFirst(Thread.currentThread());
        return all.stream().mapToLong(Thread::threadId).toArray();
    }

    @Override
    public void close() {
        pipeline.close();
        arena.close();
    }
}

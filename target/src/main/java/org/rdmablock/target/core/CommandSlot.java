package org.rdmablock.target.core;

import org.rdmablock.protocol.scsi.ScsiCommand;
import org.rdmablock.protocol.scsi.ScsiCompletion;
import org.rdmablock.protocol.scsi.SenseCode;
import org.rdmablock.verbs.MemoryRegion;
import org.rdmablock.verbs.SendFlags;
import org.rdmablock.verbs.SendOpcode;
import org.rdmablock.verbs.SendWorkRequest;

import java.lang.foreign.MemorySegment;

/**
 * Everything one command needs from its arrival to its response, preallocated: the SCSI command context, the
 * initiator's descriptors ({@link DataDescriptor}s, copied out of its request), the RDMA READ chain that fetches
 * data-out, the RDMA WRITE chain that delivers data-in and the SEND of the response, whose buffer is this slot's part
 * of the response region. It moves data and posts; what the response says is the front end's
 * ({@link ResponseEncoder}, its channel's for this slot), and so is how a request fills the slot ({@code SrpCommandLoader}).
 *
 * <p>Life: the intake stage takes a free slot for an IU, fills it and either posts the data-out
 * READs or hands it to a backend thread; the backend thread executes the command and, in {@link #completed}, posts
 * the data-in WRITEs and the response as one chain (RC ordering puts the data before the response); the response's
 * send completion returns the slot to the intake stage, which frees it. Whoever hands the slot to a thread gives it
 * that thread's {@link SendPoster} ({@link #postsThrough}): the poller running the pipeline ({@code backend_threads = 0})
 * batches its posts per duty cycle, every other thread posts at once. One thread touches a slot at a time, handed over
 * through the ring (or {@link ReturnedSlots}), so its fields need no synchronisation.
 */
public final class CommandSlot implements ScsiCompletion {
    /**
     * Descriptors one command may use in each direction: ib_srp's largest {@code cmd_sg_entries} (255) fits, and so
     * does one descriptor per 4 KiB page of a 1 MiB I/O. A longer list is refused (INVALID FIELD IN COMMAND IU).
     */
    public static final int MAX_DESCRIPTORS = 256;
    /** Bytes of the descriptor region per slot: the list copied out of the IU, or the table fetched by RDMA READ. */
    public static final int DESCRIPTOR_BYTES = MAX_DESCRIPTORS * DataDescriptor.LENGTH;
    /**
     * RDMA READs or WRITEs a command posts at a time (a round): the next round follows when the last of this one
     * completes. A command so never holds more than this many send-queue entries plus its response, whatever its
     * descriptor count, and never has more READs outstanding than the negotiated depth (SPDK's RDMA target hung on
     * lists longer than what it could post at once).
     */
    public static final int TRANSFERS_PER_ROUND = 16;
    /** Bytes of the response region per slot: room for the largest response (SRP_RSP: 36 fixed bytes, 4 of response data, up to 252 of sense). */
    static final int RESPONSE_BYTES = 512;

    /** {@link #phase}: not with a backend thread (the intake stage's, or answered). */
    static final int IDLE = 0;
    /** {@link #phase}: handed to a backend thread, not answered yet. */
    static final int IN_BACKEND = 1;
    /**
     * {@link #phase}: answered by the command timeout while the backend call runs on; the slot is freed once both its
     * response has gone and the backend call has returned ({@link #holds}).
     */
    static final int TIMED_OUT = 2;
    private static final java.lang.invoke.VarHandle PHASE;

    static {
        try {
            final java.lang.invoke.MethodHandles.Lookup lookup = java.lang.invoke.MethodHandles.lookup();
            PHASE = lookup.findVarHandle(CommandSlot.class, "phase", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final int index;
    final ScsiCommand command = new ScsiCommand();
    /** A backend call of this command the poller did not make (it would wait), for a blocking-call thread. */
    final org.rdmablock.target.backend.DeferredCall deferredCall = new org.rdmablock.target.backend.DeferredCall();
    /** Where the slot goes back when a post is refused or a dropped command's backend call returns. */
    private final ReturnedSlots returned;
    /** How this slot's posts are made on the thread that runs it now (given by the thread that handed it over). */
    private SendPoster posts;
    private final MemoryRegion responses;
    private final long responseOffset;
    private final MemoryRegion descriptors;
    private final long descriptorOffset;
    private final SendWorkRequest responseSend = new SendWorkRequest(1);
    private final SendWorkRequest[] transfers = new SendWorkRequest[TRANSFERS_PER_ROUND];
    private final DataDescriptor descriptor = new DataDescriptor();

    Channel channel;
    long tag;
    long lunField;
    /** The response goes as SEND_WITH_INV of {@link #invalidateKey} ({@link #invalidateOnResponse}). */
    private boolean invalidates;
    private int invalidateKey;
    /** The initiator's descriptors, in this slot's part of the descriptor region. */
    int descriptorCount;
    /** The first descriptor the next round transfers. */
    int nextDescriptor;
    /** Bytes of the data buffer the rounds so far have covered. */
    long transferred;
    /** Bytes of data-in still to be written (data-in rounds). */
    private long dataInRemaining;
    /** First chunk and chunk count of the data buffer run, or -1 when the command moves no data. */
    int firstChunk = -1;
    int chunkCount;
    /**
     * The region the command's data moves through: the pipeline's data buffers, or an in-place memory LUN's own
     * memory ({@code InPlaceStorage}); {@link #dataOffset} is into it.
     */
    MemoryRegion data;
    long dataOffset;
    long dataOutLength;
    long dataInLength;
    /** Whether the data-out arrives by RDMA READ (true) or came as immediate data or not at all. */
    boolean readsDataOut;
    /** Taken by a command (intake stage's view). */
    boolean inUse;
    /** Aborted by task management: the backend stage drops it if it has not started it. */
    volatile boolean aborted;
    /**
     * Who answers the command: {@link #IDLE}, {@link #IN_BACKEND} or {@link #TIMED_OUT}. The backend thread's
     * completion and the intake stage's timeout race for it by CAS, so that exactly one response goes.
     */
    volatile int phase;
    /**
     * Of a timed-out slot: its response and its backend call, each released on the intake stage (the backend call's
     * through the side queue); the last frees the slot.
     */
    int holds;
    /** When the intake stage handed the command to a backend thread (intake stage only). */
    long readyNanos;
    /** Disconnect the channel once this slot's message has gone (a protocol's logout). */
    boolean disconnectAfter;
    /** Whether the slot holds a command counted in the statistics (not task management, a logout or a credit request). */
    boolean tracked;
    /** The command's kind for the statistics: {@code IoStats.READ}, {@code WRITE} or {@code OTHER}. */
    int kind;
    /** The statistics of the command's LUN, or null when the target does not serve it. */
    org.rdmablock.target.metrics.IoStats lunStats;
    /** When the intake stage took the command's receive completion (intake stage only). */
    long arrivedNanos;
    /**
     * Whether the front end, not a backend, takes the command once its data-out has arrived (a request of its own
     * protocol's that carries data, such as NVMe's Connect): {@link FrontEnd#dataOutArrived}.
     */
    boolean frontEndTakesDataOut;
    /** Whether the descriptor list is outside the request and must be fetched by RDMA READ first. */
    boolean fetchesTable;
    private long tableAddress;
    private int tableKey;
    private int tableLength;
    private long tableTotal;
    // COMPARE AND WRITE's ordering of overlapping writes ({@link WriteGates}; intake stage only)
    /** Its place in the admission order. */
    long gateSeq;
    /** Whether its command was read for the gates, and whether it writes, and is a COMPARE AND WRITE. */
    boolean gateClassified;
    boolean gateWrites;
    boolean gateCaw;
    /** The unit and blocks it writes (first, end exclusive), once classified as a write. */
    Object gateUnit;
    long gateFirst;
    long gateEnd;
    /** Earlier slots it waits for; later slots that wait on it. */
    int gateWait;
    int gateCount;
    /** Whether its data phase ended while it waited; the next parked slot whose wait is over. */
    boolean gateParked;
    CommandSlot gateNext;
    /** The PREEMPT AND ABORT that waits for this slot to be given back, or null (intake stage). */
    TaskAborts.Request drainFor;
    /** Of a post deferred to the end of the poller's cycle ({@link SendBatch}): its chain, length and successor. */
    SendWorkRequest batchChain;
    int batchRequests;
    CommandSlot batchNext;

    CommandSlot(final int index, final ReturnedSlots returned, final MemoryRegion responses, final MemoryRegion descriptors) {
        this.index = index;
        this.returned = returned;
        this.responses = responses;
        this.responseOffset = (long) index * RESPONSE_BYTES;
        this.descriptors = descriptors;
        this.descriptorOffset = (long) index * DESCRIPTOR_BYTES;
        for (int i = 0; i < TRANSFERS_PER_ROUND; i++) {
            transfers[i] = new SendWorkRequest(1);
        }
        command.setCompletion(this);
        command.setAttachment(this);
    }

    // What a front end reads and sets of the command it loads (intake stage).

    /** The slot's index in the pool: its front end's per-slot state is found by it. */
    public int index() {
        return index;
    }

    /** The SCSI command the slot carries. */
    public ScsiCommand command() {
        return command;
    }

    /** The channel of the slot's request. */
    public Channel channel() {
        return channel;
    }

    /** The tag of the slot's request, which its response carries. */
    public long tag() {
        return tag;
    }

    /** The LUN field of the slot's request, as it came (task management matches on it). */
    public long lunField() {
        return lunField;
    }

    /** The data lengths the request's descriptors offer: data-out (to the target) and data-in (to the initiator). */
    public void dataLengths(final long dataOut, final long dataIn) {
        dataOutLength = dataOut;
        dataInLength = dataIn;
    }

    public long dataOutLength() {
        return dataOutLength;
    }

    public long dataInLength() {
        return dataInLength;
    }

    /** Whether the data-out arrives by RDMA READ (true) or came in the request (immediate data) or not at all. */
    public void readsDataOut(final boolean byRead) {
        readsDataOut = byRead;
    }

    public boolean readsDataOut() {
        return readsDataOut;
    }

    /** The memory the command's data moves through, at {@link #dataOffset()}. */
    public MemorySegment dataSegment() {
        return data.segment();
    }

    public long dataOffset() {
        return dataOffset;
    }

    /**
     * Whether task management may abort the slot's command: taken by one, not answered by the timeout, not aborted
     * already.
     */
    public boolean abortable() {
        return inUse && phase != TIMED_OUT && !aborted;
    }

    /** Task management aborted the command: the backend stage drops it if it has not started it. */
    public void abort() {
        aborted = true;
    }

    /** The channel disconnects once this slot's message has gone (a protocol's logout). */
    public void disconnectAfterSending() {
        disconnectAfter = true;
    }

    /** The poster of the thread the slot is handed to: the one its next posts go through. */
    void postsThrough(final SendPoster poster) {
        posts = poster;
    }

    /** The memory of this slot's response buffer, at {@link #responseOffset()}. */
    public MemorySegment responseSegment() {
        return responses.segment();
    }

    public long responseOffset() {
        return responseOffset;
    }

    /** The memory of this slot's descriptor list, at {@link #descriptorOffset()}, {@link #DESCRIPTOR_BYTES} long. */
    public MemorySegment descriptorSegment() {
        return descriptors.segment();
    }

    public long descriptorOffset() {
        return descriptorOffset;
    }

    /**
     * The response's SEND also invalidates {@code key} at the initiator (NVMe/RDMA's remote invalidation: a keyed SGL
     * of subtype "invalidate", which Linux's nvme-rdma asks for on its fast-registered buffers, spares the host a
     * LOCAL_INV of its own): SEND_WITH_INV instead of SEND, as nvmet-rdma answers. Cleared by {@link #begin}.
     */
    public void invalidateOnResponse(final int key) {
        invalidateKey = key;
        invalidates = true;
    }

    /**
     * Starts a command's fields for {@code owner}'s request {@code requestTag}: no data, no descriptors yet (the front
     * end's loader fills them in).
     */
    public void begin(final Channel owner, final long requestTag, final long lun) {
        channel = owner;
        tag = requestTag;
        lunField = lun;
        command.setNexus(owner.nexus).placedBeforeExecute(false);
        firstChunk = -1;
        invalidates = false;
        chunkCount = 0;
        readsDataOut = false;
        frontEndTakesDataOut = false;
        fetchesTable = false;
        descriptorCount = 0;
        nextDescriptor = 0;
        transferred = 0;
        dataOutLength = 0;
        dataInLength = 0;
    }

    /**
     * The command's one descriptor: {@code length} bytes at remote {@code address} under {@code key} (a front end whose
     * requests carry a single remote buffer in a form of their own: NVMe's keyed SGL data block).
     */
    public void singleDescriptor(final long address, final int key, final long length) {
        descriptor(0).set(address, key, length);
        descriptorCount = 1;
    }

    /** The front end, not a backend, takes the command when its data-out has arrived ({@link FrontEnd#dataOutArrived}). */
    public void frontEndTakesDataOut() {
        frontEndTakesDataOut = true;
    }

    /** The command's descriptor list is {@code length} bytes at a remote address: fetched by {@link #postTableRead}. */
    public void fetchTable(final long address, final int key, final int length, final long total) {
        fetchesTable = true;
        tableAddress = address;
        tableKey = key;
        tableLength = length;
        tableTotal = total;
    }

    /**
     * The first {@code count} entries of the descriptor list are the command's; their lengths must add up to
     * {@code total} (as ib_srpt checks). Returns null, or the sense code to fail the command with.
     */
    public SenseCode descriptorsAddUpTo(final int count, final long total) {
        long sum = 0;
        for (int i = 0; i < count; i++) {
            sum += descriptor(i).length();
        }
        descriptorCount = count;
        return sum == total ? null : SenseCode.INVALID_FIELD_IN_COMMAND_INFORMATION_UNIT;
    }

    /** Descriptor {@code i} of the command, through the slot's one flyweight. */
    private DataDescriptor descriptor(final int i) {
        return descriptor.wrap(descriptors.segment(), descriptorOffset + (long) i * DataDescriptor.LENGTH);
    }

    /** Posts the RDMA READ of the external descriptor table into this slot's descriptor area (signaled); never throws. */
    void postTableRead() {
        final SendWorkRequest read = transfers[0];
        read.opcode(SendOpcode.RDMA_READ).remote(tableAddress, tableKey).next(null).flags(SendFlags.SIGNALED)
                .wrId(WorkRequestIds.of(WorkRequestIds.TABLE, channel.id, index));
        read.sgl().clear().add(descriptors, descriptorOffset, tableLength);
        post(read);
    }

    /** The table arrived: takes its descriptors. Returns null, or the sense code to fail the command with. */
    SenseCode tableArrived() {
        fetchesTable = false;
        return descriptorsAddUpTo(tableLength / DataDescriptor.LENGTH, tableTotal);
    }

    /**
     * Points the SCSI command at {@code capacity} bytes of {@code region} from {@code offset} (the slot's data buffer
     * run, or the blocks of an in-place LUN) with the lengths the descriptors offer.
     */
    void attachData(final MemoryRegion region, final long offset, final long capacity) {
        data = region;
        dataOffset = offset;
        command.setDataBuffer(region.segment(), offset, capacity);
        command.setExpectedLengths(dataOutLength, dataInLength);
    }

    /** Whether descriptors remain for another round of data-out READs. */
    boolean moreDataOut() {
        return nextDescriptor < descriptorCount;
    }

    /**
     * Posts the next round of RDMA READs that fetch the data-out into the command's data region: at most
     * {@link #TRANSFERS_PER_ROUND}, and no more than the channel's read depth; the last one is signaled. Never throws:
     * a refused post goes to the side queue.
     */
    void postDataOutReads() {
        final int end = Math.min(descriptorCount, nextDescriptor + Math.min(TRANSFERS_PER_ROUND, channel.readDepth));
        long at = data.address() + dataOffset + transferred;
        for (int i = nextDescriptor; i < end; i++) {
            final SendWorkRequest read = transfers[i - nextDescriptor];
            // Only the last READ, signaled, names the slot: when one fails, each READ of the chain completes (the
            // rest flushed), and the slot must hear of it once; the others' id 0 makes their completions ticks.
            final boolean last = i == end - 1;
            final DataDescriptor d = descriptor(i);
            read.opcode(SendOpcode.RDMA_READ).remote(d.address(), d.key()).next(null)
                    .flags(last ? SendFlags.SIGNALED : 0)
                    .wrId(last ? WorkRequestIds.of(WorkRequestIds.DATA_OUT, channel.id, index) : 0);
            read.sgl().clear().add(at, (int) d.length(), data.lkey());
            if (i > nextDescriptor) {
                transfers[i - nextDescriptor - 1].next(read);
            }
            at += d.length();
        }
        transferred = at - data.address() - dataOffset;
        nextDescriptor = end;
        post(transfers[0]);
    }

    /**
     * The engine finished the command (on a backend thread, or on the intake thread for commands failed before
     * execution): posts the data-in WRITEs, if any, and the response behind them in one chain.
     */
    @Override
    public void completed(final ScsiCommand done) {
        if (phase != IDLE && !PHASE.compareAndSet(this, IN_BACKEND, IDLE)) {
            backendReturned(); // the command timeout answered it meanwhile: this result goes nowhere
            return;
        }
        prepareResponse(channel.encoder(index).commandResponse(this, done));
        dataInRemaining = descriptorCount == 0 ? 0 : done.dataInLength();
        nextDescriptor = 0;
        transferred = 0;
        postDataIn();
    }

    /**
     * Posts the next round of data-in RDMA WRITEs (unsignaled), the response behind them when they are the last; else
     * the round's last WRITE is signaled, and its completion brings the slot back to post the next round (intake).
     */
    void postDataIn() {
        if (dataInRemaining <= 0) {
            post(responseSend);
            return;
        }
        long at = data.address() + dataOffset + transferred;
        SendWorkRequest previous = null;
        int posted = 0;
        while (posted < TRANSFERS_PER_ROUND && nextDescriptor < descriptorCount && dataInRemaining > 0) {
            final DataDescriptor d = descriptor(nextDescriptor++);
            final int length = (int) Math.min(dataInRemaining, d.length());
            final SendWorkRequest write = transfers[posted++];
            write.opcode(SendOpcode.RDMA_WRITE).flags(0).remote(d.address(), d.key()).next(null).wrId(0);
            write.sgl().clear().add(at, length, data.lkey());
            if (previous != null) {
                previous.next(write);
            }
            previous = write;
            at += length;
            dataInRemaining -= length;
        }
        transferred = at - data.address() - dataOffset;
        if (dataInRemaining <= 0 || nextDescriptor == descriptorCount) {
            previous.next(responseSend); // RC ordering: the initiator sees the data before the response
        } else {
            previous.flags(SendFlags.SIGNALED).wrId(WorkRequestIds.of(WorkRequestIds.DATA_IN, channel.id, index));
        }
        post(transfers[0]);
    }

    /** Intake stage: hands the command to a backend thread (through the ring), from now on under the timeout. */
    void handToBackend(final long now) {
        readyNanos = now;
        phase = IN_BACKEND;
    }

    /** Backend thread, for a command it will not execute (aborted): false when the timeout answered it first. */
    boolean leaveBackend() {
        return PHASE.compareAndSet(this, IN_BACKEND, IDLE);
    }

    /**
     * Intake stage: answers a command still with its backend thread after the command timeout: CHECK CONDITION,
     * ABORTED COMMAND, COMMAND TIMEOUT DURING PROCESSING, no data. False when the backend answered first. The slot and
     * its data buffer stay taken until the backend call returns as well.
     */
    boolean answerTimedOut(final SendPoster intakePosts) {
        if (!PHASE.compareAndSet(this, IN_BACKEND, TIMED_OUT)) {
            return false;
        }
        posts = intakePosts; // the backend thread lost the race: it posts nothing more
        holds = 2;
        post(prepareResponse(channel.encoder(index).timeoutResponse(this)));
        return true;
    }

    /** Intake stage, of a timed-out slot: one of its two holds is done; true for the last, whose caller frees the slot. */
    boolean releaseHold() {
        return --holds == 0;
    }

    /** Backend thread: the call of a timed-out command returned; the intake stage takes it through the side queue. */
    void backendReturned() {
        returned.backendReturned(this);
    }

    /** Takes the slot for a message of the front end's own (no command): to {@code owner}, tagged {@code requestTag}. */
    public void takeMessage(final Channel owner, final long requestTag) {
        channel = owner;
        tag = requestTag;
        firstChunk = -1;
        invalidates = false;
    }

    /** Sends the {@code length} bytes the front end wrote into the response buffer; its completion frees the slot. */
    public void sendMessage(final int length) {
        post(prepareResponse(length));
    }

    private SendWorkRequest prepareResponse(final int length) {
        responseSend.opcode(invalidates ? SendOpcode.SEND_WITH_INV : SendOpcode.SEND).invalidateRkey(invalidates ? invalidateKey : 0)
                .flags(SendFlags.SIGNALED).next(null).wrId(WorkRequestIds.of(WorkRequestIds.RESPONSE, channel.id, index));
        responseSend.sgl().clear().add(responses, responseOffset, length);
        return responseSend;
    }

    /** Posts {@code chain} (its last request signalled) through the running thread's poster. */
    private void post(final SendWorkRequest chain) {
        posts.post(this, chain);
    }
}

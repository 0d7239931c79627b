package org.rdmablock.target.srp;

import org.rdmablock.protocol.scsi.ResidualKind;
import org.rdmablock.protocol.scsi.ScsiCommand;
import org.rdmablock.protocol.scsi.ScsiCompletion;
import org.rdmablock.protocol.scsi.SenseCode;
import org.rdmablock.protocol.srp.SrpCommand;
import org.rdmablock.protocol.srp.SrpDirectBuffer;
import org.rdmablock.protocol.srp.SrpIndirectBuffer;
import org.rdmablock.protocol.srp.SrpBufferFormat;
import org.rdmablock.protocol.srp.SrpResponse;
import org.rdmablock.protocol.srp.SrpTargetLogout;
import org.rdmablock.verbs.MemoryRegion;
import org.rdmablock.verbs.SendFlags;
import org.rdmablock.verbs.SendOpcode;
import org.rdmablock.verbs.SendWorkRequest;

/**
 * Everything one SRP command needs from its arrival to its response, preallocated: the SCSI command context, the
 * initiator's descriptors copied out of the IU, the RDMA READ chain that fetches data-out, the RDMA WRITE chain that
 * delivers data-in and the SEND of the response, whose buffer is this slot's part of the response region.
 *
 * <p>Life: the intake stage takes a free slot for an IU, fills it ({@link #load}) and either posts the data-out
 * READs or hands it to a backend thread; the backend thread executes the command and, in {@link #completed}, posts
 * the data-in WRITEs and the response as one chain (RC ordering puts the data before the response); the response's
 * send completion returns the slot to the intake stage, which frees it. One thread touches a slot at a time, handed
 * over through the ring (or the failed-post queue), so its fields need no synchronisation.
 */
final class CommandSlot implements ScsiCompletion {
    /** Descriptors one command may use in each direction (an SRP_CMD IU with Linux's default 12 fits). */
    static final int MAX_DESCRIPTORS = 16;
    /** Bytes of the response region per slot: SRP_RSP's 36 fixed bytes, 4 of response data and sense... */
    static final int RESPONSE_BYTES = 1024;
    /** ...then, at this offset, room for an indirect descriptor table fetched from the initiator. */
    static final int TABLE_OFFSET = 512;

    final int index;
    final ScsiCommand command = new ScsiCommand();
    private final CommandPipeline pipeline;
    private final MemoryRegion responses;
    private final long responseOffset;
    private final SrpResponse response = new SrpResponse();
    private final SrpTargetLogout logout = new SrpTargetLogout();
    private final org.rdmablock.protocol.srp.SrpCreditRequest creditRequest = new org.rdmablock.protocol.srp.SrpCreditRequest();
    private final SendWorkRequest responseSend = new SendWorkRequest(1);
    private final SendWorkRequest[] transfers = new SendWorkRequest[MAX_DESCRIPTORS];
    private final long[] remoteAddress = new long[MAX_DESCRIPTORS];
    private final int[] remoteKey = new int[MAX_DESCRIPTORS];
    private final int[] remoteLength = new int[MAX_DESCRIPTORS];
    private final SrpDirectBuffer direct = new SrpDirectBuffer();
    private final SrpIndirectBuffer indirect = new SrpIndirectBuffer();

    SrpChannel channel;
    long tag;
    long lunField;
    int descriptorCount;
    /** First chunk and chunk count of the data buffer run, or -1 when the command moves no data. */
    int firstChunk = -1;
    int chunkCount;
    long dataOffset;
    long dataOutLength;
    long dataInLength;
    /** Whether the data-out arrives by RDMA READ (true) or came as immediate data or not at all. */
    boolean readsDataOut;
    /** Taken by a command (intake stage's view). */
    boolean inUse;
    /** Aborted by task management: the backend stage drops it if it has not started it. */
    volatile boolean aborted;
    /** Disconnect the channel once this slot's response has gone (SRP_T_LOGOUT). */
    boolean disconnectAfter;
    /** Whether the descriptor table is outside the IU and must be fetched by RDMA READ first (SRP r16a 5.5.4). */
    boolean fetchesTable;
    private long tableAddress;
    private int tableKey;
    private int tableLength;
    private long tableTotal;

    CommandSlot(final int index, final CommandPipeline pipeline, final MemoryRegion responses) {
        this.index = index;
        this.pipeline = pipeline;
        this.responses = responses;
        this.responseOffset = (long) index * RESPONSE_BYTES;
        for (int i = 0; i < MAX_DESCRIPTORS; i++) {
            transfers[i] = new SendWorkRequest(1);
        }
        command.setCompletion(this);
        command.setAttachment(this);
    }

    /**
     * Copies what the command needs out of the IU the intake stage decoded: tag, LUN, CDB and descriptors. Returns
     * null, or the sense code to fail it with when its descriptors cannot be served.
     */
    SenseCode load(final SrpChannel owner, final SrpCommand iu) {
        channel = owner;
        tag = iu.tag();
        lunField = iu.lun();
        firstChunk = -1;
        chunkCount = 0;
        readsDataOut = false;
        descriptorCount = 0;
        dataOutLength = 0;
        dataInLength = 0;
        command.setCdb(iu.segment(), iu.cdbOffsetInSegment(), iu.cdbLength());
        final int outFormat = iu.dataOutFormat();
        final int inFormat = iu.dataInFormat();
        if (outFormat != SrpBufferFormat.NONE && inFormat != SrpBufferFormat.NONE) {
            return SenseCode.INVALID_FIELD_IN_COMMAND_INFORMATION_UNIT; // bidirectional commands: none in SBC
        }
        dataOutLength = iu.dataOutLength();
        dataInLength = iu.dataInLength();
        fetchesTable = iu.dataOutTableIsExternal() || iu.dataInTableIsExternal();
        if (fetchesTable) {
            readsDataOut = outFormat == SrpBufferFormat.INDIRECT;
            final SrpIndirectBuffer table = readsDataOut ? iu.dataOutIndirect(indirect) : iu.dataInIndirect(indirect);
            if (table.tableLength() % SrpDirectBuffer.LENGTH != 0 || table.tableLength() > (long) MAX_DESCRIPTORS * SrpDirectBuffer.LENGTH) {
                return SenseCode.INVALID_FIELD_IN_COMMAND_INFORMATION_UNIT; // more descriptors than a slot carries
            }
            tableAddress = table.tableVirtualAddress();
            tableKey = table.tableKey();
            tableLength = (int) table.tableLength();
            tableTotal = table.totalLength();
            return null;
        }
        if (outFormat == SrpBufferFormat.DIRECT) {
            readsDataOut = true;
            return loadDirect(iu.dataOutDirect(direct));
        } else if (outFormat == SrpBufferFormat.INDIRECT) {
            readsDataOut = true;
            return loadIndirect(iu, iu.dataOutDescriptorOffset(), iu.dataOutIndirect(indirect), iu.dataOutDescriptorCount());
        } else if (inFormat == SrpBufferFormat.DIRECT) {
            return loadDirect(iu.dataInDirect(direct));
        } else if (inFormat == SrpBufferFormat.INDIRECT) {
            return loadIndirect(iu, iu.dataInDescriptorOffset(), iu.dataInIndirect(indirect), iu.dataInDescriptorCount());
        }
        return null;
    }

    private SenseCode loadDirect(final SrpDirectBuffer d) {
        if (d.length() == 0) {
            return null;
        }
        remoteAddress[0] = d.virtualAddress();
        remoteKey[0] = d.key();
        remoteLength[0] = (int) d.length();
        descriptorCount = 1;
        return null;
    }

    private SenseCode loadIndirect(final SrpCommand iu, final int descriptorOffset, final SrpIndirectBuffer table, final int count) {
        if (count > MAX_DESCRIPTORS) {
            return SenseCode.INVALID_FIELD_IN_COMMAND_INFORMATION_UNIT;
        }
        return loadDescriptors(iu.segment(), iu.offset() + descriptorOffset + SrpIndirectBuffer.DESC_LIST_OFFSET, count,
                table.totalLength());
    }

    /** Copies {@code count} direct descriptors at {@code at}; their lengths must add up to {@code total} (as ib_srpt checks). */
    private SenseCode loadDescriptors(final java.lang.foreign.MemorySegment list, final long at, final int count, final long total) {
        long sum = 0;
        for (int i = 0; i < count; i++) {
            direct.wrap(list, at + (long) i * SrpDirectBuffer.LENGTH);
            remoteAddress[i] = direct.virtualAddress();
            remoteKey[i] = direct.key();
            remoteLength[i] = (int) direct.length();
            sum += direct.length();
        }
        descriptorCount = count;
        return sum == total ? null : SenseCode.INVALID_FIELD_IN_COMMAND_INFORMATION_UNIT;
    }

    /** Posts the RDMA READ of the external descriptor table into this slot's table area (signaled). */
    void postTableRead() {
        final SendWorkRequest read = transfers[0];
        read.opcode(SendOpcode.RDMA_READ).remote(tableAddress, tableKey).next(null).flags(SendFlags.SIGNALED)
                .wrId(WorkRequestIds.of(WorkRequestIds.TABLE, channel.id, index));
        read.sgl().clear().add(responses, responseOffset + TABLE_OFFSET, tableLength);
        channel.queuePair.postSend(read);
    }

    /** The table arrived: takes its descriptors. Returns null, or the sense code to fail the command with. */
    SenseCode tableArrived() {
        fetchesTable = false;
        return loadDescriptors(responses.segment(), responseOffset + TABLE_OFFSET, tableLength / SrpDirectBuffer.LENGTH, tableTotal);
    }

    /** Points the SCSI command at this slot's data buffer run with the lengths the descriptors offer. */
    void attachData(final MemoryRegion data, final long offset, final long capacity) {
        dataOffset = offset;
        command.setDataBuffer(data.segment(), offset, capacity);
        command.setExpectedLengths(dataOutLength, dataInLength);
    }

    /** Posts the RDMA READs that fetch the data-out into the data buffer; the last one is signaled. */
    void postDataOutReads(final MemoryRegion data) {
        long at = data.address() + dataOffset;
        for (int i = 0; i < descriptorCount; i++) {
            final SendWorkRequest read = transfers[i];
            // Only the last READ, signaled, names the slot: when one fails, each READ of the chain completes (the
            // rest flushed), and the slot must hear of it once; the others' id 0 makes their completions ticks.
            final boolean last = i == descriptorCount - 1;
            read.opcode(SendOpcode.RDMA_READ).remote(remoteAddress[i], remoteKey[i]).next(null)
                    .flags(last ? SendFlags.SIGNALED : 0)
                    .wrId(last ? WorkRequestIds.of(WorkRequestIds.DATA_OUT, channel.id, index) : 0);
            read.sgl().clear().add(at, remoteLength[i], data.lkey());
            if (i > 0) {
                transfers[i - 1].next(read);
            }
            at += remoteLength[i];
        }
        channel.queuePair.postSend(transfers[0]);
    }

    /**
     * The engine finished the command (on a backend thread, or on the intake thread for commands failed before
     * execution): posts the data-in WRITEs, if any, and the SRP_RSP behind them in one chain.
     */
    @Override
    public void completed(final ScsiCommand done) {
        final SrpChannel ch = channel;
        response.wrap(responses.segment(), responseOffset).reset();
        response.setTag(tag).setRequestLimitDelta(ch.creditsToReturn()).setStatus(done.status());
        if (done.dataInResidualKind() == ResidualKind.UNDERFLOW) {
            response.setDataInUnderflow(done.dataInResidual());
        } else if (done.dataInResidualKind() == ResidualKind.OVERFLOW) {
            response.setDataInOverflow(done.dataInResidual());
        }
        if (done.dataOutResidualKind() == ResidualKind.UNDERFLOW) {
            response.setDataOutUnderflow(done.dataOutResidual());
        } else if (done.dataOutResidualKind() == ResidualKind.OVERFLOW) {
            response.setDataOutOverflow(done.dataOutResidual());
        }
        if (done.senseLength() > 0) {
            response.setSenseData(done.senseData(), 0, done.senseLength(), ch.maxTargetToInitiatorIuLength);
        }
        final SendWorkRequest first = chainDataIn(done.dataInLength(), prepareResponse((int) response.length()));
        post(first);
    }

    /** Answers a task management request with {@code responseCode} (SRP_RSP with RSPVALID). */
    void respondToTaskManagement(final SrpChannel owner, final long requestTag, final int responseCode) {
        channel = owner;
        tag = requestTag;
        firstChunk = -1;
        response.wrap(responses.segment(), responseOffset).reset();
        response.setTag(requestTag).setRequestLimitDelta(owner.creditsToReturn()).setResponseCode(responseCode);
        post(prepareResponse((int) response.length()));
    }

    /** Tells the initiator the target ends the channel (SRP_T_LOGOUT with {@code reason}); disconnects once it has gone. */
    void sendTargetLogout(final SrpChannel owner, final int reason) {
        channel = owner;
        tag = 0;
        firstChunk = -1;
        disconnectAfter = true;
        logout.wrap(responses.segment(), responseOffset).reset();
        logout.setReason(reason);
        post(prepareResponse(SrpTargetLogout.LENGTH));
    }

    /** Gives the initiator {@code delta} credits without a response to carry them (SRP_CRED_REQ). */
    void sendCreditRequest(final SrpChannel owner, final int delta) {
        channel = owner;
        tag = 0;
        firstChunk = -1;
        creditRequest.wrap(responses.segment(), responseOffset).reset();
        creditRequest.setRequestLimitDelta(delta);
        post(prepareResponse(org.rdmablock.protocol.srp.SrpCreditRequest.LENGTH));
    }

    private SendWorkRequest prepareResponse(final int length) {
        responseSend.opcode(SendOpcode.SEND).flags(SendFlags.SIGNALED).next(null)
                .wrId(WorkRequestIds.of(WorkRequestIds.RESPONSE, channel.id, index));
        responseSend.sgl().clear().add(responses, responseOffset, length);
        return responseSend;
    }

    /** Links the WRITEs that carry {@code bytes} of data-in in front of {@code tail}; returns the chain's head. */
    private SendWorkRequest chainDataIn(final long bytes, final SendWorkRequest tail) {
        if (bytes <= 0 || descriptorCount == 0) {
            return tail;
        }
        final MemoryRegion data = pipeline.dataRegion();
        long remaining = bytes;
        long at = data.address() + dataOffset;
        SendWorkRequest head = null;
        SendWorkRequest previous = null;
        for (int i = 0; i < descriptorCount && remaining > 0; i++) {
            final int length = (int) Math.min(remaining, remoteLength[i] & 0xFFFF_FFFFL);
            final SendWorkRequest write = transfers[i];
            write.opcode(SendOpcode.RDMA_WRITE).flags(0).remote(remoteAddress[i], remoteKey[i]).next(null).wrId(0);
            write.sgl().clear().add(at, length, data.lkey());
            if (previous == null) {
                head = write;
            } else {
                previous.next(write);
            }
            previous = write;
            at += length;
            remaining -= length;
        }
        previous.next(tail);
        return head;
    }

    private void post(final SendWorkRequest chain) {
        try {
            channel.queuePair.postSend(chain);
        } catch (RuntimeException e) {
            // The QP is gone or in error: no completion will come, so hand the slot back through the side queue.
            pipeline.postFailed(this, e);
        }
    }
}

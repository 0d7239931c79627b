package org.rdmablock.protocol.scsi;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One SCSI command in flight: the preallocated context a transport fills in and hands to
 * {@link LogicalUnit#execute} or {@link LogicalUnitTable#execute}, and in which it gets the result back.
 * Build one per pipeline slot and reuse it; executing a READ or WRITE allocates nothing.
 *
 * <p>In: the CDB ({@link #setCdb}), the data buffer ({@link #setDataBuffer}: data-out already in it for
 * writes, room for data-in for reads, both starting at the buffer offset), the lengths the transport's
 * descriptors offer in each direction, and the completion callback. Out, when the callback runs:
 * {@link #status()}, {@link #senseData()}/{@link #senseLength()}, {@link #dataInLength()} (bytes placed in
 * the buffer for the initiator), and the residual kind and count in each direction.
 *
 * <p>The engine owns the data buffer while the command executes: WRITE SAME may use all of its capacity
 * as scratch.
 */
public final class ScsiCommand {
    /** Largest CDB accepted (SPC's variable-length limit). */
    public static final int MAX_CDB_LENGTH = 260;
    private static final int INITIAL_SCRATCH = 4096;

    private final MemorySegment cdb = MemorySegment.ofArray(new byte[MAX_CDB_LENGTH]);
    private int cdbLength;
    private MemorySegment data = MemorySegment.NULL;
    private long dataOffset;
    private long dataCapacity;
    private long expectedDataOutLength;
    private long expectedDataInLength;
    private ScsiCompletion completion;
    private Object attachment;
    /** The I_T nexus the command came on, or null from a caller that names none (which reservations never admit). */
    private Nexus nexus;
    /** Whether a transport placed the WRITE's data in the medium before execution (in-place memory LUNs). */
    private boolean placedBeforeExecute;
    /** How PREEMPT AND ABORT reaches the transport's other commands. */
    private TaskSetControl taskSets = TaskSetControl.NONE;

    private int status;
    private final MemorySegment sense = MemorySegment.ofArray(new byte[SenseData.MAX_LENGTH]);
    private int senseLength;
    /** The condition the sense data reports, or null without sense. */
    private SenseCode senseCode;
    private long dataInLength;
    private ResidualKind dataInResidualKind = ResidualKind.NONE;
    private long dataInResidual;
    private ResidualKind dataOutResidualKind = ResidualKind.NONE;
    private long dataOutResidual;
    private boolean dataInAccounted;
    private boolean dataOutAccounted;

    // Engine state for the command in flight.
    final CdbDecoder decoder = new CdbDecoder();
    MemorySegment scratch = Arena.ofAuto().allocate(INITIAL_SCRATCH, 8);
    final BackendCallback backendCallback = new BackendCallback() {
        @Override
        public void completed(final BackendStatus backendStatus) {
            backendCompleted(backendStatus);
        }

        @Override
        public CallDeferral deferral() {
            return deferral;
        }
    };
    /** Where the backend calls that would wait go while the caller must not wait; null when it may. */
    private CallDeferral deferral;
    /** Trampoline for chained backend operations: see {@link LogicalUnit}. */
    final AtomicInteger issueState = new AtomicInteger();
    volatile BackendStatus inlineStatus;
    LogicalUnit unit;
    int pendingOperation;
    long cursor;
    long remaining;
    long chunk;
    MemorySegment source;
    long sourceOffset;
    boolean forceUnitAccess;
    int descriptorIndex;
    int descriptorCount;
    /** Where VERIFY's byte check reads the medium, made at the first such command (this command's alone). */
    MemorySegment compareBuffer;
    /** Bytes of the range VERIFY's byte check found equal before a difference, or -1 while none was found. */
    long miscompareOffset;
    /** Whether COMPARE AND WRITE, its compare equal, has issued its write. */
    boolean compareWriteIssued;
    /** The units the command's initiator sees (what an EXTENDED COPY may name), or null for the executing unit alone. */
    LogicalUnitTable view;
    /** EXTENDED COPY's state, made at the first such command (this command's alone): its parameter list's flyweight,
     *  the units its CSCD descriptors name, and the buffer each chunk passes through. */
    CopyParameterList copyList;
    LogicalUnit[] copyTargets;
    MemorySegment copyBuffer;
    int copyCscdBytes;
    /** The segment being copied: its units, its destination's byte offset (the source's is {@link #cursor}). */
    LogicalUnit copyFrom;
    LogicalUnit copyTo;
    long copyDestination;
    /** Where in the segment the chunk in the copy buffer lies; whether the segment is copied from its end down. */
    long copyChunkAt;
    boolean copyBackward;
    /** Whether the step in flight is a write (else a read), for the sense a backend failure is answered with. */
    boolean copyWriting;

    /** Copies a CDB of {@code length} bytes (at most {@link #MAX_CDB_LENGTH}) from {@code src}. */
    public ScsiCommand setCdb(MemorySegment src, long srcOffset, int length) {
        if (length < 0 || length > MAX_CDB_LENGTH) {
            throw new IllegalArgumentException("CDB length " + length + " is outside 0.." + MAX_CDB_LENGTH);
        }
        MemorySegment.copy(src, srcOffset, cdb, 0, length);
        cdbLength = length;
        return this;
    }

    /** Copies a CDB from a byte array (convenient for tests and tools; the segment form allocates nothing). */
    public ScsiCommand setCdb(byte[] bytes) {
        return setCdb(MemorySegment.ofArray(bytes), 0, bytes.length);
    }

    /** The CDB bytes (a preallocated 260-byte segment; the first {@link #cdbLength()} are valid). */
    public MemorySegment cdb() {
        return cdb;
    }

    public int cdbLength() {
        return cdbLength;
    }

    /**
     * Sets the data buffer: {@code capacity} bytes at {@code offset} in {@code segment}. Data-out is read
     * from, and data-in written to, its start.
     */
    public ScsiCommand setDataBuffer(MemorySegment segment, long offset, long capacity) {
        this.data = Objects.requireNonNull(segment);
        this.dataOffset = offset;
        this.dataCapacity = capacity;
        return this;
    }

    /**
     * Sets the lengths the transport offers: data-out bytes already in the buffer, and data-in bytes the
     * initiator can take. Neither may exceed the buffer capacity.
     */
    public ScsiCommand setExpectedLengths(long dataOutLength, long dataInLength) {
        if (dataOutLength < 0 || dataInLength < 0 || dataOutLength > dataCapacity || dataInLength > dataCapacity) {
            throw new IllegalArgumentException("expected lengths " + dataOutLength + "/" + dataInLength
                    + " do not fit a data buffer of " + dataCapacity + " bytes");
        }
        this.expectedDataOutLength = dataOutLength;
        this.expectedDataInLength = dataInLength;
        return this;
    }

    public ScsiCommand setCompletion(ScsiCompletion completion) {
        this.completion = completion;
        return this;
    }

    /** A free slot for the transport (its pipeline event, say); the engine never touches it. */
    public ScsiCommand setAttachment(Object attachment) {
        this.attachment = attachment;
        return this;
    }

    public Object attachment() {
        return attachment;
    }

    /** The I_T nexus the command arrived on: what persistent reservations register and check. */
    public ScsiCommand setNexus(final Nexus from) {
        this.nexus = from;
        return this;
    }

    public Nexus nexus() {
        return nexus;
    }

    /**
     * Says that the transport already placed this WRITE's data in the medium (it asked {@link LogicalUnit#reachesBackend}
     * first): the unit then answers it as it would have, without a reservation check its data can no longer obey.
     */
    public ScsiCommand placedBeforeExecute(final boolean placed) {
        this.placedBeforeExecute = placed;
        return this;
    }

    boolean placedBeforeExecute() {
        return placedBeforeExecute;
    }

    /** The transport's reach into its other commands, which PREEMPT AND ABORT aborts (set once per command object). */
    public ScsiCommand controlTasksWith(final TaskSetControl control) {
        this.taskSets = java.util.Objects.requireNonNull(control);
        return this;
    }

    TaskSetControl taskSets() {
        return taskSets;
    }

    /** Where calls that would wait go now, or null when this thread may wait ({@link #deferBlockingCallsTo}). */
    CallDeferral deferral() {
        return deferral;
    }

    /**
     * Says, before the command runs on a thread, whether that thread may wait on a device: null when it may (the
     * default); otherwise the {@link CallDeferral} its backend calls that would wait are left in, to be made by a
     * thread that may (which sets null first).
     */
    public ScsiCommand deferBlockingCallsTo(final CallDeferral deferral) {
        this.deferral = deferral;
        return this;
    }

    public MemorySegment dataBuffer() {
        return data;
    }

    public long dataBufferOffset() {
        return dataOffset;
    }

    public long dataBufferCapacity() {
        return dataCapacity;
    }

    public long expectedDataOutLength() {
        return expectedDataOutLength;
    }

    public long expectedDataInLength() {
        return expectedDataInLength;
    }

    /** The SCSI status ({@link ScsiStatus}). */
    public int status() {
        return status;
    }

    /**
     * The condition {@link #senseData()} reports, or null when the command ended without sense: what a transport that
     * answers in other terms than sense (NVMe's status codes) translates.
     */
    public SenseCode senseCode() {
        return senseCode;
    }

    /** The sense buffer; {@link #senseLength()} bytes are valid (0 unless CHECK CONDITION). */
    public MemorySegment senseData() {
        return sense;
    }

    public int senseLength() {
        return senseLength;
    }

    /** Bytes of data-in placed at the start of the data buffer, to send to the initiator. */
    public long dataInLength() {
        return dataInLength;
    }

    public ResidualKind dataInResidualKind() {
        return dataInResidualKind;
    }

    public long dataInResidual() {
        return dataInResidual;
    }

    public ResidualKind dataOutResidualKind() {
        return dataOutResidualKind;
    }

    public long dataOutResidual() {
        return dataOutResidual;
    }

    /** The decoded CDB of the last execution (valid once execution started). */
    public CdbDecoder decoded() {
        return decoder;
    }

    /**
     * Ends the command, without executing it, in CHECK CONDITION with {@code code} (fixed-format sense) and no data
     * moved in either direction: for failures a transport finds before or around the engine (a descriptor it cannot
     * use, an RDMA error while moving data-out, an abort). The completion runs exactly once, on this thread.
     */
    public void failWithoutExecuting(SenseCode code) {
        begin(null);
        checkCondition(SenseFormat.FIXED, code, -1, SenseData.NO_FIELD, false, -1);
    }

    /**
     * Ends the command, without executing it, with a status that carries no sense ({@link ScsiStatus#BUSY},
     * {@link ScsiStatus#TASK_SET_FULL}, {@link ScsiStatus#TASK_ABORTED}) and no data moved.
     */
    public void finishWithStatus(int scsiStatus) {
        begin(null);
        status = scsiStatus;
        complete();
    }

    /**
     * Ends the command, without executing it, GOOD with {@code produced} bytes of data-in that the transport placed in
     * the data buffer itself (an answer of its own protocol's, such as NVMe's Identify data); at most the expected
     * data-in length is transferred.
     */
    public void finishWithDataIn(long produced) {
        begin(null);
        accountDataIn(produced);
        complete();
    }

    // ---- engine side ----

    void begin(LogicalUnit executingUnit) {
        unit = executingUnit;
        status = ScsiStatus.GOOD;
        senseLength = 0;
        senseCode = null;
        dataInLength = 0;
        dataInResidualKind = ResidualKind.NONE;
        dataInResidual = 0;
        dataOutResidualKind = ResidualKind.NONE;
        dataOutResidual = 0;
        dataInAccounted = false;
        dataOutAccounted = false;
        pendingOperation = 0;
        source = null;
    }

    /** Records that the command produces {@code produced} data-in bytes; returns how many to transfer. */
    long accountDataIn(long produced) {
        dataInAccounted = true;
        long transfer = Math.min(produced, expectedDataInLength);
        dataInLength = transfer;
        if (produced < expectedDataInLength) {
            dataInResidualKind = ResidualKind.UNDERFLOW;
            dataInResidual = expectedDataInLength - produced;
        } else if (produced > expectedDataInLength) {
            dataInResidualKind = ResidualKind.OVERFLOW;
            dataInResidual = produced - expectedDataInLength;
        }
        return transfer;
    }

    /**
     * Records that the command consumes {@code needed} data-out bytes. Returns false (and records an
     * overflow) when the transport offered fewer.
     */
    boolean accountDataOut(long needed) {
        dataOutAccounted = true;
        if (needed < expectedDataOutLength) {
            dataOutResidualKind = ResidualKind.UNDERFLOW;
            dataOutResidual = expectedDataOutLength - needed;
        } else if (needed > expectedDataOutLength) {
            dataOutResidualKind = ResidualKind.OVERFLOW;
            dataOutResidual = needed - expectedDataOutLength;
            return false;
        }
        return true;
    }

    /** Makes room for a {@code length}-byte response in {@link #scratch} (grows only for huge LUN lists). */
    MemorySegment scratch(long length) {
        if (scratch.byteSize() < length) {
            scratch = Arena.ofAuto().allocate(length, 8);
        }
        scratch.asSlice(0, length).fill((byte) 0);
        return scratch;
    }

    /** Sends {@code min(length, allocationLength)} response bytes from scratch as data-in, then GOOD. */
    void completeWithData(int length, long allocationLength) {
        long transfer = accountDataIn(Math.min(length, allocationLength));
        MemorySegment.copy(scratch, 0, data, dataOffset, transfer);
        complete();
    }

    /** Ends the command in RESERVATION CONFLICT: no sense, no data (SPC-4 5.13.1). */
    void reservationConflict() {
        dataInAccounted = false;
        dataInResidualKind = ResidualKind.NONE;
        dataInResidual = 0;
        status = ScsiStatus.RESERVATION_CONFLICT;
        complete();
    }

    void checkCondition(SenseFormat format, SenseCode code, long information, int field, boolean inCdb, int bit) {
        status = ScsiStatus.CHECK_CONDITION;
        // A failed command returns no data-in, whatever it had planned to send.
        dataInAccounted = false;
        dataInResidualKind = ResidualKind.NONE;
        dataInResidual = 0;
        senseLength = SenseData.write(sense, 0, format, code, information, field, inCdb, bit);
        senseCode = code;
        complete();
    }

    void complete() {
        // A command that moved no data in a direction leaves all the offered bytes of it unused.
        if (!dataInAccounted) {
            accountDataIn(0);
        }
        if (!dataOutAccounted) {
            accountDataOut(0);
        }
        ScsiCompletion callback = completion;
        if (callback != null) {
            callback.completed(this);
        }
    }

    private void backendCompleted(BackendStatus backendStatus) {
        unit.backendCompleted(this, backendStatus);
    }
}

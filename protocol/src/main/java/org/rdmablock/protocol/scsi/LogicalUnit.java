package org.rdmablock.protocol.scsi;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

import static org.rdmablock.protocol.scsi.BigEndian.get16;
import static org.rdmablock.protocol.scsi.BigEndian.get32;
import static org.rdmablock.protocol.scsi.BigEndian.get64;
import static org.rdmablock.protocol.scsi.BigEndian.put32;
import static org.rdmablock.protocol.scsi.BigEndian.put64;
import static org.rdmablock.protocol.scsi.BigEndian.put8;

/**
 * The SCSI block-command engine for one logical unit over a {@link BlockBackend}: the piece a target's
 * pipeline calls once per command. Transport-free: it sees a CDB, a data buffer and the lengths the
 * transport offers, and answers with status, sense and residuals through {@link ScsiCompletion}.
 *
 * <p>Commands: TEST UNIT READY, REQUEST SENSE, INQUIRY (standard; VPD 0x00, 0x80, 0x83, 0xB0, 0xB1, 0xB2),
 * MODE SENSE/SELECT (6)/(10) (caching, control, all pages), START STOP UNIT, PREVENT ALLOW MEDIUM
 * REMOVAL, READ CAPACITY (10)/(16), READ and WRITE (6)/(10)/(12)/(16) with FUA, VERIFY (10)/(16) of the
 * medium or with a byte check against the data-out (BYTCHK 01b and 11b), COMPARE AND WRITE, SYNCHRONIZE CACHE (10)/(16), WRITE SAME
 * (10)/(16) with UNMAP and NDOB, UNMAP, REPORT LUNS, REPORT SUPPORTED OPERATION CODES, PERSISTENT RESERVE IN and OUT
 * and SPC-2's RESERVE(6) and RELEASE(6) ({@link PersistentReservations}), EXTENDED COPY(LID1) between the units of the
 * initiator's table and RECEIVE COPY RESULTS' operating parameters ({@link ThirdPartyCopyData}), REPORT TARGET PORT
 * GROUPS (implicit ALUA: {@link TargetPortGroups}, whose standby and unavailable states refuse most commands with NOT
 * READY). Anything else is CHECK
 * CONDITION, ILLEGAL REQUEST, INVALID COMMAND OPERATION CODE.
 *
 * <p>Durability: with the write cache enabled, writes complete when the backend has them and SYNCHRONIZE
 * CACHE flushes; FUA writes, and every write while the cache is disabled, ask the backend for
 * force-unit-access.
 *
 * <p>Thread safety: {@link #execute} may be called from several threads at once with different
 * {@link ScsiCommand}s; the only shared mutable state is the two mode-page bits, which are volatile.
 * READ and WRITE allocate nothing.
 */
public final class LogicalUnit {
    static final int OP_READ = 1;
    static final int OP_WRITE = 2;
    static final int OP_FLUSH = 3;
    static final int OP_UNMAP_DESCRIPTORS = 4;
    static final int OP_WRITE_SAME = 5;
    static final int OP_UNMAP_RANGE = 6;
    static final int OP_COMPARE = 7;
    static final int OP_COMPARE_AND_WRITE = 8;
    static final int OP_EXTENDED_COPY = 9;

    private static final int ISSUING = 1;
    private static final int COMPLETED_INLINE = 2;
    private static final int ASYNC = 3;
    private static final int UNMAP_HEADER = 8;
    private static final int UNMAP_DESCRIPTOR = 16;
    /**
     * Source of zero-pattern WRITE SAME: 64 KiB of zeroes, a whole number of blocks for every block size the
     * config allows (at most 4096), shared by all units because nothing writes it.
     */
    private static final MemorySegment ZEROES = Arena.global().allocate(1 << 16, 4096).asReadOnly();
    /** WRITE SAME repeats its block over at most this much of the data buffer per backend write. */
    private static final long WRITE_SAME_CHUNK_BYTES = 1 << 20;
    /** GET LBA STATUS's parameter data (SBC-4 5.8.2): its header, then one descriptor per run of blocks. */
    private static final int LBA_STATUS_LENGTH_OFFSET = 0;
    private static final int LBA_STATUS_HEADER = 8;
    private static final int LBA_STATUS_DESCRIPTOR = 16;
    private static final int LBA_STATUS_BLOCKS_OFFSET = 8;
    private static final int LBA_STATUS_PROVISIONING_OFFSET = 12;
    private static final int PROVISIONING_MAPPED = 0;
    private static final int PROVISIONING_DEALLOCATED = 1;
    /** At most this many descriptors per answer; the initiator asks again from the LBA after the last. */
    private static final int LBA_STATUS_MAX_DESCRIPTORS = 256;
    /** At most this many backend runs looked at per answer, so that one command's work is bounded. */
    private static final int LBA_STATUS_MAX_RUNS = 1 << 16;
    /** VERIFY's byte check reads the medium this much at a time into the command's own compare buffer. */
    static final int COMPARE_CHUNK_BYTES = 1 << 16;
    /** EXTENDED COPY reads, then writes, this much at a time through the command's own copy buffer. */
    static final int COPY_CHUNK_BYTES = 1 << 18;

    private final LogicalUnitConfig config;
    private final BlockBackend backend;
    /** Changed in place by {@link #changeCapacity} (a LUN resized while served); read once per command. */
    private volatile long blockCount;
    private final int blockShift;
    private final long maxTransferBlocks;
    private final Object modeSelectLock = new Object();
    private volatile boolean writeCacheEnabled;
    private volatile boolean descriptorSense;
    /** Starts as the config's read-only; {@link #writeProtect} changes it while the unit serves. */
    private volatile boolean writeProtected;
    private final int lun;
    private volatile LogicalUnitTable table;
    private final PersistentReservations reservations;

    /** A logical unit numbered 0 over {@code backend}. */
    public LogicalUnit(LogicalUnitConfig config, BlockBackend backend) {
        this(0, config, backend);
    }

    /** A logical unit numbered {@code lun} (what REPORT LUNS lists when it stands alone). */
    public LogicalUnit(int lun, LogicalUnitConfig config, BlockBackend backend) {
        this.lun = lun;
        this.reservations = new PersistentReservations(lun);
        this.config = Objects.requireNonNull(config);
        this.backend = Objects.requireNonNull(backend);
        if (config.thinProvisioning() && !backend.supportsUnmap()) {
            throw new IllegalArgumentException("thin provisioning needs a backend that supports unmap");
        }
        this.blockShift = Integer.numberOfTrailingZeros(config.blockSize());
        this.blockCount = backend.sizeBytes() >>> blockShift;
        if (blockCount < 1) {
            throw new IllegalArgumentException("the backend holds less than one block");
        }
        this.maxTransferBlocks = config.maxTransferBytes() >>> blockShift;
        this.writeCacheEnabled = config.writeCacheEnabled();
        this.descriptorSense = config.descriptorSense();
        this.writeProtected = config.readOnly();
    }

    public LogicalUnitConfig config() {
        return config;
    }

    /** This unit's LUN number. */
    public int lun() {
        return lun;
    }

    /** Capacity in logical blocks. */
    public long blockCount() {
        return blockCount;
    }

    /**
     * Changes the capacity to {@code blocks} while the unit serves (a LUN resized): READ CAPACITY and the range checks
     * of commands that begin from now on see the new one. The caller grows the backend first, or shrinks it after the
     * commands begun before this call are done, and raises CAPACITY DATA HAS CHANGED for the I_T nexuses that see it.
     */
    public void changeCapacity(long blocks) {
        if (blocks < 1) {
            throw new IllegalArgumentException("a unit holds at least one block, not " + blocks);
        }
        blockCount = blocks;
    }

    /** Whether writes are refused with WRITE PROTECTED (and MODE SENSE reports WP). */
    public boolean writeProtected() {
        return writeProtected;
    }

    /**
     * Refuses (or again accepts) writes from the next command on: a LUN made read-only, or writable again, while it
     * serves. Writable needs a backend opened for writing; the caller knows.
     */
    public void writeProtect(boolean refuseWrites) {
        writeProtected = refuseWrites;
    }

    /** The unit's persistent and SPC-2 reservations. */
    public PersistentReservations reservations() {
        return reservations;
    }

    /** The storage this unit reads and writes. */
    public BlockBackend backend() {
        return backend;
    }

    /**
     * Whether the READ or WRITE that {@code d} decoded would reach the backend as a transfer of
     * {@code d.transferLength()} blocks from {@code d.lba()}: more than zero blocks, within the transfer limit and the
     * medium, and not a write to a read-only unit. A transport that places a WRITE's data before the command executes
     * (the target's in-place memory LUNs) asks this first, so that no command this unit refuses has touched storage:
     * a command from {@code nexus} that a reservation refuses does not reach it either.
     */
    public boolean reachesBackend(CdbDecoder d, Nexus nexus) {
        CommandKind kind = d.kind();
        return (kind == CommandKind.READ || kind == CommandKind.WRITE && !writeProtected)
                && d.transferLength() > 0 && d.transferLength() <= maxTransferBlocks && !outOfRange(d.lba(), d.transferLength())
                && !reservations.refuses(nexus, d);
    }

    /**
     * The most blocks one COMPARE AND WRITE takes (Block Limits VPD byte 5): its compare is one read of the compare
     * buffer, and both halves of its data-out fit a transfer.
     */
    public int maxCompareAndWriteBlocks() {
        return (int) Math.min(255, Math.min(COMPARE_CHUNK_BYTES >>> blockShift, maxTransferBlocks / 2));
    }

    /** Maximum blocks per READ/WRITE, as the Block Limits VPD page reports it. */
    public long maxTransferBlocks() {
        return maxTransferBlocks;
    }

    public boolean writeCacheEnabled() {
        return writeCacheEnabled;
    }

    void setWriteCacheEnabled(boolean enabled) {
        writeCacheEnabled = enabled;
    }

    /** Whether CHECK CONDITION carries descriptor-format sense (control mode page D_SENSE). */
    public boolean descriptorSense() {
        return descriptorSense;
    }

    void setDescriptorSense(boolean enabled) {
        descriptorSense = enabled;
    }

    boolean unmappedReadsZero() {
        return backend.unmapReadsZeroes();
    }

    void attach(LogicalUnitTable owner) {
        this.table = owner;
    }

    private SenseFormat senseFormat() {
        return descriptorSense ? SenseFormat.DESCRIPTOR : SenseFormat.FIXED;
    }

    /**
     * Executes {@code cmd}; its completion callback runs exactly once, possibly before this method
     * returns. Never throws for any CDB or data content.
     */
    public void execute(ScsiCommand cmd) {
        execute(cmd, null);
    }

    /**
     * Executes {@code cmd} arriving through {@code view}, the table of the units its initiator sees (the units an
     * EXTENDED COPY may name); null for this unit alone.
     */
    void execute(ScsiCommand cmd, LogicalUnitTable view) {
        cmd.begin(this);
        cmd.view = view;
        CdbDecoder d = cmd.decoder;
        if (!d.decode(cmd.cdb(), 0, cmd.cdbLength())) {
            cmd.checkCondition(senseFormat(), d.error(), -1, d.errorField(), true, d.errorBit());
            return;
        }
        Nexus nexus = cmd.nexus();
        if (nexus != null) {
            TargetPortGroups ports = nexus.registry().portGroups(); // one volatile read; all active unless configured
            if (!ports.allActive()) {
                TargetPortGroups.AccessState state = ports.stateOf(nexus.relativeTargetPort());
                if (!TargetPortGroups.allows(state, d.kind())) {
                    cmd.checkCondition(senseFormat(), TargetPortGroups.refusal(state), -1, SenseData.NO_FIELD, false, -1);
                    return;
                }
            }
        }
        PersistentReservations.State reserved = reservations.reserved(); // null, one volatile read, while none exists
        if (reserved != null && !cmd.placedBeforeExecute() && PersistentReservations.conflicts(reserved, cmd.nexus(), d)) {
            cmd.reservationConflict();
            return;
        }
        switch (d.kind()) {
            case TEST_UNIT_READY, START_STOP_UNIT, PREVENT_ALLOW_MEDIUM_REMOVAL -> cmd.complete();
            case REQUEST_SENSE -> requestSense(cmd, d, SenseCode.NO_ADDITIONAL_SENSE);
            case INQUIRY -> inquiry(cmd, d);
            case MODE_SENSE -> modeSense(cmd, d);
            case MODE_SELECT -> modeSelect(cmd, d);
            case READ_CAPACITY_10 -> readCapacity10(cmd);
            case READ_CAPACITY_16 -> readCapacity16(cmd, d);
            case GET_LBA_STATUS -> getLbaStatus(cmd, d);
            case READ -> read(cmd, d);
            case WRITE -> write(cmd, d);
            case VERIFY -> verify(cmd, d);
            case COMPARE_AND_WRITE -> compareAndWrite(cmd, d);
            case SYNCHRONIZE_CACHE -> synchronizeCache(cmd, d);
            case WRITE_SAME -> writeSame(cmd, d);
            case UNMAP -> unmap(cmd, d);
            case REPORT_LUNS -> reportLuns(cmd, d);
            case REPORT_SUPPORTED_OPERATION_CODES -> reportSupportedOperationCodes(cmd, d);
            case REPORT_TARGET_PORT_GROUPS -> {
                TargetPortGroups ports = nexus != null ? nexus.registry().portGroups() : TargetPortGroups.SINGLE;
                MemorySegment out = cmd.scratch(ports.reportLength());
                cmd.completeWithData(ports.report(out, d.has(CdbDecoder.EXTENDED_HEADER)), d.allocationLength());
            }
            case PERSISTENT_RESERVE_IN -> reservations.in(cmd, d);
            case PERSISTENT_RESERVE_OUT, RESERVE, RELEASE -> reserveOrRelease(cmd, d);
            case EXTENDED_COPY -> extendedCopy(cmd, d);
            case RECEIVE_COPY_RESULTS -> {
                MemorySegment out = cmd.scratch(64);
                cmd.completeWithData(ThirdPartyCopyData.operatingParameters(out), d.allocationLength());
            }
        }
    }

    private void reserveOrRelease(ScsiCommand cmd, CdbDecoder d) {
        if (cmd.nexus() == null) {
            // a caller that names no I_T nexus (a tool driving the engine directly) has nothing to register or reserve
            cmd.checkCondition(senseFormat(), SenseCode.INVALID_COMMAND_OPERATION_CODE, -1, 0, true, -1);
            return;
        }
        switch (d.kind()) {
            case RESERVE, RELEASE -> reservations.spc2(cmd, d.kind() == CommandKind.RESERVE);
            default -> {
                CallDeferral deferral = cmd.deferral();
                if (deferral != null && reservations.writesStore(d, cmd.dataBuffer(), cmd.dataBufferOffset(),
                        cmd.expectedDataOutLength())) {
                    SenseFormat format = senseFormat();
                    deferral.deferCall(() -> reservations.out(cmd, d, format)); // its fsync waits on a device
                    return;
                }
                reservations.out(cmd, d, senseFormat());
            }
        }
    }

    // ---- commands without data movement to the backend ----

    /**
     * Answers REQUEST SENSE with {@code code} in the format the CDB asks for. Sense travels with each CHECK
     * CONDITION (autosense), so nothing is ever pending: a unit answers NO ADDITIONAL SENSE, the table for an
     * absent LUN LOGICAL UNIT NOT SUPPORTED.
     */
    static void requestSense(ScsiCommand cmd, CdbDecoder d, SenseCode code) {
        SenseFormat format = d.has(CdbDecoder.DESC) ? SenseFormat.DESCRIPTOR : SenseFormat.FIXED;
        MemorySegment out = cmd.scratch(SenseData.MAX_LENGTH);
        cmd.completeWithData(SenseData.write(out, 0, format, code), d.allocationLength());
    }

    private void inquiry(ScsiCommand cmd, CdbDecoder d) {
        MemorySegment out = cmd.scratch(512);
        int length = d.has(CdbDecoder.EVPD) ? InquiryData.vpd(out, d.pageCode(), this, cmd.nexus()) : InquiryData.standard(out, config);
        if (length < 0) {
            invalidField(cmd, 2, -1);
            return;
        }
        cmd.completeWithData(length, d.allocationLength());
    }

    private void modeSense(ScsiCommand cmd, CdbDecoder d) {
        MemorySegment out = cmd.scratch(256);
        ModePages.Failure failure = new ModePages.Failure();
        int length = ModePages.sense(out, d, this, failure);
        if (length < 0) {
            cmd.checkCondition(senseFormat(), failure.code, -1, failure.field, failure.inCdb, failure.bit);
            return;
        }
        cmd.completeWithData(length, d.allocationLength());
    }

    private void modeSelect(ScsiCommand cmd, CdbDecoder d) {
        int length = (int) d.parameterListLength();
        if (!cmd.accountDataOut(length)) {
            invalidField(cmd, d.opcode() == ScsiOpcode.MODE_SELECT_10 ? 7 : 4, -1);
            return;
        }
        ModePages.Failure failure = new ModePages.Failure();
        synchronized (modeSelectLock) {
            // Serialise MODE SELECTs so that check-then-apply is atomic against each other.
            if (!ModePages.select(cmd.dataBuffer(), cmd.dataBufferOffset(), length,
                    d.opcode() == ScsiOpcode.MODE_SELECT_10, this, cmd.scratch(64), failure)) {
                cmd.checkCondition(senseFormat(), failure.code, -1, failure.field, failure.inCdb, failure.bit);
                return;
            }
        }
        cmd.complete();
    }

    private void readCapacity10(ScsiCommand cmd) {
        MemorySegment out = cmd.scratch(8);
        // A capacity past 32 bits reports 0xFFFFFFFF: the initiator must ask READ CAPACITY(16).
        put32(out, 0, Math.min(blockCount - 1, 0xFFFF_FFFFL)); // one read of the volatile
        put32(out, 4, config.blockSize());
        cmd.completeWithData(8, 8);
    }

    private void readCapacity16(ScsiCommand cmd, CdbDecoder d) {
        MemorySegment out = cmd.scratch(32);
        put64(out, 0, blockCount - 1);
        put32(out, 8, config.blockSize());
        put8(out, 13, config.physicalBlockExponent());
        if (config.thinProvisioning()) {
            put8(out, 14, 0x80 | (backend.unmapReadsZeroes() ? 0x40 : 0));   // LBPME, LBPRZ
        }
        cmd.completeWithData(32, d.allocationLength());
    }

    /**
     * GET LBA STATUS (SBC-4 5.8): a descriptor per run of mapped or deallocated blocks from the starting LBA on, as the
     * backend knows them ({@link BlockBackend#provisioning}); asking the backend may wait on the device, so a caller that
     * must not wait has it made where it may.
     */
    private void getLbaStatus(ScsiCommand cmd, CdbDecoder d) {
        if (Long.compareUnsigned(d.lba(), blockCount) >= 0) {
            lbaOutOfRange(cmd);
            return;
        }
        long lba = d.lba();
        long allocation = d.allocationLength();
        CallDeferral deferral = cmd.deferral();
        if (deferral != null) {
            deferral.deferCall(() -> answerLbaStatus(cmd, lba, allocation));
            return;
        }
        answerLbaStatus(cmd, lba, allocation);
    }

    private void answerLbaStatus(ScsiCommand cmd, long lba, long allocation) {
        int most = (int) Math.max(1, Math.min(LBA_STATUS_MAX_DESCRIPTORS, (allocation - LBA_STATUS_HEADER) / LBA_STATUS_DESCRIPTOR));
        MemorySegment out = cmd.scratch(LBA_STATUS_HEADER + (long) most * LBA_STATUS_DESCRIPTOR);
        long capacity = blockCount;
        long at = lba;
        int count = 0;
        long lastStatus = -1;
        long lastBlocks = 0;
        for (int runs = 0; at < capacity && runs < LBA_STATUS_MAX_RUNS; runs++) {
            long run = backend.provisioning(at << blockShift, (capacity - at) << blockShift);
            long blocks = run >= 0 ? (run + config.blockSize() - 1) >>> blockShift : -run >>> blockShift;
            int status = run < 0 && blocks > 0 ? PROVISIONING_DEALLOCATED : PROVISIONING_MAPPED;
            blocks = Math.min(Math.max(1, blocks), capacity - at); // a partly written block counts as mapped
            long descriptor = LBA_STATUS_HEADER + (long) (count - 1) * LBA_STATUS_DESCRIPTOR;
            if (status == lastStatus && lastBlocks + blocks <= 0xFFFF_FFFFL) {
                lastBlocks += blocks;
                put32(out, descriptor + LBA_STATUS_BLOCKS_OFFSET, lastBlocks);
            } else if (count < most) {
                descriptor += LBA_STATUS_DESCRIPTOR;
                count++;
                put64(out, descriptor, at);
                put32(out, descriptor + LBA_STATUS_BLOCKS_OFFSET, Math.min(blocks, 0xFFFF_FFFFL));
                put8(out, descriptor + LBA_STATUS_PROVISIONING_OFFSET, status);
                lastStatus = status;
                lastBlocks = Math.min(blocks, 0xFFFF_FFFFL);
                blocks = lastBlocks;
            } else {
                break;
            }
            at += blocks;
        }
        int length = LBA_STATUS_HEADER + count * LBA_STATUS_DESCRIPTOR;
        put32(out, LBA_STATUS_LENGTH_OFFSET, length - 4); // the bytes after the length field
        cmd.completeWithData(length, allocation);
    }

    private void reportLuns(ScsiCommand cmd, CdbDecoder d) {
        if (table != null) {
            table.reportLuns(cmd, d);
            return;
        }
        MemorySegment out = cmd.scratch(16);
        put32(out, 0, 8);
        put64(out, 8, LunAddress.encode(lun));
        cmd.completeWithData(16, d.allocationLength());
    }

    private void reportSupportedOperationCodes(ScsiCommand cmd, CdbDecoder d) {
        MemorySegment out = cmd.scratch(SupportedOperationCodes.maxLength());
        int length = SupportedOperationCodes.write(out, d);
        if (length < 0) {
            invalidField(cmd, 3, -1);
            return;
        }
        cmd.completeWithData(length, d.allocationLength());
    }

    private void verify(ScsiCommand cmd, CdbDecoder d) {
        if (!checkTransfer(cmd, d)) {
            return;
        }
        int byteCheck = d.byteCheck();
        if (byteCheck == CdbDecoder.BYTCHK_NONE) {
            // verifying the medium needs no work on a backend that reports its own errors
            cmd.complete();
            return;
        }
        long blocks = d.transferLength();
        long needed = blocks == 0 ? 0
                : byteCheck == CdbDecoder.BYTCHK_ONE_BLOCK ? config.blockSize() : blocks << blockShift;
        if (!cmd.accountDataOut(needed)) {
            invalidField(cmd, transferLengthField(d.opcode()), -1);
            return;
        }
        if (blocks == 0) {
            cmd.complete(); // SBC-4: a VERIFICATION LENGTH of zero verifies nothing, and is no error
            return;
        }
        startCompare(cmd, OP_COMPARE, d.lba(), blocks);
    }

    /** Starts the chain that reads {@code blocks} from {@code lba} a compare chunk at a time and compares each. */
    private void startCompare(ScsiCommand cmd, int operation, long lba, long blocks) {
        if (cmd.compareBuffer == null) {
            cmd.compareBuffer = Arena.ofAuto().allocate(COMPARE_CHUNK_BYTES, 4096); // once per command object
        }
        cmd.pendingOperation = operation;
        cmd.cursor = lba << blockShift;
        cmd.remaining = blocks << blockShift;
        cmd.sourceOffset = 0;
        cmd.chunk = 0;
        cmd.miscompareOffset = -1;
        cmd.compareWriteIssued = false;
        issueChain(cmd);
    }

    /**
     * COMPARE AND WRITE (SBC-4 5.3): reads the blocks, compares them with the first half of the data-out (the verify
     * instance) and, when equal, writes the second half (the write instance); MISCOMPARE with the first differing
     * byte's offset otherwise. Uninterrupted only as far as the caller orders the unit's other writes around it: the
     * target's pipeline holds every overlapping write back from admission to completion ({@code WriteGates}).
     */
    private void compareAndWrite(ScsiCommand cmd, CdbDecoder d) {
        if (refusedAsReadOnly(cmd)) {
            return;
        }
        long blocks = d.transferLength();
        if (blocks == 0) {
            cmd.complete(); // SBC-4: zero blocks compare and write nothing, and are no error
            return;
        }
        if (blocks > maxCompareAndWriteBlocks()) {
            invalidField(cmd, 13, -1);
            return;
        }
        if (outOfRange(d.lba(), blocks)) {
            lbaOutOfRange(cmd);
            return;
        }
        if (!cmd.accountDataOut(2 * (blocks << blockShift))) {
            invalidField(cmd, 13, -1); // the initiator offered less than both instances
            return;
        }
        startCompare(cmd, OP_COMPARE_AND_WRITE, d.lba(), blocks);
    }

    /**
     * Compares the {@code cmd.chunk} medium bytes just read with the data-out they stand against (the same bytes of it,
     * or its one block again and again); false, with {@code cmd.miscompareOffset} set, at the first difference.
     */
    private boolean compareChunk(ScsiCommand cmd) {
        MemorySegment data = cmd.dataBuffer();
        long base = cmd.dataBufferOffset();
        boolean oneBlock = cmd.decoder.byteCheck() == CdbDecoder.BYTCHK_ONE_BLOCK;
        long step = oneBlock ? config.blockSize() : cmd.chunk;
        for (long at = 0; at < cmd.chunk; at += step) {
            long expected = oneBlock ? base : base + cmd.sourceOffset + at;
            long differs = MemorySegment.mismatch(cmd.compareBuffer, at, at + step, data, expected, expected + step);
            if (differs >= 0) {
                cmd.miscompareOffset = cmd.sourceOffset + at + differs;
                return false;
            }
        }
        cmd.sourceOffset += cmd.chunk;
        cmd.chunk = 0;
        return true;
    }

    // ---- commands that reach the backend ----

    private void read(ScsiCommand cmd, CdbDecoder d) {
        if (!checkTransfer(cmd, d)) {
            return;
        }
        long transfer = cmd.accountDataIn(d.transferLength() << blockShift);
        if (transfer == 0) {
            cmd.complete();
            return;
        }
        cmd.pendingOperation = OP_READ;
        backend.read(d.lba() << blockShift, cmd.dataBuffer(), cmd.dataBufferOffset(), (int) transfer, cmd.backendCallback);
    }

    private void write(ScsiCommand cmd, CdbDecoder d) {
        if (refusedAsReadOnly(cmd)) {
            return;
        }
        if (!checkTransfer(cmd, d)) {
            return;
        }
        long needed = d.transferLength() << blockShift;
        if (!cmd.accountDataOut(needed)) {
            // The initiator offered less data than the CDB writes: refuse rather than write part of it.
            invalidField(cmd, transferLengthField(d.opcode()), -1);
            return;
        }
        if (needed == 0) {
            cmd.complete();
            return;
        }
        cmd.pendingOperation = OP_WRITE;
        backend.write(d.lba() << blockShift, cmd.dataBuffer(), cmd.dataBufferOffset(), (int) needed,
                d.has(CdbDecoder.FUA) || !writeCacheEnabled, cmd.backendCallback);
    }

    private void synchronizeCache(ScsiCommand cmd, CdbDecoder d) {
        // Zero blocks means "to the end of the medium"; the backend flushes everything either way.
        if (outOfRange(d.lba(), d.transferLength())) {
            lbaOutOfRange(cmd);
            return;
        }
        cmd.pendingOperation = OP_FLUSH;
        backend.flush(cmd.backendCallback);
    }

    private void writeSame(ScsiCommand cmd, CdbDecoder d) {
        if (refusedAsReadOnly(cmd)) {
            return;
        }
        long blocks = d.transferLength();
        int lengthField = transferLengthField(d.opcode());
        if (blocks == 0 || blocks > config.maxWriteSameBlocks()) {
            // WSNZ=1: zero means "to the end" in SBC, which we decline; the limit is in VPD 0xB0.
            invalidField(cmd, lengthField, -1);
            return;
        }
        if (outOfRange(d.lba(), blocks)) {
            lbaOutOfRange(cmd);
            return;
        }
        boolean unmapBit = d.has(CdbDecoder.UNMAP_BIT);
        if (unmapBit && !config.thinProvisioning()) {
            invalidField(cmd, 1, 3);
            return;
        }
        boolean zeroPattern;
        if (d.has(CdbDecoder.NDOB)) {
            cmd.accountDataOut(0);
            zeroPattern = true;
        } else {
            if (!cmd.accountDataOut(config.blockSize())) {
                invalidField(cmd, lengthField, -1);
                return;
            }
            zeroPattern = isZero(cmd.dataBuffer(), cmd.dataBufferOffset(), config.blockSize());
        }
        long deviceOffset = d.lba() << blockShift;
        long bytes = blocks << blockShift;
        if (unmapBit && zeroPattern && backend.unmapReadsZeroes()) {
            cmd.pendingOperation = OP_UNMAP_RANGE;
            backend.unmap(deviceOffset, bytes, cmd.backendCallback);
            return;
        }
        cmd.pendingOperation = OP_WRITE_SAME;
        cmd.cursor = deviceOffset;
        cmd.remaining = bytes;
        cmd.forceUnitAccess = !writeCacheEnabled;
        if (zeroPattern) {
            cmd.source = ZEROES;
            cmd.sourceOffset = 0;
            cmd.chunk = ZEROES.byteSize();
        } else {
            // Repeat the block across the data buffer (as far as the command needs) so that each backend write
            // covers many blocks.
            long capacityBlocks = Math.max(1, Math.min(blocks, Math.min(cmd.dataBufferCapacity(), WRITE_SAME_CHUNK_BYTES) >>> blockShift));
            for (long i = 1; i < capacityBlocks; i++) {
                MemorySegment.copy(cmd.dataBuffer(), cmd.dataBufferOffset(), cmd.dataBuffer(),
                        cmd.dataBufferOffset() + (i << blockShift), config.blockSize());
            }
            cmd.source = cmd.dataBuffer();
            cmd.sourceOffset = cmd.dataBufferOffset();
            cmd.chunk = capacityBlocks << blockShift;
        }
        issueChain(cmd);
    }

    private void unmap(ScsiCommand cmd, CdbDecoder d) {
        if (!config.thinProvisioning()) {
            cmd.checkCondition(senseFormat(), SenseCode.INVALID_COMMAND_OPERATION_CODE, -1, 0, true, -1);
            return;
        }
        if (refusedAsReadOnly(cmd)) {
            return;
        }
        int length = (int) d.parameterListLength();
        if (!cmd.accountDataOut(length)) {
            invalidField(cmd, 7, -1);
            return;
        }
        if (length == 0) {
            cmd.complete();
            return;
        }
        if (length < UNMAP_HEADER) {
            parameterError(cmd, SenseCode.PARAMETER_LIST_LENGTH_ERROR, SenseData.NO_FIELD);
            return;
        }
        MemorySegment data = cmd.dataBuffer();
        long base = cmd.dataBufferOffset();
        int descriptorBytes = Math.min(length - UNMAP_HEADER, get16(data, base + 2));
        int count = descriptorBytes / UNMAP_DESCRIPTOR;
        if (count > config.maxUnmapDescriptors()) {
            parameterError(cmd, SenseCode.INVALID_FIELD_IN_PARAMETER_LIST, 2);
            return;
        }
        long total = 0;
        for (int i = 0; i < count; i++) {
            long at = base + UNMAP_HEADER + (long) i * UNMAP_DESCRIPTOR;
            long lba = get64(data, at);
            long blocks = get32(data, at + 8);
            if (outOfRange(lba, blocks)) {
                lbaOutOfRange(cmd);
                return;
            }
            total += blocks;
            if (total > config.maxUnmapBlocks()) {
                parameterError(cmd, SenseCode.INVALID_FIELD_IN_PARAMETER_LIST, UNMAP_HEADER + i * UNMAP_DESCRIPTOR + 8);
                return;
            }
        }
        cmd.pendingOperation = OP_UNMAP_DESCRIPTORS;
        cmd.descriptorIndex = 0;
        cmd.descriptorCount = count;
        issueChain(cmd);
    }

    /**
     * EXTENDED COPY(LID1) (SPC-4 6.4): checks the whole parameter list first (every copy target found among the units
     * the initiator sees, by the NAA designator of its Device Identification page; every segment within both units'
     * media; the destination writable and neither unit reserved against this nexus), so that a refused copy writes
     * nothing; then copies segment after segment through the command's copy buffer, backwards where a segment's
     * destination overlaps its source from above. No data crosses the wire. Uninterrupted against COMPARE AND WRITE as
     * far as the caller orders writes around it: the target's pipeline counts it a write to every unit.
     */
    private void extendedCopy(ScsiCommand cmd, CdbDecoder d) {
        long length = d.parameterListLength();
        if (!cmd.accountDataOut(length)) {
            invalidField(cmd, 10, -1);
            return;
        }
        if (length == 0) {
            cmd.complete(); // SPC-4: a PARAMETER LIST LENGTH of zero copies nothing, and is no error
            return;
        }
        if (length < CopyParameterList.HEADER_LENGTH) {
            parameterError(cmd, SenseCode.PARAMETER_LIST_LENGTH_ERROR, SenseData.NO_FIELD);
            return;
        }
        if (cmd.copyList == null) {
            cmd.copyList = new CopyParameterList(); // once per command object, with its copy buffer
            cmd.copyTargets = new LogicalUnit[ThirdPartyCopyData.MAX_CSCD_DESCRIPTORS];
            cmd.copyBuffer = Arena.ofAuto().allocate(COPY_CHUNK_BYTES, 4096);
        }
        CopyParameterList list = cmd.copyList.wrap(cmd.dataBuffer(), cmd.dataBufferOffset());
        int cscdBytes = list.cscdListLength();
        long segmentBytes = list.segmentListLength();
        if (list.inlineDataLength() != 0) {
            parameterError(cmd, SenseCode.INVALID_FIELD_IN_PARAMETER_LIST, CopyParameterList.INLINE_DATA_LENGTH_OFFSET);
            return;
        }
        if (cscdBytes > ThirdPartyCopyData.MAX_CSCD_DESCRIPTORS * CopyParameterList.CSCD_LENGTH) {
            parameterError(cmd, SenseCode.TOO_MANY_TARGET_DESCRIPTORS, SenseData.NO_FIELD);
            return;
        }
        if (segmentBytes > (long) ThirdPartyCopyData.MAX_SEGMENT_DESCRIPTORS * CopyParameterList.SEGMENT_BLOCK_TO_BLOCK_LENGTH) {
            parameterError(cmd, SenseCode.TOO_MANY_SEGMENT_DESCRIPTORS, SenseData.NO_FIELD);
            return;
        }
        if (CopyParameterList.HEADER_LENGTH + cscdBytes + segmentBytes > length) {
            parameterError(cmd, SenseCode.PARAMETER_LIST_LENGTH_ERROR, SenseData.NO_FIELD);
            return;
        }
        if (cscdBytes % CopyParameterList.CSCD_LENGTH != 0) {
            // every CSCD type this manager could serve is 32 bytes long
            parameterError(cmd, SenseCode.UNSUPPORTED_TARGET_DESCRIPTOR_TYPE_CODE,
                    (int) CopyParameterList.cscdAt(cscdBytes / CopyParameterList.CSCD_LENGTH));
            return;
        }
        if (segmentBytes % CopyParameterList.SEGMENT_BLOCK_TO_BLOCK_LENGTH != 0) {
            parameterError(cmd, SenseCode.UNSUPPORTED_SEGMENT_DESCRIPTOR_TYPE_CODE, (int) CopyParameterList.segmentAt(cscdBytes,
                    (int) (segmentBytes / CopyParameterList.SEGMENT_BLOCK_TO_BLOCK_LENGTH)));
            return;
        }
        int cscds = cscdBytes / CopyParameterList.CSCD_LENGTH;
        for (int i = 0; i < cscds; i++) {
            if (!resolveCopyTarget(cmd, list, i)) {
                return;
            }
        }
        int segments = (int) (segmentBytes / CopyParameterList.SEGMENT_BLOCK_TO_BLOCK_LENGTH);
        for (int i = 0; i < segments; i++) {
            if (!checkSegment(cmd, list, cscdBytes, cscds, i)) {
                return;
            }
        }
        cmd.pendingOperation = OP_EXTENDED_COPY;
        cmd.copyCscdBytes = cscdBytes;
        cmd.descriptorIndex = 0;
        cmd.descriptorCount = segments;
        cmd.remaining = 0;
        cmd.chunk = 0;
        issueChain(cmd);
    }

    /** Finds the unit CSCD descriptor {@code index} names, into {@code cmd.copyTargets}; false, answered, when none. */
    private boolean resolveCopyTarget(ScsiCommand cmd, CopyParameterList list, int index) {
        long at = CopyParameterList.cscdAt(index);
        if (list.u8(at + CopyParameterList.CSCD_TYPE_OFFSET) != CopyParameterList.CSCD_IDENTIFICATION) {
            parameterError(cmd, SenseCode.UNSUPPORTED_TARGET_DESCRIPTOR_TYPE_CODE, (int) at);
            return false;
        }
        if ((list.u8(at + CopyParameterList.CSCD_DEVICE_TYPE_OFFSET) & 0x3F) != 0) {
            // NUL set, or a peripheral device type other than a block device's
            parameterError(cmd, SenseCode.INVALID_FIELD_IN_PARAMETER_LIST, (int) at + CopyParameterList.CSCD_DEVICE_TYPE_OFFSET);
            return false;
        }
        long designation = at + CopyParameterList.CSCD_DESIGNATION_OFFSET;
        LogicalUnitTable view = cmd.view;
        LogicalUnit unit = view != null ? view.withNaa(list, designation) : naaMatches(list, designation) ? this : null;
        if (unit == null) {
            parameterError(cmd, SenseCode.COPY_TARGET_DEVICE_NOT_REACHABLE, SenseData.NO_FIELD);
            return false;
        }
        if (list.diskBlockLength(at) != unit.config.blockSize()) {
            parameterError(cmd, SenseCode.INVALID_FIELD_IN_PARAMETER_LIST, (int) at + CopyParameterList.CSCD_BLOCK_LENGTH_OFFSET);
            return false;
        }
        cmd.copyTargets[index] = unit;
        return true;
    }

    /**
     * Whether the designation descriptor at {@code at} of {@code list} is this unit's NAA designator (a binary NAA
     * designator of the logical unit, as VPD 83h lists it).
     */
    boolean naaMatches(CopyParameterList list, long at) {
        int length = list.u8(at + CopyParameterList.DESIGNATION_LENGTH_OFFSET);
        int type = list.u8(at + CopyParameterList.DESIGNATION_TYPE_OFFSET);
        if ((list.u8(at + CopyParameterList.DESIGNATION_CODE_SET_OFFSET) & 0x0F) != CopyParameterList.CODE_SET_BINARY
                || (type & 0x30) != 0 || (type & 0x0F) != CopyParameterList.DESIGNATOR_NAA || length != config.naaLength()) {
            return false;
        }
        for (int i = 0; i < length; i++) {
            if ((byte) list.u8(at + CopyParameterList.DESIGNATION_HEADER + i) != config.naaByte(i)) {
                return false;
            }
        }
        return true;
    }

    /** Checks segment descriptor {@code index} against its copy targets; false, answered, when it cannot be copied. */
    private boolean checkSegment(ScsiCommand cmd, CopyParameterList list, int cscdBytes, int cscds, int index) {
        long at = CopyParameterList.segmentAt(cscdBytes, index);
        if (list.u8(at + CopyParameterList.SEGMENT_TYPE_OFFSET) != CopyParameterList.SEGMENT_BLOCK_TO_BLOCK) {
            parameterError(cmd, SenseCode.UNSUPPORTED_SEGMENT_DESCRIPTOR_TYPE_CODE, (int) at);
            return false;
        }
        if (list.u16(at + CopyParameterList.SEGMENT_DESCRIPTOR_LENGTH_OFFSET)
                != CopyParameterList.SEGMENT_BLOCK_TO_BLOCK_LENGTH - 4) {
            parameterError(cmd, SenseCode.INVALID_FIELD_IN_PARAMETER_LIST, (int) at + CopyParameterList.SEGMENT_DESCRIPTOR_LENGTH_OFFSET);
            return false;
        }
        int source = list.u16(at + CopyParameterList.SEGMENT_SOURCE_OFFSET);
        int destination = list.u16(at + CopyParameterList.SEGMENT_DESTINATION_OFFSET);
        if (source >= cscds || destination >= cscds) {
            parameterError(cmd, SenseCode.INVALID_FIELD_IN_PARAMETER_LIST, (int) at
                    + (source >= cscds ? CopyParameterList.SEGMENT_SOURCE_OFFSET : CopyParameterList.SEGMENT_DESTINATION_OFFSET));
            return false;
        }
        LogicalUnit from = cmd.copyTargets[source];
        LogicalUnit to = cmd.copyTargets[destination];
        if (from.blockShift != to.blockShift) {
            parameterError(cmd, SenseCode.INVALID_FIELD_IN_PARAMETER_LIST, (int) at + CopyParameterList.SEGMENT_DESTINATION_OFFSET);
            return false;
        }
        long blocks = list.u16(at + CopyParameterList.SEGMENT_BLOCKS_OFFSET);
        if (blocks << from.blockShift > ThirdPartyCopyData.MAX_SEGMENT_BYTES) {
            parameterError(cmd, SenseCode.INVALID_FIELD_IN_PARAMETER_LIST, (int) at + CopyParameterList.SEGMENT_BLOCKS_OFFSET);
            return false;
        }
        if (from.outOfRange(list.u64(at + CopyParameterList.SEGMENT_SOURCE_LBA_OFFSET), blocks)
                || to.outOfRange(list.u64(at + CopyParameterList.SEGMENT_DESTINATION_LBA_OFFSET), blocks)) {
            lbaOutOfRange(cmd);
            return false;
        }
        if (to.writeProtected) {
            parameterError(cmd, SenseCode.WRITE_PROTECTED, SenseData.NO_FIELD);
            return false;
        }
        if (from.reservations.refuses(cmd.nexus(), ReservationTable.Access.READ_LIKE)
                || to.reservations.refuses(cmd.nexus(), ReservationTable.Access.WRITE_LIKE)) {
            cmd.reservationConflict();
            return false;
        }
        return true;
    }

    /**
     * One step of EXTENDED COPY: the write of the chunk just read, else the read of the next chunk (of this segment, or
     * of the next one with blocks); false when every segment is copied.
     */
    private boolean issueCopyStep(ScsiCommand cmd) {
        if (cmd.chunk > 0) {
            long length = cmd.chunk;
            cmd.chunk = 0;
            cmd.copyWriting = true;
            LogicalUnit to = cmd.copyTo;
            cmd.issueState.set(ISSUING);
            to.backend.write(cmd.copyDestination + cmd.copyChunkAt, cmd.copyBuffer, 0, (int) length, !to.writeCacheEnabled,
                    cmd.backendCallback);
            return true;
        }
        while (cmd.remaining == 0) {
            if (cmd.descriptorIndex == cmd.descriptorCount) {
                return false;
            }
            startSegment(cmd, cmd.descriptorIndex++);
        }
        long length = Math.min(COPY_CHUNK_BYTES, cmd.remaining);
        cmd.copyChunkAt = cmd.copyBackward ? cmd.sourceOffset + cmd.remaining - length : cmd.sourceOffset;
        if (!cmd.copyBackward) {
            cmd.sourceOffset += length;
        }
        cmd.remaining -= length;
        cmd.chunk = length;
        cmd.copyWriting = false;
        cmd.issueState.set(ISSUING);
        cmd.copyFrom.backend.read(cmd.cursor + cmd.copyChunkAt, cmd.copyBuffer, 0, (int) length, cmd.backendCallback);
        return true;
    }

    /** Loads segment {@code index} (checked already) into the command's copy state. */
    private static void startSegment(ScsiCommand cmd, int index) {
        CopyParameterList list = cmd.copyList;
        long at = CopyParameterList.segmentAt(cmd.copyCscdBytes, index);
        LogicalUnit from = cmd.copyTargets[list.u16(at + CopyParameterList.SEGMENT_SOURCE_OFFSET)];
        LogicalUnit to = cmd.copyTargets[list.u16(at + CopyParameterList.SEGMENT_DESTINATION_OFFSET)];
        long bytes = (long) list.u16(at + CopyParameterList.SEGMENT_BLOCKS_OFFSET) << from.blockShift;
        cmd.copyFrom = from;
        cmd.copyTo = to;
        cmd.cursor = list.u64(at + CopyParameterList.SEGMENT_SOURCE_LBA_OFFSET) << from.blockShift;
        cmd.copyDestination = list.u64(at + CopyParameterList.SEGMENT_DESTINATION_LBA_OFFSET) << to.blockShift;
        cmd.remaining = bytes;
        cmd.sourceOffset = 0;
        // a destination inside the source's range, above its start: copied from the end down, as memmove does
        cmd.copyBackward = from == to && cmd.copyDestination > cmd.cursor && cmd.copyDestination < cmd.cursor + bytes;
    }

    // ---- backend completion and chained operations ----

    /**
     * Issues the next backend operations of a multi-step command (UNMAP descriptors, WRITE SAME chunks,
     * the medium reads of VERIFY's byte check, each compared before the next is issued).
     * A trampoline: when the backend completes inline, the loop goes on here instead of recursing through
     * the callback, so a long chain cannot overflow the stack; when it completes later, the callback
     * resumes the chain.
     */
    private void issueChain(ScsiCommand cmd) {
        while (true) {
            if (!issueNext(cmd)) {
                finishChain(cmd);
                return;
            }
            if (cmd.issueState.compareAndSet(ISSUING, ASYNC)) {
                return;
            }
            BackendStatus status = cmd.inlineStatus;
            if (status != BackendStatus.OK) {
                backendFailed(cmd, status);
                return;
            }
        }
    }

    /** A chain is done: VERIFY's byte check answers a difference it found, everything else is GOOD. */
    private void finishChain(ScsiCommand cmd) {
        if ((cmd.pendingOperation == OP_COMPARE || cmd.pendingOperation == OP_COMPARE_AND_WRITE) && cmd.miscompareOffset >= 0) {
            // SBC-4 5.29: INFORMATION is the offset of the first byte that was not equal
            cmd.checkCondition(senseFormat(), SenseCode.MISCOMPARE_DURING_VERIFY_OPERATION, cmd.miscompareOffset,
                    SenseData.NO_FIELD, false, -1);
            return;
        }
        cmd.complete();
    }

    /** Issues one step; false when the chain is finished. */
    private boolean issueNext(ScsiCommand cmd) {
        if (cmd.pendingOperation == OP_EXTENDED_COPY) {
            return issueCopyStep(cmd);
        }
        if (cmd.pendingOperation == OP_COMPARE || cmd.pendingOperation == OP_COMPARE_AND_WRITE) {
            if (cmd.chunk > 0 && !compareChunk(cmd)) {
                return false;
            }
            if (cmd.remaining == 0) {
                return cmd.pendingOperation == OP_COMPARE_AND_WRITE && issueCompareWrite(cmd);
            }
            long length = Math.min(COMPARE_CHUNK_BYTES, cmd.remaining);
            long at = cmd.cursor;
            cmd.cursor += length;
            cmd.remaining -= length;
            cmd.chunk = length;
            cmd.issueState.set(ISSUING);
            backend.read(at, cmd.compareBuffer, 0, (int) length, cmd.backendCallback);
            return true;
        }
        if (cmd.pendingOperation == OP_WRITE_SAME) {
            if (cmd.remaining == 0) {
                return false;
            }
            long length = Math.min(cmd.chunk, cmd.remaining);
            long at = cmd.cursor;
            cmd.cursor += length;
            cmd.remaining -= length;
            cmd.issueState.set(ISSUING);
            backend.write(at, cmd.source, cmd.sourceOffset, (int) length, cmd.forceUnitAccess, cmd.backendCallback);
            return true;
        }
        while (cmd.descriptorIndex < cmd.descriptorCount) {
            long at = cmd.dataBufferOffset() + UNMAP_HEADER + (long) cmd.descriptorIndex * UNMAP_DESCRIPTOR;
            cmd.descriptorIndex++;
            long blocks = get32(cmd.dataBuffer(), at + 8);
            if (blocks != 0) {
                cmd.issueState.set(ISSUING);
                backend.unmap(get64(cmd.dataBuffer(), at) << blockShift, blocks << blockShift, cmd.backendCallback);
                return true;
            }
        }
        return false;
    }

    /** COMPARE AND WRITE compared equal: writes the write instance, once; false when it was written already. */
    private boolean issueCompareWrite(ScsiCommand cmd) {
        if (cmd.compareWriteIssued) {
            return false;
        }
        cmd.compareWriteIssued = true;
        CdbDecoder d = cmd.decoder;
        long bytes = d.transferLength() << blockShift;
        cmd.issueState.set(ISSUING);
        backend.write(d.lba() << blockShift, cmd.dataBuffer(), cmd.dataBufferOffset() + bytes, (int) bytes,
                d.has(CdbDecoder.FUA) || !writeCacheEnabled, cmd.backendCallback);
        return true;
    }

    void backendCompleted(ScsiCommand cmd, BackendStatus status) {
        int operation = cmd.pendingOperation;
        if (operation == OP_WRITE_SAME || operation == OP_UNMAP_DESCRIPTORS || operation == OP_COMPARE
                || operation == OP_COMPARE_AND_WRITE || operation == OP_EXTENDED_COPY) {
            if (cmd.issueState.get() == ISSUING) {
                cmd.inlineStatus = status;
                if (cmd.issueState.compareAndSet(ISSUING, COMPLETED_INLINE)) {
                    return;
                }
            }
            if (status != BackendStatus.OK) {
                backendFailed(cmd, status);
                return;
            }
            issueChain(cmd);
            return;
        }
        if (status != BackendStatus.OK) {
            backendFailed(cmd, status);
            return;
        }
        cmd.complete();
    }

    private void backendFailed(ScsiCommand cmd, BackendStatus status) {
        SenseCode code = switch (status) {
            case IO_ERROR -> cmd.pendingOperation == OP_READ || cmd.pendingOperation == OP_COMPARE
                    || cmd.pendingOperation == OP_COMPARE_AND_WRITE && !cmd.compareWriteIssued
                    || cmd.pendingOperation == OP_EXTENDED_COPY && !cmd.copyWriting
                    ? SenseCode.UNRECOVERED_READ_ERROR : SenseCode.WRITE_ERROR;
            case NO_SPACE -> SenseCode.SPACE_ALLOCATION_FAILED_WRITE_PROTECT;
            default -> SenseCode.INTERNAL_TARGET_FAILURE;
        };
        long information = cmd.pendingOperation == OP_READ || cmd.pendingOperation == OP_WRITE ? cmd.decoder.lba() : -1;
        cmd.checkCondition(senseFormat(), code, information, SenseData.NO_FIELD, false, -1);
    }

    // ---- checks ----

    /** LBA range and transfer-length limit of READ, WRITE and VERIFY. */
    private boolean checkTransfer(ScsiCommand cmd, CdbDecoder d) {
        if (d.transferLength() > maxTransferBlocks) {
            invalidField(cmd, transferLengthField(d.opcode()), -1);
            return false;
        }
        if (outOfRange(d.lba(), d.transferLength())) {
            lbaOutOfRange(cmd);
            return false;
        }
        return true;
    }

    /** Whether {@code blocks} blocks from {@code lba} (unsigned) run past the last block. */
    private boolean outOfRange(long lba, long blocks) {
        long capacity = blockCount; // one read: a resize may change it between two
        return Long.compareUnsigned(lba, capacity) > 0 || blocks > capacity - lba;
    }

    /** Answers WRITE PROTECTED when the unit is read-only; true when it did. */
    private boolean refusedAsReadOnly(ScsiCommand cmd) {
        if (writeProtected) {
            parameterError(cmd, SenseCode.WRITE_PROTECTED, SenseData.NO_FIELD);
            return true;
        }
        return false;
    }

    private void lbaOutOfRange(ScsiCommand cmd) {
        cmd.checkCondition(senseFormat(), SenseCode.LBA_OUT_OF_RANGE, -1, SenseData.NO_FIELD, false, -1);
    }

    private void invalidField(ScsiCommand cmd, int field, int bit) {
        cmd.checkCondition(senseFormat(), SenseCode.INVALID_FIELD_IN_CDB, -1, field, true, bit);
    }

    private void parameterError(ScsiCommand cmd, SenseCode code, int field) {
        cmd.checkCondition(senseFormat(), code, -1, field, false, -1);
    }

    /** The CDB byte where each READ/WRITE/WRITE SAME/VERIFY variant keeps its transfer length. */
    private static int transferLengthField(int opcode) {
        return switch (opcode >>> 5) {
            case 0 -> 4;
            case 1, 2 -> 7;
            case 5 -> 6;
            default -> 10;
        };
    }

    private static boolean isZero(MemorySegment data, long offset, int length) {
        for (int i = 0; i < length; i += 8) {
            if (get64(data, offset + i) != 0) {
                return false;
            }
        }
        return true;
    }
}

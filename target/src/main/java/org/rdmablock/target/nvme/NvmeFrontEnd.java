package org.rdmablock.target.nvme;

import org.rdmablock.protocol.nvme.NvmeCapsuleDecoder;
import org.rdmablock.protocol.nvme.NvmeDsmRange;
import org.rdmablock.protocol.nvme.NvmeFeature;
import org.rdmablock.protocol.nvme.NvmeGetLogPage;
import org.rdmablock.protocol.nvme.NvmeIdentify;
import org.rdmablock.protocol.nvme.NvmeOpcode;
import org.rdmablock.protocol.nvme.NvmeRegister;
import org.rdmablock.protocol.nvme.NvmeSglDescriptor;
import org.rdmablock.protocol.nvme.NvmeStatus;
import org.rdmablock.protocol.nvme.NvmeSubmission;
import org.rdmablock.protocol.nvme.NvmfCommandType;
import org.rdmablock.protocol.nvme.NvmfConnectCommand;
import org.rdmablock.protocol.nvme.NvmfConnectData;
import org.rdmablock.protocol.nvme.NvmfPropertyCommand;
import org.rdmablock.protocol.scsi.CdbWriter;
import org.rdmablock.protocol.scsi.LogicalUnit;
import org.rdmablock.protocol.scsi.LunAddress;
import org.rdmablock.target.config.InitiatorPortId;
import org.rdmablock.target.config.NvmeConfig;
import org.rdmablock.target.core.Channel;
import org.rdmablock.target.core.CommandSlot;
import org.rdmablock.target.core.CommandStatistics;
import org.rdmablock.target.core.DataPhase;
import org.rdmablock.target.core.DataRoom;
import org.rdmablock.target.core.FrontEnd;
import org.rdmablock.target.core.PipelineEvent;
import org.rdmablock.target.core.SlotPool;
import org.rdmablock.target.metrics.IoStats;
import org.rdmablock.target.metrics.SessionStats;
import org.rdmablock.target.metrics.TargetStatistics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * The NVMe over Fabrics front end on the core's intake stage: decodes each command capsule through
 * {@code protocol/nvme}'s flyweights ({@link NvmeCapsuleDecoder} first, so a bad capsule never reaches a read outside
 * what arrived) and acts on it. Fabrics Connect makes or joins a controller ({@link NvmeController}); Property Get / Set,
 * Identify, Get Log Page, Get / Set Features, Keep Alive, Abort and Asynchronous Event Request are answered here on the
 * admin queue; the I/O commands Read, Write, Compare, Flush, Write Zeroes and Dataset Management (deallocate) become
 * the SBC commands the core executes on the namespace's logical unit (READ / WRITE (16) with FUA, VERIFY (16) with
 * BYTCHK 01b, SYNCHRONIZE CACHE (16), WRITE SAME (16) with NDOB, UNMAP), so that they share the SRP path's backends,
 * in-place LUNs, blocking-call threads, timeouts and statistics. Every refusal is an NVMe status (Do Not Retry where the
 * same command would fail again); a capsule shorter than an entry breaks its queue, which is disconnected, as is a queue
 * whose host sends far more commands than its entries without waiting for their completions ({@link #OVERRUN_FACTOR}).
 * On each tick it ends the controllers whose keep-alive timer ran out or whose admin queue went, with their queues.
 *
 * <p>Thread: the intake stage's, but for {@link #hasWork} (the poller).
 */
final class NvmeFrontEnd implements FrontEnd {
    private static final Logger LOG = LoggerFactory.getLogger(NvmeFrontEnd.class);
    /** Entries an admin queue may have (Linux's NVME_AQ_DEPTH; nvmet's NVMET_AQ_DEPTH). */
    static final int MAX_ADMIN_ENTRIES = 32;
    /**
     * A queue holding this many times its entries in commands is disconnected (SPDK's nvmf/rdma disconnects a qpair past
     * its depth): its host sends without waiting for completions. Not once: a command is held until its response SEND
     * completes here, which may be after the host has its completion and has used the entry again.
     */
    static final int OVERRUN_FACTOR = 2;
    /** I/O queues one controller may have. */
    static final int MAX_IO_QUEUES = 64;

    private final NvmeCapsuleDecoder decoder = new NvmeCapsuleDecoder();
    private final NvmfConnectCommand connect = new NvmfConnectCommand();
    private final NvmfConnectData connectData = new NvmfConnectData();
    private final NvmfPropertyCommand property = new NvmfPropertyCommand();
    private final NvmeIdentify identify = new NvmeIdentify();
    private final NvmeGetLogPage getLogPage = new NvmeGetLogPage();
    private final NvmeDsmRange range = new NvmeDsmRange();
    /** The CDB an I/O command becomes, written here and copied into its slot. */
    private final MemorySegment cdb = MemorySegment.ofArray(new byte[CdbWriter.LENGTH_16]);
    /** TEST UNIT READY: what a slot of the front end's own commands carries, so nothing takes it for an I/O. */
    private final MemorySegment noCdb = MemorySegment.ofArray(new byte[6]);
    private final NvmeResponses[] responses;
    /** The Connect fields of an admin queue's Connect whose data is being read, by slot; and which slots hold one. */
    private final boolean[] connecting;
    private final int[] connectQueueSize;
    private final long[] connectKeepAlive;
    private final SlotPool slots;
    private final DataRoom room;
    private final CommandStatistics commands;
    private final TargetStatistics statistics;
    private final NvmeTarget.Listening listening;
    private final NvmeAdminPages pages;
    /** Controllers by id (1 to {@link NvmfConnectData#CNTLID_MAX}), and the live ones. */
    private final NvmeController[] byId = new NvmeController[NvmfConnectData.CNTLID_MAX + 1];
    private final List<NvmeController> live = new ArrayList<>();
    /** Set by {@link #namespacesChanged} (any thread): the next tick tells every controller. */
    private final java.util.concurrent.atomic.AtomicBoolean namespacesChanged = new java.util.concurrent.atomic.AtomicBoolean();
    private int nextId = NvmfConnectData.CNTLID_MIN;

    NvmeFrontEnd(final CoreParts core, final NvmeTarget.Listening listening, final int queueEntries) {
        this.slots = core.slots();
        this.responses = NvmeResponses.forSlots(slots.all());
        this.connecting = new boolean[slots.all().length];
        this.connectQueueSize = new int[slots.all().length];
        this.connectKeepAlive = new long[slots.all().length];
        this.room = core.room();
        this.commands = core.commands();
        this.statistics = core.statistics();
        this.listening = listening;
        this.pages = new NvmeAdminPages(room.maxIoSize(), queueEntries);
    }

    /**
     * Any thread: the namespaces changed (a LUN added, removed or resized); each controller completes an outstanding
     * Asynchronous Event Request with Namespace Attribute Changed (when its host enabled that notice), and its Changed
     * Namespace List log page lists them.
     */
    void namespacesChanged() {
        namespacesChanged.set(true);
    }

    @Override
    public boolean hasWork() {
        return namespacesChanged.get();
    }

    @Override
    public boolean serves(final Channel channel) {
        return channel instanceof NvmeQueue;
    }

    @Override
    public org.rdmablock.target.core.ResponseEncoder[] responseEncoders() {
        return responses;
    }

    @Override
    public boolean received(final Channel received, final int receiveIndex, final int length, final PipelineEvent event,
                            final long arrivedNanos) {
        final NvmeQueue queue = (NvmeQueue) received; // the NVMe target enters NVMe queues only
        queue.entryTaken(); // first: the completion this capsule may get at once reports the head past it
        final boolean taken = capsule(queue, receiveIndex, length, event, arrivedNanos);
        if (!taken) {
            queue.entryReturned(); // it waits, and is offered again
        }
        return taken;
    }

    private boolean capsule(final NvmeQueue queue, final int receiveIndex, final int length, final PipelineEvent event,
                            final long arrivedNanos) {
        if (!slots.hasFree()) {
            return false;
        }
        final MemorySegment region = queue.receiveSegment();
        final long at = queue.receiveOffset(receiveIndex);
        final int decoded = decoder.decode(region, at, length, queue.inCapsuleBytes, (int) room.maxIoSize());
        if (decoded == NvmeCapsuleDecoder.TOO_SHORT) {
            LOG.warn("{} sent {} bytes, less than a submission entry: disconnecting it", queue, length);
            queue.repostReceive(receiveIndex);
            queue.endWithoutLogout();
            return true;
        }
        if (queue.outstandingCommands() >= OVERRUN_FACTOR * queue.entries) {
            LOG.warn("{} holds {} commands, more than its {} entries allow: its host does not wait for completions; "
                    + "disconnecting it", queue, queue.outstandingCommands(), queue.entries);
            queue.repostReceive(receiveIndex);
            queue.endWithoutLogout();
            return true;
        }
        final NvmeSubmission entry = decoder.entry();
        final int commandId = entry.commandId();
        final int opcode = entry.opcode();
        final NvmeController controller = queue.controller;
        if (controller != null) {
            controller.lastSeenNanos = arrivedNanos; // traffic keeps a controller alive, as nvmet's does
        }
        if (decoded != NvmeStatus.SUCCESS) {
            return answer(queue, receiveIndex, commandId, decoded, 0);
        }
        if (opcode == NvmeOpcode.FABRICS) {
            return fabrics(queue, receiveIndex, entry);
        }
        if (controller == null || controller.ending) {
            return answer(queue, receiveIndex, commandId, NvmeStatus.COMMAND_SEQUENCE_ERROR | NvmeStatus.DO_NOT_RETRY, 0);
        }
        if (!controller.enabled()) {
            return answer(queue, receiveIndex, commandId, NvmeStatus.COMMAND_SEQUENCE_ERROR | NvmeStatus.DO_NOT_RETRY, 0);
        }
        return queue.isAdmin() ? admin(queue, receiveIndex, entry, controller)
                : io(queue, receiveIndex, entry, controller, event, arrivedNanos);
    }

    // ---- I/O commands ----

    private boolean io(final NvmeQueue queue, final int receiveIndex, final NvmeSubmission entry,
                       final NvmeController controller, final PipelineEvent event, final long arrivedNanos) {
        final int opcode = entry.opcode();
        final int commandId = entry.commandId();
        final long nsid = entry.nsid();
        final int lun = nsid >= 1 && nsid <= LunAddress.MAX_LUN + 1 ? (int) (nsid - 1) : -1;
        final LogicalUnit unit = lun >= 0 && controller.serves(lun) ? queue.units().get(lun) : null;
        if (unit == null && isIo(opcode)) {
            return answer(queue, receiveIndex, commandId, NvmeStatus.INVALID_NAMESPACE | NvmeStatus.DO_NOT_RETRY, 0);
        }
        final int dataLength = decoder.dataLength();
        final boolean inCapsule = decoder.dataInCapsule();
        final int cdbLength;
        long dataOut = 0;
        long dataIn = 0;
        int kind = IoStats.OTHER;
        int ranges = 0;
        switch (opcode) {
            case NvmeOpcode.READ, NvmeOpcode.WRITE, NvmeOpcode.COMPARE -> {
                final boolean read = opcode == NvmeOpcode.READ;
                final long bytes = (long) entry.blocks() * unit.config().blockSize();
                if (bytes != dataLength) {
                    return answer(queue, receiveIndex, commandId, NvmeStatus.SGL_INVALID_DATA | NvmeStatus.DO_NOT_RETRY, 0);
                }
                final boolean fua = (entry.control() & NvmeSubmission.CONTROL_FUA) != 0;
                cdbLength = switch (opcode) {
                    case NvmeOpcode.WRITE -> CdbWriter.write16(cdb, entry.startingLba(), entry.blocks(), fua);
                    case NvmeOpcode.COMPARE -> CdbWriter.compare16(cdb, entry.startingLba(), entry.blocks());
                    default -> CdbWriter.read16(cdb, entry.startingLba(), entry.blocks(), fua);
                };
                dataOut = read ? 0 : bytes;
                dataIn = read ? bytes : 0;
                kind = opcode == NvmeOpcode.WRITE ? IoStats.WRITE : read ? IoStats.READ : IoStats.OTHER;
            }
            case NvmeOpcode.FLUSH -> cdbLength = CdbWriter.synchronizeCache16(cdb);
            case NvmeOpcode.WRITE_ZEROES -> cdbLength = CdbWriter.writeZeroes16(cdb, entry.startingLba(), entry.blocks(),
                    (entry.control() & NvmeSubmission.CONTROL_DEALLOCATE) != 0 && unit.config().thinProvisioning());
            case NvmeOpcode.DATASET_MANAGEMENT -> {
                ranges = (int) (entry.cdw(10) & NvmeFeature.DSM_RANGES_MASK) + 1;
                if ((entry.cdw(11) & NvmeFeature.DSM_DEALLOCATE) == 0 || !unit.config().thinProvisioning()) {
                    // hints only, or a LUN that cannot deallocate: deallocation is advisory (nvmet's bdev answers a
                    // device without discard so too), and the blocks keep their data
                    return answer(queue, receiveIndex, commandId, NvmeStatus.SUCCESS, 0);
                }
                if (dataLength < ranges * NvmeDsmRange.LENGTH) {
                    return answer(queue, receiveIndex, commandId, NvmeStatus.SGL_INVALID_DATA | NvmeStatus.DO_NOT_RETRY, 0);
                }
                cdbLength = CdbWriter.unmap(cdb, ranges);
                dataOut = CdbWriter.unmapListLength(ranges);
            }
            default -> {
                return answer(queue, receiveIndex, commandId, NvmeStatus.INVALID_OPCODE | NvmeStatus.DO_NOT_RETRY, 0);
            }
        }
        final CommandSlot slot = slots.next();
        slot.begin(queue, commandId, LunAddress.encode(lun));
        slot.command().setCdb(cdb, 0, cdbLength);
        slot.dataLengths(dataOut, dataIn);
        final boolean keyed = dataLength > 0 && !inCapsule && (dataOut > 0 || dataIn > 0);
        if (keyed) {
            slot.singleDescriptor(decoder.sgl().address(), (int) decoder.sgl().key(),
                    ranges > 0 ? (long) ranges * NvmeDsmRange.LENGTH : dataLength);
            invalidateIfAsked(slot);
            slot.readsDataOut(opcode != NvmeOpcode.READ);
        }
        final long needed = Math.max(dataOut, dataIn);
        if (!room.reserve(slot, needed, false)) {
            return false; // wait for a buffer run; the slot was not taken
        }
        slots.take();
        connecting[slot.index()] = false; // a Connect whose data READ failed left it set
        queue.addOutstanding();
        commands.track(slot, queue, kind, statistics.lun(lun), arrivedNanos);
        responses[slot.index()].executed();
        room.attach(slot, needed);
        if (inCapsule && dataLength > 0) {
            final long from = queue.receiveOffset(receiveIndex) + NvmeSubmission.LENGTH + decoder.inCapsuleDataOffset();
            MemorySegment.copy(queue.receiveSegment(), from, slot.dataSegment(), slot.dataOffset(),
                    ranges > 0 ? (long) ranges * NvmeDsmRange.LENGTH : dataLength);
        }
        queue.repostReceive(receiveIndex); // everything the command needs is out of the capsule now
        if (ranges > 0 && keyed) {
            slot.frontEndTakesDataOut(); // the ranges become UNMAP's parameter list once they are in
        } else if (ranges > 0) {
            rangesToUnmapList(slot, ranges);
        }
        DataPhase.start(slot, event);
        return true;
    }

    private static boolean isIo(final int opcode) {
        return opcode == NvmeOpcode.READ || opcode == NvmeOpcode.WRITE || opcode == NvmeOpcode.COMPARE
                || opcode == NvmeOpcode.FLUSH || opcode == NvmeOpcode.WRITE_ZEROES || opcode == NvmeOpcode.DATASET_MANAGEMENT;
    }

    /**
     * Rewrites the Dataset Management ranges at the start of the slot's data buffer into UNMAP's parameter list, in
     * place: each 16-byte range becomes the 16-byte block descriptor 8 bytes further on, last first, so that no range
     * is overwritten before it is read.
     */
    private void rangesToUnmapList(final CommandSlot slot, final int ranges) {
        final MemorySegment data = slot.dataSegment();
        final long base = slot.dataOffset();
        for (int i = ranges - 1; i >= 0; i--) {
            range.wrap(data, base + (long) i * NvmeDsmRange.LENGTH);
            final long lba = range.startingLba();
            final long blocks = range.blocks();
            CdbWriter.unmapDescriptor(data, base, i, lba, blocks);
        }
        CdbWriter.unmapHeader(data, base, ranges);
    }

    @Override
    public void dataOutArrived(final CommandSlot slot, final PipelineEvent event) {
        final NvmeQueue queue = (NvmeQueue) slot.channel();
        if (connecting[slot.index()]) {
            connecting[slot.index()] = false;
            connectArrived(queue, slot);
            return;
        }
        rangesToUnmapList(slot, (int) (slot.dataOutLength() - CdbWriter.UNMAP_HEADER_LENGTH) / CdbWriter.UNMAP_DESCRIPTOR_LENGTH);
        DataPhase.execute(slot, event);
    }

    // ---- Fabrics commands ----

    private boolean fabrics(final NvmeQueue queue, final int receiveIndex, final NvmeSubmission entry) {
        final int commandId = entry.commandId();
        final int type = entry.fabricsType();
        if (type == NvmfCommandType.CONNECT) {
            return connect(queue, receiveIndex, entry);
        }
        final NvmeController controller = queue.controller;
        if (controller == null) {
            return answer(queue, receiveIndex, commandId, NvmeStatus.COMMAND_SEQUENCE_ERROR | NvmeStatus.DO_NOT_RETRY, 0);
        }
        if (type == NvmfCommandType.DISCONNECT) {
            answer(queue, receiveIndex, commandId, NvmeStatus.SUCCESS, 0);
            LOG.info("{}: Disconnect", queue);
            queue.endWithoutLogout();
            return true;
        }
        if (!queue.isAdmin() || type != NvmfCommandType.PROPERTY_GET && type != NvmfCommandType.PROPERTY_SET) {
            return answer(queue, receiveIndex, commandId, NvmeStatus.INVALID_OPCODE | NvmeStatus.DO_NOT_RETRY, 0);
        }
        property.wrap(entry.segment(), entry.offset());
        final long register = property.property();
        if (type == NvmfCommandType.PROPERTY_GET) {
            if ((property.size() == Long.BYTES) != (register == NvmeRegister.CAP)) {
                // the size must be the property's (CAP 8 bytes, the others 4), as nvmet_execute_prop_get holds it
                return answer(queue, receiveIndex, commandId, NvmeStatus.INVALID_FIELD | NvmeStatus.DO_NOT_RETRY, 0);
            }
            final long value;
            if (register == NvmeRegister.CAP) {
                value = pages.capabilities();
            } else if (register == NvmeRegister.VS) {
                value = NvmeAdminPages.VERSION;
            } else if (register == NvmeRegister.CC) {
                value = controller.configuration;
            } else if (register == NvmeRegister.CSTS) {
                value = controller.status;
            } else {
                return answer(queue, receiveIndex, commandId, NvmeStatus.INVALID_FIELD | NvmeStatus.DO_NOT_RETRY, 0);
            }
            return answer(queue, receiveIndex, commandId, NvmeStatus.SUCCESS, value);
        }
        if (register != NvmeRegister.CC) {
            return answer(queue, receiveIndex, commandId, NvmeStatus.INVALID_FIELD | NvmeStatus.DO_NOT_RETRY, 0);
        }
        setConfiguration(controller, (int) property.value());
        return answer(queue, receiveIndex, commandId, NvmeStatus.SUCCESS, 0);
    }

    /**
     * CC written, as nvmet's {@code nvmet_update_cc}: enabling makes the controller ready at once; disabling or a
     * shutdown resets it (not ready, its held event requests gone), a shutdown completing at once (each write is
     * already where its LUN's write cache policy puts it).
     */
    private static void setConfiguration(final NvmeController controller, final int value) {
        final int was = controller.configuration;
        final boolean shutdown = (value & NvmeRegister.CC_SHUTDOWN_MASK) != 0 && (was & NvmeRegister.CC_SHUTDOWN_MASK) == 0;
        final boolean disabled = (value & NvmeRegister.CC_ENABLE) == 0 && (was & NvmeRegister.CC_ENABLE) != 0;
        controller.configuration = value;
        if (shutdown || disabled) {
            controller.status &= ~NvmeRegister.CSTS_READY;
            controller.eventRequestCount = 0;
            controller.configuration = shutdown ? 0 : value;
        } else if ((value & NvmeRegister.CC_ENABLE) != 0 && (was & NvmeRegister.CC_ENABLE) == 0) {
            controller.status |= NvmeRegister.CSTS_READY;
            controller.status &= ~NvmeRegister.CSTS_SHUTDOWN_COMPLETE;
        }
        if (shutdown) {
            controller.status |= NvmeRegister.CSTS_SHUTDOWN_COMPLETE;
        }
    }

    private boolean connect(final NvmeQueue queue, final int receiveIndex, final NvmeSubmission entry) {
        final int commandId = entry.commandId();
        if (queue.controller != null) {
            return answer(queue, receiveIndex, commandId, NvmeStatus.COMMAND_SEQUENCE_ERROR | NvmeStatus.DO_NOT_RETRY, 0);
        }
        connect.wrap(entry.segment(), entry.offset());
        final int refusal = connectCommandRefusal(queue);
        if (refusal >= 0) {
            return answer(queue, receiveIndex, commandId, NvmeStatus.CONNECT_INVALID_PARAMETER | NvmeStatus.DO_NOT_RETRY,
                    refusal);
        }
        if (connect.recordFormat() != NvmfConnectCommand.RECFMT_1_0) {
            return answer(queue, receiveIndex, commandId, NvmeStatus.CONNECT_FORMAT | NvmeStatus.DO_NOT_RETRY, 0);
        }
        if (decoder.dataLength() < NvmfConnectData.LENGTH) {
            return answer(queue, receiveIndex, commandId, NvmeStatus.SGL_INVALID_DATA | NvmeStatus.DO_NOT_RETRY, 0);
        }
        if (decoder.dataInCapsule()) {
            final long data = queue.receiveOffset(receiveIndex) + NvmeSubmission.LENGTH + decoder.inCapsuleDataOffset();
            connectData.wrap(queue.receiveSegment(), data);
            final long result = connected(queue, connect.queueSize(), connect.keepAliveTimeoutMillis());
            return answer(queue, receiveIndex, commandId, (int) (result >>> 32), result & 0xFFFF_FFFFL);
        }
        // The admin queue takes no in-capsule data: its Connect's data comes by RDMA READ (Linux nvme-rdma's way).
        final CommandSlot slot = slots.next();
        slot.begin(queue, commandId, 0);
        slot.command().setCdb(noCdb, 0, (int) noCdb.byteSize());
        slot.dataLengths(NvmfConnectData.LENGTH, 0);
        slot.singleDescriptor(decoder.sgl().address(), (int) decoder.sgl().key(), NvmfConnectData.LENGTH);
        invalidateIfAsked(slot);
        slot.readsDataOut(true);
        if (!room.reserve(slot, NvmfConnectData.LENGTH, false)) {
            return false;
        }
        slots.take();
        queue.addOutstanding();
        room.attach(slot, NvmfConnectData.LENGTH);
        connectQueueSize[slot.index()] = connect.queueSize();
        connectKeepAlive[slot.index()] = connect.keepAliveTimeoutMillis();
        connecting[slot.index()] = true;
        responses[slot.index()].executed(); // a failed READ of its data is answered as a transfer error
        queue.repostReceive(receiveIndex);
        slot.frontEndTakesDataOut();
        DataPhase.start(slot, null);
        return true;
    }

    /** A keyed SGL of subtype "invalidate": the response invalidates its key at the host, as nvmet's does. */
    private void invalidateIfAsked(final CommandSlot slot) {
        if (decoder.sgl().subtype() == NvmeSglDescriptor.SUBTYPE_INVALIDATE) {
            slot.invalidateOnResponse((int) decoder.sgl().key());
        }
    }

    /** The Connect command's field at fault (its offset in the entry), or -1 when it is one this queue takes. */
    private int connectCommandRefusal(final NvmeQueue queue) {

        if (connect.queueId() != queue.queueId) {
            return NvmfConnectCommand.QID_OFFSET; // not the queue rdma_cm connected
        }
        final int size = connect.queueSize();
        if (connect.queueSizeField() == 0 || size > queue.entries || queue.isAdmin() && size > MAX_ADMIN_ENTRIES) {
            return NvmfConnectCommand.SQSIZE_OFFSET;
        }
        return -1;
    }

    /** An admin queue's Connect data arrived in the slot: the controller is made or refused, and the Connect answered. */
    private void connectArrived(final NvmeQueue queue, final CommandSlot slot) {
        connectData.wrap(slot.dataSegment(), slot.dataOffset());
        final long result = connected(queue, connectQueueSize[slot.index()], connectKeepAlive[slot.index()]);
        responses[slot.index()].answer((int) (result >>> 32), result & 0xFFFF_FFFFL);
        slot.command().finishWithDataIn(0);
    }

    /**
     * Acts on a Connect whose data {@link #connectData} wraps: an admin queue's makes a controller, an I/O queue's joins
     * its controller. Returns the status in the high 32 bits and the result in the low ones.
     */
    private long connected(final NvmeQueue queue, final int queueSize, final long keepAliveMillis) {
        final String subsystemNqn = connectData.subsystemNqn();
        final String hostNqn = connectData.hostNqn();
        final boolean discovery = NvmfConnectData.DISCOVERY_NQN.equals(subsystemNqn);
        final NvmeConfig.Subsystem subsystem = discovery ? null : listening.subsystem(subsystemNqn);
        if (!discovery && subsystem == null) {
            LOG.warn("{}: Connect to subsystem {}, which this target does not have", queue, subsystemNqn);
            return refused(NvmeStatus.CONNECT_INVALID_PARAMETER, NvmeStatus.connectDataField(NvmfConnectData.SUBSYSTEM_NQN_OFFSET));
        }
        if (subsystem != null && !subsystem.allows(hostNqn)) {
            LOG.warn("{}: host {} is not allowed on subsystem {}", queue, hostNqn, subsystemNqn);
            return refused(NvmeStatus.CONNECT_INVALID_HOST, NvmeStatus.connectDataField(NvmfConnectData.HOST_NQN_OFFSET));
        }
        final int controllerId = connectData.controllerId();
        if (queue.isAdmin()) {
            if (controllerId != NvmfConnectData.CNTLID_DYNAMIC) {
                return refused(NvmeStatus.CONNECT_INVALID_PARAMETER, NvmeStatus.connectDataField(NvmfConnectData.CNTLID_OFFSET));
            }
            final int id = freeControllerId();
            if (id < 0) {
                return refused(NvmeStatus.CONNECT_CONTROLLER_BUSY, 0);
            }
            final byte[] hostId = connectData.hostId().toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
            final NvmeController controller = new NvmeController(id, subsystem, hostNqn, hostId, queue,
                    keepAliveMillis, System.nanoTime());
            byId[id] = controller;
            live.add(controller);
            queue.controller = controller;
            queue.loggingOut(true); // NVMe/RDMA has no logout: a host ends a queue by disconnecting it (a host that is
                                    // gone shows as its controller's keep-alive running out)
            statistics.loginAccepted();
            joinHostSession(queue, hostNqn);
            LOG.info("{}: {} entries, keep-alive {} ms", queue, queueSize, keepAliveMillis);
            return id;
        }
        final NvmeController controller = controllerId >= NvmfConnectData.CNTLID_MIN && controllerId <= NvmfConnectData.CNTLID_MAX
                ? byId[controllerId] : null;
        if (controller == null || controller.ending || controller.isDiscovery() || controller.subsystem != subsystem
                || !controller.hostNqn.equals(hostNqn)) {
            return refused(NvmeStatus.CONNECT_INVALID_PARAMETER, NvmeStatus.connectDataField(NvmfConnectData.CNTLID_OFFSET));
        }
        if (!controller.enabled() || queue.queueId > Math.max(controller.ioQueuesGranted, 0)) {
            return refused(NvmeStatus.CONNECT_INVALID_PARAMETER, NvmfConnectCommand.QID_OFFSET);
        }
        for (final NvmeQueue other : controller.ioQueues) {
            if (other.queueId == queue.queueId && !other.closing()) {
                return refused(NvmeStatus.COMMAND_SEQUENCE_ERROR, 0); // that queue is connected already (as nvmet)
            }
        }
        queue.controller = controller;
        queue.loggingOut(true); // as the admin queue's: a disconnect is how a host ends it
        controller.ioQueues.add(queue);
        joinHostSession(queue, hostNqn);
        LOG.debug("{}: {} entries", queue, queueSize);
        return 0;
    }

    /**
     * The queue counts in its host's session from now on, keyed by the Connect data's host identifier as SRP's sessions
     * are by initiator port id, and named by its host NQN; until its Connect it counted among all NVMe hosts.
     */
    private void joinHostSession(final NvmeQueue queue, final String hostNqn) {
        final SessionStats joined = statistics.channelJoined(InitiatorPortId.read(connectData.hostId(), 0));
        joined.named(hostNqn);
        joined.cameFrom(queue.session().address());
        statistics.channelLeft(queue.moveToSession(joined));
    }

    private static long refused(final int status, final long result) {
        return (long) (status | NvmeStatus.DO_NOT_RETRY) << 32 | result;
    }

    private int freeControllerId() {
        for (int tried = 0; tried < NvmfConnectData.CNTLID_MAX; tried++) {
            final int id = nextId;
            nextId = nextId == NvmfConnectData.CNTLID_MAX ? NvmfConnectData.CNTLID_MIN : nextId + 1;
            if (byId[id] == null) {
                return id;
            }
        }
        return -1;
    }

    // ---- admin commands ----

    private boolean admin(final NvmeQueue queue, final int receiveIndex, final NvmeSubmission entry,
                          final NvmeController controller) {
        final int commandId = entry.commandId();
        switch (entry.opcode()) {
            case NvmeOpcode.IDENTIFY -> {
                return identify(queue, receiveIndex, entry, controller);
            }
            case NvmeOpcode.GET_LOG_PAGE -> {
                return logPage(queue, receiveIndex, entry, controller);
            }
            case NvmeOpcode.KEEP_ALIVE -> {
                return answer(queue, receiveIndex, commandId, NvmeStatus.SUCCESS, 0);
            }
            case NvmeOpcode.ABORT -> {
                return answer(queue, receiveIndex, commandId, NvmeStatus.SUCCESS, 1); // bit 0: the command was not aborted
            }
            case NvmeOpcode.SET_FEATURES -> {
                return setFeatures(queue, receiveIndex, entry, controller);
            }
            case NvmeOpcode.GET_FEATURES -> {
                return getFeatures(queue, receiveIndex, entry, controller);
            }
            case NvmeOpcode.ASYNC_EVENT -> {
                if (controller.eventRequestCount == NvmeController.MAX_EVENT_REQUESTS) {
                    return answer(queue, receiveIndex, commandId, NvmeStatus.ASYNC_EVENT_LIMIT | NvmeStatus.DO_NOT_RETRY, 0);
                }
                if (controller.eventPending && reportsNamespaceNotices(controller)) {
                    controller.eventPending = false;
                    return answer(queue, receiveIndex, commandId, NvmeStatus.SUCCESS, NvmeFeature.EVENT_NAMESPACE_ATTRIBUTE_CHANGED);
                }
                controller.eventRequests[controller.eventRequestCount++] = commandId; // answered when an event comes
                queue.repostReceive(receiveIndex);
                return true;
            }
            default -> {
                return answer(queue, receiveIndex, commandId, NvmeStatus.INVALID_OPCODE | NvmeStatus.DO_NOT_RETRY, 0);
            }
        }
    }

    private boolean identify(final NvmeQueue queue, final int receiveIndex, final NvmeSubmission entry,
                             final NvmeController controller) {
        identify.wrap(entry.segment(), entry.offset());
        final int cns = identify.cns();
        final long nsid = entry.nsid();
        final LogicalUnit unit = namespaceUnit(queue, controller, nsid);
        final boolean namespaceCns = cns == NvmeIdentify.CNS_NAMESPACE || cns == NvmeIdentify.CNS_NAMESPACE_DESCRIPTORS;
        if (cns != NvmeIdentify.CNS_CONTROLLER && cns != NvmeIdentify.CNS_ACTIVE_NAMESPACES && !namespaceCns
                || controller.isDiscovery() && cns != NvmeIdentify.CNS_CONTROLLER) {
            return answer(queue, receiveIndex, entry.commandId(), NvmeStatus.INVALID_FIELD | NvmeStatus.DO_NOT_RETRY, 0);
        }
        if (namespaceCns && unit == null) {
            return answer(queue, receiveIndex, entry.commandId(), NvmeStatus.INVALID_NAMESPACE | NvmeStatus.DO_NOT_RETRY, 0);
        }
        final CommandSlot slot = dataInSlot(queue, receiveIndex, entry, NvmeIdentify.DATA_LENGTH);
        if (slot == null) {
            return false;
        }
        final MemorySegment out = slot.dataSegment();
        final long at = slot.dataOffset();
        switch (cns) {
            case NvmeIdentify.CNS_CONTROLLER -> pages.identifyController(out, at, controller, queue.units());
            case NvmeIdentify.CNS_NAMESPACE -> pages.identifyNamespace(out, at, unit);
            case NvmeIdentify.CNS_ACTIVE_NAMESPACES -> pages.activeNamespaces(out, at, controller, queue.units(), nsid);
            default -> pages.namespaceDescriptors(out, at, unit);
        }
        slot.command().finishWithDataIn(NvmeIdentify.DATA_LENGTH);
        return true;
    }

    private static LogicalUnit namespaceUnit(final NvmeQueue queue, final NvmeController controller, final long nsid) {
        final int lun = nsid >= 1 && nsid <= LunAddress.MAX_LUN + 1 ? (int) (nsid - 1) : -1;
        return lun >= 0 && controller.serves(lun) ? queue.units().get(lun) : null;
    }

    private boolean logPage(final NvmeQueue queue, final int receiveIndex, final NvmeSubmission entry,
                            final NvmeController controller) {
        getLogPage.wrap(entry.segment(), entry.offset());
        final long length = pages.logPage(getLogPage.logId(), controller, queue.units(), listening);
        if (length < 0) {
            return answer(queue, receiveIndex, entry.commandId(), NvmeStatus.INVALID_LOG_PAGE | NvmeStatus.DO_NOT_RETRY, 0);
        }
        final long offset = getLogPage.logOffset();
        final long bytes = getLogPage.bytes();
        if (offset > length || (offset & 3) != 0 || bytes > room.maxIoSize()) {
            return answer(queue, receiveIndex, entry.commandId(), NvmeStatus.INVALID_FIELD | NvmeStatus.DO_NOT_RETRY, 0);
        }
        final CommandSlot slot = dataInSlot(queue, receiveIndex, entry, (int) bytes);
        if (slot == null) {
            return false;
        }
        slot.dataSegment().asSlice(slot.dataOffset(), bytes).fill((byte) 0);
        MemorySegment.copy(pages.scratch(), offset, slot.dataSegment(), slot.dataOffset(), Math.min(bytes, length - offset));
        slot.command().finishWithDataIn(bytes);
        return true;
    }

    private boolean setFeatures(final NvmeQueue queue, final int receiveIndex, final NvmeSubmission entry,
                                final NvmeController controller) {
        final int commandId = entry.commandId();
        final long value = entry.cdw(11);
        switch ((int) (entry.cdw(10) & NvmeFeature.FID_MASK)) {
            case NvmeFeature.NUMBER_OF_QUEUES -> {
                if (controller.isDiscovery()) {
                    break;
                }
                final int asked = (int) Math.min(value & 0xFFFF, (value >>> 16) & 0xFFFF) + 1;
                if ((value & 0xFFFF) == 0xFFFF || (value >>> 16) == 0xFFFF) {
                    return answer(queue, receiveIndex, commandId, NvmeStatus.INVALID_FIELD | NvmeStatus.DO_NOT_RETRY, 0);
                }
                controller.ioQueuesGranted = Math.min(asked, MAX_IO_QUEUES);
                final long granted = controller.ioQueuesGranted - 1;
                return answer(queue, receiveIndex, commandId, NvmeStatus.SUCCESS, granted << 16 | granted);
            }
            case NvmeFeature.KEEP_ALIVE_TIMER -> {
                controller.keepAliveMillis = value;
                return answer(queue, receiveIndex, commandId, NvmeStatus.SUCCESS, 0);
            }
            case NvmeFeature.ASYNC_EVENT_CONFIGURATION -> {
                controller.asyncEventConfiguration = (int) value;
                return answer(queue, receiveIndex, commandId, NvmeStatus.SUCCESS, 0);
            }
            default -> {
            }
        }
        return answer(queue, receiveIndex, commandId, NvmeStatus.INVALID_FIELD | NvmeStatus.DO_NOT_RETRY, 0);
    }

    private boolean getFeatures(final NvmeQueue queue, final int receiveIndex, final NvmeSubmission entry,
                                final NvmeController controller) {
        final int commandId = entry.commandId();
        switch ((int) (entry.cdw(10) & NvmeFeature.FID_MASK)) {
            case NvmeFeature.NUMBER_OF_QUEUES -> {
                final long granted = Math.max(controller.ioQueuesGranted, 1) - 1;
                return answer(queue, receiveIndex, commandId, NvmeStatus.SUCCESS, granted << 16 | granted);
            }
            case NvmeFeature.KEEP_ALIVE_TIMER -> {
                return answer(queue, receiveIndex, commandId, NvmeStatus.SUCCESS, controller.keepAliveMillis);
            }
            case NvmeFeature.ASYNC_EVENT_CONFIGURATION -> {
                return answer(queue, receiveIndex, commandId, NvmeStatus.SUCCESS, controller.asyncEventConfiguration);
            }
            case NvmeFeature.VOLATILE_WRITE_CACHE -> {
                final LogicalUnit unit = namespaceUnit(queue, controller, entry.nsid());
                return answer(queue, receiveIndex, commandId, NvmeStatus.SUCCESS, unit != null && unit.writeCacheEnabled() ? 1 : 0);
            }
            default -> {
                return answer(queue, receiveIndex, commandId, NvmeStatus.INVALID_FIELD | NvmeStatus.DO_NOT_RETRY, 0);
            }
        }
    }

    /**
     * Takes a slot for an admin command answered with {@code length} bytes of data-in, its data room attached: as much
     * of them as the host's keyed buffer takes goes there. Null when it must wait for a buffer run (nothing taken).
     */
    private CommandSlot dataInSlot(final NvmeQueue queue, final int receiveIndex, final NvmeSubmission entry, final int length) {
        final CommandSlot slot = slots.next();
        slot.begin(queue, entry.commandId(), 0);
        slot.command().setCdb(noCdb, 0, (int) noCdb.byteSize());
        final long offered = decoder.dataInCapsule() ? 0 : decoder.dataLength();
        final long moved = Math.min(length, offered);
        slot.dataLengths(0, moved);
        if (moved > 0) {
            slot.singleDescriptor(decoder.sgl().address(), (int) decoder.sgl().key(), moved);
            invalidateIfAsked(slot);
        }
        if (!room.reserve(slot, Math.max(length, 1), false)) {
            return null;
        }
        slots.take();
        queue.addOutstanding();
        room.attach(slot, Math.max(length, 1));
        responses[slot.index()].answer(NvmeStatus.SUCCESS, 0);
        queue.repostReceive(receiveIndex);
        return slot;
    }

    /** Answers the command {@code commandId} of {@code queue} at once with {@code status} and {@code result}. */
    private boolean answer(final NvmeQueue queue, final int receiveIndex, final int commandId, final int status,
                           final long result) {
        final CommandSlot slot = slots.take();
        queue.repostReceive(receiveIndex);
        queue.addOutstanding();
        slot.takeMessage(queue, commandId);
        slot.sendMessage(responses[slot.index()].write(slot, status, result));
        return true;
    }

    @Override
    public void commandDropped(final Channel dropped) {
        // NVMe has no task management that drops a command without a completion: nothing to give back
    }

    private static boolean reportsNamespaceNotices(final NvmeController controller) {
        return (controller.asyncEventConfiguration & NvmeFeature.NAMESPACE_ATTRIBUTE_NOTICES) != 0;
    }

    /** Completes the oldest outstanding Asynchronous Event Request of {@code controller} with {@code result}. */
    private void completeEventRequest(final NvmeController controller, final long result) {
        final CommandSlot slot = slots.take();
        final NvmeQueue queue = controller.adminQueue;
        queue.addOutstanding();
        slot.takeMessage(queue, controller.eventRequests[0]);
        controller.eventRequestCount--;
        System.arraycopy(controller.eventRequests, 1, controller.eventRequests, 0, controller.eventRequestCount);
        slot.sendMessage(responses[slot.index()].write(slot, NvmeStatus.SUCCESS, result));
    }

    @Override
    public void tick(final long now, final boolean stopping) {
        final boolean changed = namespacesChanged.getAndSet(false);
        for (final NvmeController controller : live) {
            if (changed && !controller.isDiscovery()) {
                controller.namespacesChanged = true;
                controller.eventPending = true;
            }
            if (controller.eventPending && controller.eventRequestCount > 0 && reportsNamespaceNotices(controller)
                    && !controller.ending && !controller.adminQueue.closing() && slots.hasFree()) {
                controller.eventPending = false;
                completeEventRequest(controller, NvmeFeature.EVENT_NAMESPACE_ATTRIBUTE_CHANGED);
                LOG.info("{}: its namespaces changed: Asynchronous Event (Namespace Attribute Changed) sent", controller);
            }
        }
        for (int i = live.size() - 1; i >= 0; i--) {
            final NvmeController controller = live.get(i);
            final boolean adminGone = controller.adminQueue.closing();
            final boolean expired = !adminGone && controller.keepAliveExpired(now);
            if (stopping || adminGone || expired) {
                if (expired) {
                    LOG.warn("{}: no command within the keep-alive timeout of {} ms: ending it and its {} I/O queue(s)",
                            controller, controller.keepAliveMillis, controller.ioQueues.size());
                } else if (!stopping) {
                    LOG.info("{} ended: its admin queue went; {} I/O queue(s) with it", controller, controller.ioQueues.size());
                }
                end(controller);
                live.remove(i);
            } else {
                controller.ioQueues.removeIf(Channel::closing);
            }
        }
    }

    /** Ends {@code controller}: its queues disconnect and drain; its id is free again. */
    private void end(final NvmeController controller) {
        controller.ending = true;
        for (final NvmeQueue queue : controller.ioQueues) {
            if (!queue.closing()) { // one that is closing may be released already
                queue.endWithoutLogout();
            }
        }
        if (!controller.adminQueue.closing()) {
            controller.adminQueue.endWithoutLogout();
        }
        byId[controller.id] = null;
    }
}

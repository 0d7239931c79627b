package org.rdmablock.target.core;

import org.rdmablock.protocol.scsi.CdbDecoder;
import org.rdmablock.protocol.scsi.CommandKind;
import org.rdmablock.protocol.scsi.LogicalUnit;
import org.rdmablock.protocol.scsi.LunAddress;
import org.rdmablock.target.backend.InPlaceStorage;
import org.rdmablock.target.metrics.TargetStatistics;
import org.rdmablock.target.metrics.TargetStatistics.Count;
import org.rdmablock.verbs.MemoryRegion;

import java.lang.foreign.MemorySegment;

/**
 * Where an admitted command's data lives while it moves: an in-place LUN's own registered memory for a plain READ or
 * WRITE it can serve that way ({@link InPlaceStorage}), else a run of the pipeline's registered data buffers
 * ({@link DataBufferPool}), or nothing for a command that moves no data. Reserved before the command's slot is taken
 * ({@link #reserve}), attached once the front end accepts the command ({@link #attach}), given back by
 * {@link #release}.
 *
 * <p>Thread: the intake stage's alone (the scratch fields below are its).
 */
public final class DataRoom {
    private final MemoryRegion dataRegion;
    final DataBufferPool buffers;
    private final long maxIoSize;
    /** Where in-place LUNs' memory is registered; null when LUNs are not served in place. */
    private final InPlaceRegions inPlace;
    /** mincore's answer for a READ in place of a file LUN: a byte per page of the largest I/O. */
    private final MemorySegment residency;
    private final TargetStatistics statistics;
    /** COMPARE AND WRITE's ordering of the writes around it. */
    private final WriteGates gates;
    /** Decodes a READ's or WRITE's CDB to see whether its data may move in place (the engine decodes it again). */
    private final CdbDecoder cdb = new CdbDecoder();
    /** The in-place LUN last served, so that the set of registered ones is only touched when the LUN changes. */
    private InPlaceStorage lastInPlace;
    /** What the last {@link #reserve} chose in place: the region and where the blocks start; null when not in place. */
    private MemoryRegion reservedRegion;
    private long reservedOffset;
    /** Whether what {@link #reserve} chose in place is a WRITE, whose data lands before the command executes. */
    private boolean reservedWrite;

    DataRoom(final MemoryRegion dataRegion, final DataBufferPool buffers, final long maxIoSize, final InPlaceRegions inPlace,
             final MemorySegment residency, final TargetStatistics statistics, final WriteGates gates) {
        this.dataRegion = dataRegion;
        this.buffers = buffers;
        this.maxIoSize = maxIoSize;
        this.inPlace = inPlace;
        this.residency = residency;
        this.statistics = statistics;
        this.gates = gates;
    }

    /** The largest transfer a command may ask for. */
    public long maxIoSize() {
        return maxIoSize;
    }

    /**
     * Reserves room for the {@code needed} bytes of the command loaded in {@code slot} (not taken yet): in place when it
     * can, else a buffer run (into the slot's {@code firstChunk} and {@code chunkCount}); nothing for a command that
     * moves no data or is {@code refused}. False when no buffer run is free: nothing was taken, the request waits.
     */
    public boolean reserve(final CommandSlot slot, final long needed, final boolean refused) {
        reservedRegion = null;
        slot.firstChunk = -1;
        slot.chunkCount = 0;
        if (refused || needed == 0) {
            return true;
        }
        reservedRegion = inPlace != null && !gates.holdsBackInPlace(slot) ? inPlaceRegion(slot) : null;
        if (reservedRegion != null) {
            return true;
        }
        final int count = buffers.chunksFor(needed);
        final int first = buffers.take(count);
        if (first < 0) {
            return false;
        }
        slot.firstChunk = first;
        slot.chunkCount = count;
        return true;
    }

    /** Points the accepted command at the room {@link #reserve} chose for it ({@code needed} bytes). */
    public void attach(final CommandSlot slot, final long needed) {
        gates.admit(slot);
        slot.command.placedBeforeExecute(reservedRegion != null && reservedWrite);
        if (reservedRegion != null) {
            slot.attachData(reservedRegion, reservedOffset, needed);
            statistics.add(Count.IN_PLACE, 1);
        } else if (slot.firstChunk >= 0) {
            slot.attachData(dataRegion, buffers.offset(slot.firstChunk), (long) slot.chunkCount * CommandPipeline.DATA_CHUNK_BYTES);
        } else {
            slot.data = dataRegion;
            slot.command.setDataBuffer(dataRegion.segment(), 0, 0).setExpectedLengths(0, 0);
        }
    }

    /** Gives back the slot's buffer run, if it holds one. */
    public void release(final CommandSlot slot) {
        if (slot.firstChunk >= 0) {
            buffers.release(slot.firstChunk, slot.chunkCount);
        }
        slot.firstChunk = -1;
    }

    /**
     * The memory of the in-place LUN a plain READ or WRITE addresses, registered in this pipeline's domain, with
     * {@link #reservedOffset} set to where its blocks start; null when the command goes through the data buffers:
     * not a READ or WRITE, a LUN that is not mapped, a command the unit would refuse (nothing may reach the
     * LUN's memory before it is accepted), descriptors that offer other than exactly the blocks it moves, a WRITE
     * the LUN does not place, or a READ of pages it would have to wait for.
     */
    private MemoryRegion inPlaceRegion(final CommandSlot slot) {
        if (!cdb.decode(slot.command.cdb(), 0, slot.command.cdbLength())) {
            return null;
        }
        final CommandKind kind = cdb.kind();
        if (kind != CommandKind.READ && kind != CommandKind.WRITE) {
            return null;
        }
        final LogicalUnit unit = slot.channel.units.get(LunAddress.decode(slot.lunField));
        final boolean write = kind == CommandKind.WRITE;
        if (unit == null || !(unit.backend() instanceof InPlaceStorage storage) || write && !storage.placesWrites()
                || !unit.reachesBackend(cdb, slot.command.nexus())) {
            return null;
        }
        final long bytes = cdb.transferLength() * unit.config().blockSize();
        if ((write ? slot.dataOutLength : slot.dataInLength) != bytes || (write ? slot.dataInLength : slot.dataOutLength) != 0) {
            return null;
        }
        reservedOffset = cdb.lba() * unit.config().blockSize();
        reservedWrite = write;
        if (!write && !storage.readsInPlace(reservedOffset, bytes, residency)) {
            return null;
        }
        if (storage != lastInPlace) {
            lastInPlace = storage;
            inPlace.add(storage); // allocates only for a LUN not seen before
        }
        return inPlace.regionOf(storage);
    }
}

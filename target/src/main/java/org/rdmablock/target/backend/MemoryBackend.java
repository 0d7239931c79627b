package org.rdmablock.target.backend;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicLongArray;

import org.rdmablock.protocol.scsi.BackendStatus;
import org.rdmablock.target.config.LunConfig;
import org.rdmablock.verbs.AccessFlags;
import org.rdmablock.verbs.MemoryRegion;
import org.rdmablock.verbs.ProtectionDomain;
import org.rdmablock.verbs.posix.LibC;

/**
 * A LUN in native memory, lost when the daemon exits: for tests, benchmarks and scratch devices. The memory is a
 * private anonymous mapping, so that a large LUN costs nothing until written (the kernel supplies zero pages on first
 * touch) and UNMAP gives whole pages back ({@code madvise(MADV_DONTNEED)}). Reads and writes are one copy between the
 * mapping and the caller's buffer, on the calling backend thread, with no allocation; several threads may call at
 * once. Flush has nothing to do.
 *
 * <p>{@link InPlaceStorage}: on the soft provider the target registers the mapping and moves READ and WRITE data by
 * RDMA straight from and into it; the copy here then has the same address on both sides and is skipped.
 *
 * <p>Not protocol's {@code InMemoryBackend}: that one allocates and zeroes all of its memory up front (a 64 GiB LUN
 * would take 64 GiB at start), counts every operation in shared atomics, and exists to inject failures in tests.
 */
public final class MemoryBackend extends AbstractLunBackend implements InPlaceStorage {
    private final Arena arena = Arena.ofShared();
    private final MemorySegment storage;
    /** The mapping's registrations for {@link InPlaceStorage}. */
    private final MappingRegistrations registrations;
    /**
     * A bit per page: set once a write touched it, cleared when an unmap gave it back (GET LBA STATUS's map). Set by
     * every write with one read of its word when the bit is set already.
     */
    private final AtomicLongArray written;

    private MemoryBackend(LunConfig config, long address) {
        super(config);
        long size = config.sizeBytes();
        this.storage = MemorySegment.ofAddress(address).reinterpret(size, arena, mapping -> LibC.unmapMemory(mapping.address(), size));
        this.registrations = new MappingRegistrations(logName(), storage, AccessFlags.LOCAL_WRITE);
        this.written = new AtomicLongArray((int) ((size / LibC.PAGE_SIZE + 63) / 64 + 1));
    }

    /** Maps the LUN's memory; throws {@link BackendOpenException} when it cannot. */
    static MemoryBackend open(LunConfig config) {
        if (!LibC.supported()) {
            throw new BackendOpenException(config.number(), "memory", null, "the memory backend needs Linux", null);
        }
        long address = LibC.mapAnonymous(config.sizeBytes());
        if (address < 0) {
            throw new BackendOpenException(config.number(), "memory", null, "cannot map " + config.sizeBytes() + " bytes: "
                    + LibC.describe((int) -address), null);
        }
        return new MemoryBackend(config, address);
    }

    @Override
    public MemoryRegion regionIn(ProtectionDomain pd) {
        return registrations.regionIn(pd);
    }

    @Override
    public void releaseRegionIn(ProtectionDomain pd) {
        registrations.release(pd);
    }

    @Override
    BackendStatus readChecked(long deviceOffset, MemorySegment buffer, long bufferOffset, int length) {
        if (!inPlace(deviceOffset, buffer, bufferOffset)) {
            MemorySegment.copy(storage, deviceOffset, buffer, bufferOffset, length);
        }
        return BackendStatus.OK;
    }

    @Override
    BackendStatus writeChecked(long deviceOffset, MemorySegment buffer, long bufferOffset, int length, boolean forceUnitAccess) {
        if (!inPlace(deviceOffset, buffer, bufferOffset)) {
            MemorySegment.copy(buffer, bufferOffset, storage, deviceOffset, length);
        }
        markPages(deviceOffset / LibC.PAGE_SIZE, (deviceOffset + length + LibC.PAGE_SIZE - 1) / LibC.PAGE_SIZE, true);
        return BackendStatus.OK;
    }

    /** Sets (or clears) the bits of pages {@code first} to {@code end} (exclusive). */
    private void markPages(long first, long end, boolean set) {
        for (long page = first; page < end; ) {
            int word = (int) (page >>> 6);
            long upTo = Math.min(end, (page | 63) + 1);
            long mask = (upTo - page == 64 ? -1L : ((1L << (upTo - page)) - 1)) << (page & 63);
            long bits = written.get(word);
            if (set ? (bits & mask) != mask : (bits & mask) != 0) {
                if (set) {
                    written.getAndAccumulate(word, mask, MemoryBackend::or);
                } else {
                    written.getAndAccumulate(word, ~mask, MemoryBackend::and);
                }
            }
            page = upTo;
        }
    }

    private static long or(long a, long b) {
        return a | b;
    }

    private static long and(long a, long b) {
        return a & b;
    }

    private boolean pageWritten(long page) {
        return (written.get((int) (page >>> 6)) & (1L << (page & 63))) != 0;
    }

    /** Mapped: the pages a write touched since the last unmap gave them back; deallocated: the others (they read zero). */
    @Override
    public long provisioning(long deviceOffset, long length) {
        long page = deviceOffset / LibC.PAGE_SIZE;
        boolean mapped = pageWritten(page);
        long end = deviceOffset + length;
        long next = (page + 1) * LibC.PAGE_SIZE;
        while (next < end) {
            long p = next / LibC.PAGE_SIZE;
            long word = written.get((int) (p >>> 6));
            if ((p & 63) == 0 && word == (mapped ? -1L : 0L)) {
                next += 64 * LibC.PAGE_SIZE; // a whole word of the same: 64 pages at once
            } else if (pageWritten(p) == mapped) {
                next += LibC.PAGE_SIZE;
            } else {
                break;
            }
        }
        long run = Math.min(next, end) - deviceOffset;
        return mapped ? run : -run;
    }

    /** Whether the caller's buffer is the LUN's own memory at the same place: the data is where it belongs already. */
    private boolean inPlace(long deviceOffset, MemorySegment buffer, long bufferOffset) {
        return buffer.address() + bufferOffset == storage.address() + deviceOffset;
    }

    /** Zeroes the partial pages at the ends of the range and gives the whole pages between them back to the kernel. */
    @Override
    BackendStatus unmapChecked(long deviceOffset, long length) {
        long end = deviceOffset + length;
        long firstPage = (deviceOffset + LibC.PAGE_SIZE - 1) / LibC.PAGE_SIZE * LibC.PAGE_SIZE; // the mapping starts on a page
        long endPage = end / LibC.PAGE_SIZE * LibC.PAGE_SIZE;
        if (firstPage >= endPage) {
            Zeroes.fill(storage, deviceOffset, length);
            return BackendStatus.OK;
        }
        Zeroes.fill(storage, deviceOffset, firstPage - deviceOffset);
        Zeroes.fill(storage, endPage, end - endPage);
        int result = LibC.madvise(storage.address() + firstPage, endPage - firstPage, LibC.MADV_DONTNEED);
        if (result < 0) { // cannot happen for a private anonymous mapping; zero the pages instead
            Zeroes.fill(storage, firstPage, endPage - firstPage);
        }
        markPages(firstPage / LibC.PAGE_SIZE, endPage / LibC.PAGE_SIZE, false);
        return BackendStatus.OK;
    }

    @Override
    String whyNotResizableTo(long to) {
        return "a memory LUN's size is fixed while it serves (its blocks are one mapping, registered for RDMA):"
                + " change it in the config and restart (its data is lost then, as at every restart)";
    }

    @Override
    void release() {
        registrations.releaseAll();
        arena.close(); // unmaps; a copy still running elsewhere fails rather than touching unmapped memory
    }

    @Override
    public String toString() {
        return "memory (" + sizeBytes + " bytes, " + policy() + ")";
    }
}

package org.rdmablock.initiator;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;

import org.rdmablock.verbs.MemoryRegion;

/**
 * A logical unit of the target as a block device: asynchronous read, write, flush (SYNCHRONIZE CACHE) and unmap on
 * block ranges, each in three forms: with an {@link IoCallback} (allocates nothing), returning a
 * {@link CompletableFuture}, or blocking.
 *
 * <p>Buffers: a buffer from {@link SrpInitiator#allocateBuffer}, or a region from {@link SrpInitiator#registerMemory},
 * moves straight between the target and it; any other (heap or native) goes through the channel's registered bounce
 * buffers, one copy, in commands of at most
 * {@link InitiatorConfig#bounceBytes()}. A request larger than the LUN's maximum transfer becomes several commands,
 * answered together. Thread safety: every method may be called from any thread; the caller must not touch a buffer
 * until its operation is answered.
 */
public final class Lun {
    /** Completes the {@link CompletableFuture} given as attachment: the one callback the future forms share. */
    static final IoCallback FUTURE_CALLBACK = CompletionWaiter.COMPLETE_FUTURE;
    /** How long a blocking operation waits before it gives up (the target answers or the channel fails well before). */
    static final long BLOCKING_TIMEOUT_SECONDS = 120;

    private final SrpInitiator initiator;
    private final int number;
    private final long address;
    private final int blockSize;
    private final long blockCount;
    private final int maxTransferBytes;
    private final String vendor;
    private final String product;
    private final String revision;
    private final String serial;

    Lun(final SrpInitiator initiator, final int number, final long address, final int blockSize, final long blockCount,
        final int maxTransferBytes, final String vendor, final String product, final String revision, final String serial) {
        this.initiator = initiator;
        this.number = number;
        this.address = address;
        this.blockSize = blockSize;
        this.blockCount = blockCount;
        this.maxTransferBytes = Math.max(blockSize, maxTransferBytes / blockSize * blockSize);
        this.vendor = vendor;
        this.product = product;
        this.revision = revision;
        this.serial = serial;
    }

    /** The LUN number (REPORT LUNS, SAM-5 flat or peripheral addressing decoded). */
    public int number() {
        return number;
    }

    /** The 8-byte LUN field the commands carry. */
    long address() {
        return address;
    }

    public int blockSize() {
        return blockSize;
    }

    public long blockCount() {
        return blockCount;
    }

    public long sizeBytes() {
        return blockCount * blockSize;
    }

    /** Bytes one command carries at most (the block limits page's maximum transfer length, or 1 MiB). */
    public int maxTransferBytes() {
        return maxTransferBytes;
    }

    public String vendor() {
        return vendor;
    }

    public String product() {
        return product;
    }

    public String revision() {
        return revision;
    }

    /** The unit serial number (VPD page 80h), or empty. */
    public String serial() {
        return serial;
    }

    /** Reads {@code blocks} at {@code lba} into {@code buffer} at {@code offset}; calls {@code callback} once. */
    public void read(final long lba, final long blocks, final MemorySegment buffer, final long offset,
                     final Object attachment, final IoCallback callback) {
        check(lba, blocks, buffer, offset);
        initiator.submit(IoRequest.READ, this, lba, blocks, buffer, offset, false, attachment, callback);
    }

    /** Writes {@code blocks} at {@code lba} from {@code buffer} at {@code offset}; {@code fua}: durable before the answer. */
    public void write(final long lba, final long blocks, final MemorySegment buffer, final long offset, final boolean fua,
                      final Object attachment, final IoCallback callback) {
        check(lba, blocks, buffer, offset);
        initiator.submit(IoRequest.WRITE, this, lba, blocks, buffer, offset, fua, attachment, callback);
    }

    /**
     * Reads {@code blocks} at {@code lba} into {@code region} (from {@link SrpInitiator#registerMemory}) at
     * {@code offset}: the target writes into it directly. Calls {@code callback} once; the region must stay registered
     * until then.
     */
    public void read(final long lba, final long blocks, final MemoryRegion region, final long offset,
                     final Object attachment, final IoCallback callback) {
        checkRegion(region);
        check(lba, blocks, region.segment(), offset);
        initiator.submit(IoRequest.READ, this, lba, blocks, region.segment(), offset, region.rkey(), false, attachment,
                callback);
    }

    /**
     * Writes {@code blocks} at {@code lba} from {@code region} (from {@link SrpInitiator#registerMemory}) at
     * {@code offset}: the target reads it directly; {@code fua}: durable before the answer. Calls {@code callback}
     * once; the region must stay registered until then.
     */
    public void write(final long lba, final long blocks, final MemoryRegion region, final long offset, final boolean fua,
                      final Object attachment, final IoCallback callback) {
        checkRegion(region);
        check(lba, blocks, region.segment(), offset);
        initiator.submit(IoRequest.WRITE, this, lba, blocks, region.segment(), offset, region.rkey(), fua, attachment,
                callback);
    }

    /** SYNCHRONIZE CACHE (NVMe: Flush): every write answered before it is durable once this is answered. */
    public void flush(final Object attachment, final IoCallback callback) {
        initiator.submit(IoRequest.FLUSH, this, 0, 0, null, 0, false, attachment, callback);
    }

    /**
     * UNMAP (NVMe: Dataset Management, deallocate) of {@code blocks} (at most 2^32 - 1) at {@code lba}: the target
     * may deallocate them; reads may return zeroes.
     */
    public void unmap(final long lba, final long blocks, final Object attachment, final IoCallback callback) {
        if (lba < 0 || blocks <= 0 || blocks > 0xFFFF_FFFFL || lba + blocks > blockCount) {
            throw new IllegalArgumentException("unmap of " + blocks + " blocks at LBA " + lba + " is outside LUN " + number
                    + " (" + blockCount + " blocks)");
        }
        initiator.submit(IoRequest.UNMAP, this, lba, blocks, null, 0, false, attachment, callback);
    }

    /** {@link #read(long, long, MemorySegment, long, Object, IoCallback)} as a future of the bytes read. */
    public CompletableFuture<Long> read(final long lba, final long blocks, final MemorySegment buffer, final long offset) {
        final CompletableFuture<Long> future = new CompletableFuture<>();
        read(lba, blocks, buffer, offset, future, FUTURE_CALLBACK);
        return future;
    }

    /** {@link #write(long, long, MemorySegment, long, boolean, Object, IoCallback)} as a future of the bytes written. */
    public CompletableFuture<Long> write(final long lba, final long blocks, final MemorySegment buffer, final long offset,
                                         final boolean fua) {
        final CompletableFuture<Long> future = new CompletableFuture<>();
        write(lba, blocks, buffer, offset, fua, future, FUTURE_CALLBACK);
        return future;
    }

    public CompletableFuture<Long> flush() {
        final CompletableFuture<Long> future = new CompletableFuture<>();
        flush(future, FUTURE_CALLBACK);
        return future;
    }

    public CompletableFuture<Long> unmap(final long lba, final long blocks) {
        final CompletableFuture<Long> future = new CompletableFuture<>();
        unmap(lba, blocks, future, FUTURE_CALLBACK);
        return future;
    }

    /** Reads and waits; returns the bytes read. */
    public long readBlocking(final long lba, final long blocks, final MemorySegment buffer, final long offset) throws SrpIoException {
        return initiator.await(read(lba, blocks, buffer, offset), "READ of LUN " + number, BLOCKING_TIMEOUT_SECONDS);
    }

    /** Writes and waits; returns the bytes written. */
    public long writeBlocking(final long lba, final long blocks, final MemorySegment buffer, final long offset, final boolean fua)
            throws SrpIoException {
        return initiator.await(write(lba, blocks, buffer, offset, fua), "WRITE of LUN " + number, BLOCKING_TIMEOUT_SECONDS);
    }

    public void flushBlocking() throws SrpIoException {
        initiator.await(flush(), "SYNCHRONIZE CACHE of LUN " + number, BLOCKING_TIMEOUT_SECONDS);
    }

    public void unmapBlocking(final long lba, final long blocks) throws SrpIoException {
        initiator.await(unmap(lba, blocks), "UNMAP of LUN " + number, BLOCKING_TIMEOUT_SECONDS);
    }

    private void checkRegion(final MemoryRegion region) {
        if (!initiator.owns(region)) {
            throw new IllegalArgumentException(region + " was not registered by this initiator (SrpInitiator.registerMemory)");
        }
    }

    private void check(final long lba, final long blocks, final MemorySegment buffer, final long offset) {
        if (lba < 0 || blocks <= 0 || lba + blocks > blockCount) {
            throw new IllegalArgumentException(blocks + " blocks at LBA " + lba + " are outside LUN " + number + " ("
                    + blockCount + " blocks)");
        }
        if (offset < 0 || offset + blocks * blockSize > buffer.byteSize()) {
            throw new IllegalArgumentException("the buffer holds " + buffer.byteSize() + " bytes, fewer than "
                    + blocks * blockSize + " from offset " + offset);
        }
    }

    @Override
    public String toString() {
        return "LUN " + number + " (" + vendor + " " + product + ", " + blockCount + " x " + blockSize + " bytes)";
    }
}

package org.rdmablock.verbs;

/**
 * A reusable send work request ({@code struct ibv_send_wr}): what to do, with which local buffers, against
 * which remote buffer. Build it once, post it many times; the provider copies what it needs at post time, so
 * the object may be changed and posted again as soon as {@link QueuePair#postSend} returns. Requests can be
 * chained with {@link #next(SendWorkRequest)} to post several in one call.
 *
 * <p>Fields that an opcode does not use are ignored: remote address and rkey (RDMA and atomics), compare/add
 * and swap (atomics), immediate data (*_WITH_IMM), invalidate rkey (SEND_WITH_INV, LOCAL_INV), address
 * handle, remote QPN and qkey (UD), memory window and bind fields (BIND_MW).
 */
public final class SendWorkRequest {
    private final ScatterGatherList sgl;
    private long wrId;
    private SendOpcode opcode = SendOpcode.SEND;
    private int flags;
    private long remoteAddress;
    private int rkey;
    private int immediateData;
    private int invalidateRkey;
    private long compareAdd;
    private long swap;
    private AddressHandle addressHandle;
    private int remoteQpn;
    private int remoteQkey;
    private MemoryWindow memoryWindow;
    private MemoryRegion bindRegion;
    private long bindAddress;
    private long bindLength;
    private int bindAccess;
    private SendWorkRequest next;

    /** A request with room for {@code maxSge} scatter/gather elements. */
    public SendWorkRequest(final int maxSge) {
        sgl = new ScatterGatherList(maxSge);
    }

    /** A request with room for one scatter/gather element. */
    public SendWorkRequest() {
        this(1);
    }

    /** The gather list (data to send, or the local buffer of an RDMA READ or atomic). */
    public ScatterGatherList sgl() {
        return sgl;
    }

    public SendWorkRequest wrId(final long wrId) {
        this.wrId = wrId;
        return this;
    }

    public SendWorkRequest opcode(final SendOpcode opcode) {
        this.opcode = opcode;
        return this;
    }

    /** {@link SendFlags} bits. */
    public SendWorkRequest flags(final int flags) {
        this.flags = flags;
        return this;
    }

    /** The remote buffer of an RDMA operation or atomic: its address and rkey. */
    public SendWorkRequest remote(final long remoteAddress, final int rkey) {
        this.remoteAddress = remoteAddress;
        this.rkey = rkey;
        return this;
    }

    /** Immediate data (host order) for SEND_WITH_IMM and RDMA_WRITE_WITH_IMM. */
    public SendWorkRequest immediateData(final int immediateData) {
        this.immediateData = immediateData;
        return this;
    }

    /** The rkey to invalidate: remote for SEND_WITH_INV, local for LOCAL_INV. */
    public SendWorkRequest invalidateRkey(final int rkey) {
        this.invalidateRkey = rkey;
        return this;
    }

    /** Operands of an atomic: compare value (CMP_AND_SWP) or addend (FETCH_AND_ADD), and swap value. */
    public SendWorkRequest atomic(final long compareAdd, final long swap) {
        this.compareAdd = compareAdd;
        this.swap = swap;
        return this;
    }

    /** Destination of a UD send. */
    public SendWorkRequest datagram(final AddressHandle ah, final int remoteQpn, final int remoteQkey) {
        this.addressHandle = ah;
        this.remoteQpn = remoteQpn;
        this.remoteQkey = remoteQkey;
        return this;
    }

    /**
     * Parameters of BIND_MW: bind {@code window} to {@code [address, address + length)} of {@code region} with
     * {@code access} rights ({@link AccessFlags} remote bits). The window's new rkey is
     * {@link MemoryWindow#nextRkey()}, which becomes valid when the bind completes.
     */
    public SendWorkRequest bind(final MemoryWindow window, final MemoryRegion region, final long address,
                                final long length, final int access) {
        this.memoryWindow = window;
        this.bindRegion = region;
        this.bindAddress = address;
        this.bindLength = length;
        this.bindAccess = access;
        return this;
    }

    /** The next request of a chain, or null. */
    public SendWorkRequest next(final SendWorkRequest next) {
        this.next = next;
        return this;
    }

    public long wrId() {
        return wrId;
    }

    public SendOpcode opcode() {
        return opcode;
    }

    public int flags() {
        return flags;
    }

    public boolean isSignaled() {
        return (flags & SendFlags.SIGNALED) != 0;
    }

    public long remoteAddress() {
        return remoteAddress;
    }

    public int rkey() {
        return rkey;
    }

    public int immediateData() {
        return immediateData;
    }

    public int invalidateRkey() {
        return invalidateRkey;
    }

    public long compareAdd() {
        return compareAdd;
    }

    public long swap() {
        return swap;
    }

    public AddressHandle addressHandle() {
        return addressHandle;
    }

    public int remoteQpn() {
        return remoteQpn;
    }

    public int remoteQkey() {
        return remoteQkey;
    }

    public MemoryWindow memoryWindow() {
        return memoryWindow;
    }

    public MemoryRegion bindRegion() {
        return bindRegion;
    }

    public long bindAddress() {
        return bindAddress;
    }

    public long bindLength() {
        return bindLength;
    }

    public int bindAccess() {
        return bindAccess;
    }

    public SendWorkRequest next() {
        return next;
    }
}

package org.rdmablock.verbs;

/**
 * Access rights of a memory region or window; the values of {@code enum ibv_access_flags} (ibv_reg_mr(3)).
 * Remote write and remote atomic access also require {@link #LOCAL_WRITE}, as libibverbs demands.
 */
public final class AccessFlags {
    /** The local side may write into the region (receive buffers, RDMA READ and atomic result buffers). */
    public static final int LOCAL_WRITE = 1;
    /** A remote peer may RDMA WRITE into the region. */
    public static final int REMOTE_WRITE = 1 << 1;
    /** A remote peer may RDMA READ from the region. */
    public static final int REMOTE_READ = 1 << 2;
    /** A remote peer may run atomic operations on the region. */
    public static final int REMOTE_ATOMIC = 1 << 3;
    /** Memory windows may be bound to the region. */
    public static final int MW_BIND = 1 << 4;

    private static final int ALL = LOCAL_WRITE | REMOTE_WRITE | REMOTE_READ | REMOTE_ATOMIC | MW_BIND;

    private AccessFlags() {
    }

    /**
     * Checks a set of flags as ibv_reg_mr does.
     *
     * @throws VerbsException EINVAL for unknown bits, or remote write/atomic without local write
     */
    public static int validate(final int access) {
        if ((access & ~ALL) != 0) {
            throw new VerbsException(VerbsException.EINVAL, "unknown access flags 0x" + Integer.toHexString(access));
        }
        if ((access & (REMOTE_WRITE | REMOTE_ATOMIC)) != 0 && (access & LOCAL_WRITE) == 0) {
            throw new VerbsException(VerbsException.EINVAL, "REMOTE_WRITE and REMOTE_ATOMIC require LOCAL_WRITE");
        }
        return access;
    }

    /** Human-readable form, e.g. {@code LOCAL_WRITE|REMOTE_READ}. */
    public static String toString(final int access) {
        final StringBuilder sb = new StringBuilder();
        final String[] names = {"LOCAL_WRITE", "REMOTE_WRITE", "REMOTE_READ", "REMOTE_ATOMIC", "MW_BIND"};
        for (int i = 0; i < names.length; i++) {
            if ((access & (1 << i)) != 0) {
                sb.append(sb.isEmpty() ? "" : "|").append(names[i]);
            }
        }
        return sb.isEmpty() ? "NONE" : sb.toString();
    }
}

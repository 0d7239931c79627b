package org.rdmablock.verbs;

/**
 * An immediate failure of a verbs call (the C API's non-zero return or errno): a call in a wrong state, a
 * full queue, an invalid argument, a missing device. Failures of posted work are never thrown: they arrive
 * as {@link WcStatus completion statuses}.
 */
public class VerbsException extends RuntimeException {
    /** errno value of the equivalent C call, or 0 when none applies. */
    private final int errno;

    public VerbsException(final int errno, final String message) {
        super(message);
        this.errno = errno;
    }

    public VerbsException(final int errno, final String message, final Throwable cause) {
        super(message, cause);
        this.errno = errno;
    }

    /** The errno the equivalent libibverbs/librdmacm call would have reported (EINVAL, ENOMEM, ...). */
    public int errno() {
        return errno;
    }

    /** errno values used by the providers (Linux numbering). */
    public static final int EPERM = 1;
    public static final int ENOENT = 2;
    public static final int EINTR = 4;
    public static final int EIO = 5;
    public static final int EAGAIN = 11;
    public static final int ENOMEM = 12;
    public static final int EFAULT = 14;
    public static final int EBUSY = 16;
    public static final int ENODEV = 19;
    public static final int EINVAL = 22;
    public static final int ENOSYS = 38;
    public static final int EPROTO = 71;
    public static final int EOPNOTSUPP = 95;
    public static final int EAFNOSUPPORT = 97;
    public static final int ENETUNREACH = 101;
    public static final int ECONNREFUSED = 111;
    public static final int ETIMEDOUT = 110;
    public static final int ECONNRESET = 104;
    public static final int ENOTCONN = 107;
    public static final int EHOSTUNREACH = 113;
}

package org.rdmablock.verbs.ibv;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

import org.rdmablock.verbs.VerbsException;

/**
 * Calls into libibverbs and librdmacm that must report errno: the generated bindings do not capture it, and the
 * JVM may change errno between two calls, so these handles capture it with {@code Linker.Option.captureCallState}.
 * Control path only (set-up and tear-down); the hot path uses the ops function pointers.
 */
final class Native {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final MemoryLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final ThreadLocal<MemorySegment> STATE = ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(CALL_STATE));

    /**
     * Why the libraries could not be loaded, or null when they were. Checked before anything touches the generated
     * bindings, whose class initialisation would fail without them.
     */
    static final String UNAVAILABLE;

    static {
        String why = null;
        try {
            SymbolLookup.libraryLookup("libibverbs.so.1", Arena.global());
            SymbolLookup.libraryLookup("librdmacm.so.1", Arena.global());
        } catch (final IllegalArgumentException | UnsatisfiedLinkError e) {
            why = "libibverbs.so.1 or librdmacm.so.1 cannot be loaded (install rdma-core: Debian's ibverbs-providers "
                + "and librdmacm1): " + e.getMessage();
        }
        UNAVAILABLE = why;
    }

    private Native() {
    }

    /**
     * A downcall to a function of the generated bindings ({@code Rdma.f$address()}, {@code Rdma.f$descriptor()})
     * whose first argument is the call-state segment that receives errno.
     */
    static MethodHandle withErrno(final MemorySegment function, final FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(function, descriptor, Linker.Option.captureCallState("errno"));
    }

    /**
     * Calls a {@link #withErrno} handle of a function that returns 0, or -1 and sets errno (librdmacm's convention),
     * and returns 0 or that errno. Control path only: the arguments are boxed.
     */
    static int errnoOf(final MethodHandle handle, final String what, final Object... arguments) {
        final Object[] withState = new Object[arguments.length + 1];
        withState[0] = state();
        System.arraycopy(arguments, 0, withState, 1, arguments.length);
        final int rc;
        try {
            rc = (int) handle.invokeWithArguments(withState);
        } catch (final Throwable e) {
            throw new VerbsException(VerbsException.EIO, what + ": " + e, e);
        }
        if (rc == 0) {
            return 0;
        }
        final int errno = errno();
        return errno != 0 ? errno : VerbsException.EIO;
    }

    /** This thread's call-state segment, to pass as the first argument of a {@link #withErrno} handle. */
    static MemorySegment state() {
        return STATE.get();
    }

    /** The errno the last {@link #withErrno} call on this thread captured. */
    static int errno() {
        return (int) ERRNO.get(state(), 0L);
    }

    /** A VerbsException for a failed call, with the errno's name and meaning. */
    static VerbsException failure(final String what, final int errno) {
        return new VerbsException(errno, what + " failed: " + describe(errno));
    }

    /** {@code ENOMEM (12): cannot allocate memory}, for the errnos verbs calls report. */
    static String describe(final int errno) {
        final String name = switch (errno) {
            case 1 -> "EPERM: operation not permitted";
            case 2 -> "ENOENT: no such file or directory";
            case 5 -> "EIO: input/output error";
            case 11 -> "EAGAIN: resource temporarily unavailable";
            case 12 -> "ENOMEM: cannot allocate memory (for registrations, check ulimit -l)";
            case 13 -> "EACCES: permission denied";
            case 14 -> "EFAULT: bad address";
            case 16 -> "EBUSY: device or resource busy";
            case 19 -> "ENODEV: no such device";
            case 22 -> "EINVAL: invalid argument";
            case 38 -> "ENOSYS: function not implemented (no RDMA support in this kernel)";
            case 61 -> "ENODATA: no data";
            case 71 -> "EPROTO: protocol error";
            case 95 -> "EOPNOTSUPP: operation not supported by this device";
            case 97 -> "EAFNOSUPPORT: address family not supported";
            case 98 -> "EADDRINUSE: address already in use";
            case 99 -> "EADDRNOTAVAIL: address not available on an RDMA device";
            case 101 -> "ENETUNREACH: network unreachable";
            case 104 -> "ECONNRESET: connection reset";
            case 110 -> "ETIMEDOUT: timed out";
            case 111 -> "ECONNREFUSED: connection refused";
            case 113 -> "EHOSTUNREACH: no route to host";
            default -> "error";
        };
        return name + " (errno " + errno + ")";
    }

    /** Reads a NUL-terminated C string. */
    static String string(final MemorySegment pointer) {
        return pointer.equals(MemorySegment.NULL) ? "" : pointer.reinterpret(4096).getString(0);
    }
}

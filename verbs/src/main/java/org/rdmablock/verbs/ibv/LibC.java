package org.rdmablock.verbs.ibv;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

import org.rdmablock.verbs.VerbsException;

/**
 * The libc calls the generated bindings do not cover (they hold only rdma-core's functions and poll): eventfd(2)
 * and the read, write and close of its descriptor, linked by hand from the C library. They wake a thread that
 * polls a completion channel's fd; no allocation per call.
 */
final class LibC {
    static final int EFD_SEMAPHORE = 1;
    static final int EFD_NONBLOCK = 0x800;
    static final int EFD_CLOEXEC = 0x80000;
    /** poll(2) event: data to read. */
    static final short POLLIN = 1;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle EVENTFD = Native.withErrno(function("eventfd"),
        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    private static final MethodHandle READ = LINKER.downcallHandle(function("read"),
        FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG));
    private static final MethodHandle WRITE = LINKER.downcallHandle(function("write"),
        FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG));
    private static final MethodHandle CLOSE = LINKER.downcallHandle(function("close"),
        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));

    private LibC() {
    }

    private static MemorySegment function(final String name) {
        return LINKER.defaultLookup().find(name).orElseThrow(() -> new UnsatisfiedLinkError("libc has no " + name));
    }

    /** eventfd(initval, flags): a new descriptor, or a VerbsException with errno. */
    static int eventfd(final int initialValue, final int flags) {
        final int fd;
        try {
            fd = (int) EVENTFD.invokeExact(Native.state(), initialValue, flags);
        } catch (final Throwable e) {
            throw new VerbsException(VerbsException.EIO, "eventfd: " + e, e);
        }
        if (fd < 0) {
            throw Native.failure("eventfd", Native.errno());
        }
        return fd;
    }

    /** read(fd, buffer, count): bytes read, or -1 (errno not kept: callers only drain). */
    static long read(final int fd, final MemorySegment buffer, final long count) {
        try {
            return (long) READ.invokeExact(fd, buffer, count);
        } catch (final Throwable e) {
            throw new VerbsException(VerbsException.EIO, "read: " + e, e);
        }
    }

    /** write(fd, buffer, count): bytes written, or -1. */
    static long write(final int fd, final MemorySegment buffer, final long count) {
        try {
            return (long) WRITE.invokeExact(fd, buffer, count);
        } catch (final Throwable e) {
            throw new VerbsException(VerbsException.EIO, "write: " + e, e);
        }
    }

    /** close(fd). */
    static void close(final int fd) {
        try {
            final int ignored = (int) CLOSE.invokeExact(fd);
        } catch (final Throwable e) {
            throw new VerbsException(VerbsException.EIO, "close: " + e, e);
        }
    }
}

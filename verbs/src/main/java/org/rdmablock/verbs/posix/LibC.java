package org.rdmablock.verbs.posix;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.util.Locale;

/**
 * The C library calls the generated bindings do not cover (they hold only rdma-core's functions and poll), linked by
 * hand through the FFM API, one binding for every module: for the target's file and memory backends open, pread,
 * pwrite, fdatasync, fallocate, ftruncate, lseek, close, mmap, munmap, madvise, mincore; for the native provider's
 * completion channel eventfd and the read and write of its descriptor. Every call but read and write returns
 * {@code -errno} on failure, so that a caller reads the result and the error in one value; errno is captured by the downcall
 * ({@code captureCallState}), as the JVM may change it before a second call could read it.
 *
 * <p>pread and pwrite are called through handles that do not capture errno: a capturing downcall slices its state
 * segment on every call (the JDK's {@code SharedUtils.checkCaptureSegment}), an allocation C2 does not always remove,
 * and reads and writes must not allocate. Only when one fails is it repeated through a capturing handle, to learn why:
 * positional I/O is idempotent, and if the repeat succeeds its result stands.
 *
 * <p>Buffers are passed as raw addresses ({@code long}), not segments: slicing a segment for each call would allocate,
 * and the I/O path must not. Callers check the bounds first. This is sound on the 64-bit Linux ABIs, where a pointer
 * and a {@code long} travel in the same register. Any thread may call; the errno capture area is per thread.
 */
public final class LibC {
    /** open(2) flags, in octal as in the kernel's headers (asm-generic: x86-64, arm64 and ppc64 agree on these). */
    public static final int O_RDONLY = 0;
    public static final int O_RDWR = 2;
    public static final int O_CREAT = 0100;
    public static final int O_DSYNC = 010000;
    /** The descriptor is not inherited by programs the daemon may start. */
    public static final int O_CLOEXEC = 02000000;
    /** O_DIRECT differs between architectures (asm-generic, arm64, powerpc). */
    public static final int O_DIRECT = switch (System.getProperty("os.arch")) {
        case "aarch64", "arm" -> 0200000;
        case "ppc64le", "ppc64" -> 0400000;
        default -> 040000;
    };
    public static final int SEEK_END = 2;
    /** lseek(2): the next offset holding data, or the next hole, at or after the one given (Linux 3.1+). */
    public static final int SEEK_DATA = 3;
    public static final int SEEK_HOLE = 4;
    /** fallocate(2): deallocate the range (it reads zeroes) without changing the file's size. */
    public static final int FALLOC_FL_KEEP_SIZE = 1;
    public static final int FALLOC_FL_PUNCH_HOLE = 2;
    public static final int PROT_READ_WRITE = 3;
    public static final int MAP_PRIVATE_ANONYMOUS = 0x02 | 0x20;
    public static final int PROT_READ = 1;
    public static final int MAP_SHARED = 0x01;
    /** madvise(2): a private anonymous range reads zeroes afterwards and its pages go back to the kernel. */
    public static final int MADV_DONTNEED = 4;
    public static final int SC_PAGESIZE = 30;
    /** preadv2(2): fail with EAGAIN rather than wait for data the page cache does not hold (Linux 4.14). */
    public static final int RWF_NOWAIT = 0x08;

    /** eventfd(2) flags: each read takes one wakeup, reads never block, the descriptor is not inherited. */
    public static final int EFD_SEMAPHORE = 1;
    public static final int EFD_NONBLOCK = 0x800;
    public static final int EFD_CLOEXEC = 0x80000;
    /** poll(2) event: data to read. */
    public static final short POLLIN = 1;

    /** The errnos the backends act on. */
    public static final int ENOENT = 2;
    public static final int ENXIO = 6;
    public static final int EINTR = 4;
    public static final int EIO = 5;
    public static final int EAGAIN = 11;
    public static final int EBADF = 9;
    public static final int EFAULT = 14;
    public static final int EINVAL = 22;
    public static final int ENOSPC = 28;
    public static final int EOPNOTSUPP = 95;
    public static final int EDQUOT = 122;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final MemoryLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final ThreadLocal<MemorySegment> STATE = ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(CALL_STATE));

    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;
    // open(path, flags, ...): the mode is variadic, which some ABIs pass differently from a fixed argument
    private static final MethodHandle OPEN = link("open", FunctionDescriptor.of(INT, ValueLayout.ADDRESS, INT, INT),
            Linker.Option.firstVariadicArg(2));
    private static final FunctionDescriptor TRANSFER = FunctionDescriptor.of(LONG, INT, LONG, LONG, LONG);
    private static final MethodHandle PREAD = LINKER.downcallHandle(function("pread"), TRANSFER);
    private static final MethodHandle PWRITE = LINKER.downcallHandle(function("pwrite"), TRANSFER);
    private static final MethodHandle PREAD_ERRNO = link("pread", TRANSFER);
    private static final MethodHandle PWRITE_ERRNO = link("pwrite", TRANSFER);
    private static final FunctionDescriptor VECTORED = FunctionDescriptor.of(LONG, INT, LONG, INT, LONG, INT);
    /** preadv2, or null where the C library has none (glibc before 2.26): reads are then never tried without waiting. */
    private static final MethodHandle PREADV2 = LINKER.defaultLookup().find("preadv2")
            .map(f -> LINKER.downcallHandle(f, VECTORED)).orElse(null);
    private static final MethodHandle PREADV2_ERRNO = PREADV2 == null ? null : link("preadv2", VECTORED);
    private static final MethodHandle FDATASYNC = link("fdatasync", FunctionDescriptor.of(INT, INT));
    private static final MethodHandle FALLOCATE = link("fallocate", FunctionDescriptor.of(INT, INT, INT, LONG, LONG));
    private static final MethodHandle FTRUNCATE = link("ftruncate", FunctionDescriptor.of(INT, INT, LONG));
    private static final MethodHandle LSEEK = link("lseek", FunctionDescriptor.of(LONG, INT, LONG, INT));
    private static final MethodHandle CLOSE = link("close", FunctionDescriptor.of(INT, INT));
    private static final MethodHandle MMAP = link("mmap", FunctionDescriptor.of(LONG, LONG, LONG, INT, INT, INT, LONG));
    private static final MethodHandle MUNMAP = link("munmap", FunctionDescriptor.of(INT, LONG, LONG));
    private static final MethodHandle MADVISE = link("madvise", FunctionDescriptor.of(INT, LONG, LONG, INT));
    /** mincore(2), not capturing errno: called per in-place read, where a failure only means "copy instead". */
    private static final MethodHandle MINCORE = LINKER.downcallHandle(function("mincore"), FunctionDescriptor.of(INT, LONG, LONG, LONG));
    private static final MethodHandle EVENTFD = link("eventfd", FunctionDescriptor.of(INT, INT, INT));
    private static final FunctionDescriptor STREAM = FunctionDescriptor.of(LONG, INT, ValueLayout.ADDRESS, LONG);
    private static final MethodHandle READ = LINKER.downcallHandle(function("read"), STREAM);
    private static final MethodHandle WRITE = LINKER.downcallHandle(function("write"), STREAM);
    private static final MethodHandle SYSCONF = link("sysconf", FunctionDescriptor.of(LONG, INT));
    /** The size of a memory page (declared after the handles {@link #pageSize()} calls). */
    public static final long PAGE_SIZE = pageSize();

    private LibC() {
    }

    private static MemorySegment function(String name) {
        return LINKER.defaultLookup().find(name).orElseThrow(() -> new UnsatisfiedLinkError("the C library has no " + name));
    }

    /** A downcall handle that captures errno: its first parameter is the state segment. */
    private static MethodHandle link(String name, FunctionDescriptor descriptor, Linker.Option... options) {
        Linker.Option[] all = new Linker.Option[options.length + 1];
        all[0] = Linker.Option.captureCallState("errno");
        System.arraycopy(options, 0, all, 1, options.length);
        // captureCallState adds the leading state segment parameter to the handle
        return LINKER.downcallHandle(function(name), descriptor, all);
    }

    /** Whether the calls here work on this system: the flags and the ABI assumptions are Linux's. */
    public static boolean supported() {
        return System.getProperty("os.name").toLowerCase(Locale.ROOT).contains("linux");
    }

    /** open(path, flags, mode): a descriptor, or -errno. */
    public static int open(String path, int flags, int mode) {
        try (Arena arena = Arena.ofConfined()) {
            return (int) control(OPEN, "open", arena.allocateFrom(path), flags, mode);
        }
    }

    /** pread(fd, address, count, offset): bytes read (0 at end of file), or -errno. Allocates nothing when it succeeds. */
    public static long pread(int fd, long address, long count, long offset) {
        return transfer(PREAD, PREAD_ERRNO, fd, address, count, offset);
    }

    /** pwrite(fd, address, count, offset): bytes written, or -errno. Allocates nothing when it succeeds. */
    public static long pwrite(int fd, long address, long count, long offset) {
        return transfer(PWRITE, PWRITE_ERRNO, fd, address, count, offset);
    }

    /**
     * preadv2(fd, {address, count}, 1, offset, RWF_NOWAIT), the iovec written into {@code iovec} (16 bytes, the calling
     * thread's own): bytes read, or a negative value when the read would wait or failed (errno is not read, which would
     * allocate: the caller makes the read again the blocking way, which learns why). Allocates nothing.
     */
    public static long preadNoWait(int fd, MemorySegment iovec, long address, long count, long offset) {
        iovec.set(LONG, 0, address);
        iovec.set(LONG, 8, count);
        try {
            return (long) PREADV2.invokeExact(fd, iovec.address(), 1, offset, RWF_NOWAIT);
        } catch (Throwable e) {
            throw new IllegalStateException("preadv2: " + e, e);
        }
    }

    /**
     * Whether reads of {@code fd} can be tried without waiting: a one-byte preadv2 with RWF_NOWAIT at offset 0 either
     * reads or answers EAGAIN (not EOPNOTSUPP, EINVAL or ENOSYS: a file system or kernel without it), and the C library
     * has preadv2.
     */
    public static boolean supportsReadNoWait(int fd) {
        if (PREADV2 == null) {
            return false;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment iovec = arena.allocate(16, 8);
            MemorySegment data = arena.allocate(1);
            iovec.set(LONG, 0, data.address());
            iovec.set(LONG, 8, 1L);
            MemorySegment state = STATE.get();
            long result = (long) PREADV2_ERRNO.invokeExact(state, fd, iovec.address(), 1, 0L, RWF_NOWAIT);
            return result >= 0 || errno(state) == EAGAIN;
        } catch (Throwable e) {
            return false;
        }
    }

    /** Calls {@code plain}; on failure repeats the call through {@code capturing} to learn errno. */
    private static long transfer(MethodHandle plain, MethodHandle capturing, int fd, long address, long count, long offset) {
        try {
            long result = (long) plain.invokeExact(fd, address, count, offset);
            if (result >= 0) {
                return result;
            }
            MemorySegment state = STATE.get();
            result = (long) capturing.invokeExact(state, fd, address, count, offset);
            return result >= 0 ? result : -errno(state);
        } catch (Throwable e) {
            throw new IllegalStateException("pread/pwrite: " + e, e);
        }
    }

    /** fdatasync(fd): 0 or -errno. Not repeated on failure: a write-back error is reported once, to the first call. */
    public static int fdatasync(int fd) {
        MemorySegment state = STATE.get();
        int result;
        try {
            result = (int) FDATASYNC.invokeExact(state, fd);
        } catch (Throwable e) {
            throw new IllegalStateException("fdatasync: " + e, e);
        }
        return result == 0 ? 0 : -errno(state);
    }

    /** fallocate(fd, mode, offset, length): 0 or -errno. */
    public static int fallocate(int fd, int mode, long offset, long length) {
        return (int) control(FALLOCATE, "fallocate", fd, mode, offset, length);
    }

    /** ftruncate(fd, length): 0 or -errno. */
    public static int ftruncate(int fd, long length) {
        return (int) control(FTRUNCATE, "ftruncate", fd, length);
    }

    /** lseek(fd, offset, whence): the resulting offset, or -errno (ENXIO: no data, or no hole, after {@code offset}). */
    public static long lseek(int fd, long offset, int whence) {
        return control(LSEEK, "lseek", fd, offset, whence);
    }

    /** The size of the file behind {@code fd} (lseek to its end), or -errno. */
    public static long size(int fd) {
        return control(LSEEK, "lseek", fd, 0L, SEEK_END);
    }

    /** close(fd): 0 or -errno. */
    public static int close(int fd) {
        return (int) control(CLOSE, "close", fd);
    }

    /** A private anonymous read-write mapping of {@code length} bytes: its address, or -errno. */
    public static long mapAnonymous(long length) {
        return control(MMAP, "mmap", 0L, length, PROT_READ_WRITE, MAP_PRIVATE_ANONYMOUS, -1, 0L);
    }

    /** A shared read-only mapping of the first {@code length} bytes of {@code fd}: its address, or -errno. */
    public static long mapFileReadOnly(int fd, long length) {
        return control(MMAP, "mmap", 0L, length, PROT_READ, MAP_SHARED, fd, 0L);
    }

    /**
     * Whether every page of {@code [address, address + length)} is in memory now (mincore(2), from the page that holds
     * {@code address}): one byte per page is written to {@code vector}, which must hold them. False when the call fails.
     */
    public static boolean resident(long address, long length, MemorySegment vector) {
        long start = address & -PAGE_SIZE;
        long span = address + length - start;
        long pages = (span + PAGE_SIZE - 1) / PAGE_SIZE;
        if (pages > vector.byteSize()) {
            return false;
        }
        int result;
        try {
            result = (int) MINCORE.invokeExact(start, span, vector.address());
        } catch (Throwable e) {
            throw new IllegalStateException("mincore: " + e, e);
        }
        if (result != 0) {
            return false;
        }
        for (long i = 0; i < pages; i++) {
            if ((vector.get(ValueLayout.JAVA_BYTE, i) & 1) == 0) {
                return false;
            }
        }
        return true;
    }

    /** munmap(address, length): 0 or -errno. */
    public static int unmapMemory(long address, long length) {
        return (int) control(MUNMAP, "munmap", address, length);
    }

    /** madvise(address, length, advice): 0 or -errno. */
    public static int madvise(long address, long length, int advice) {
        return (int) control(MADVISE, "madvise", address, length, advice);
    }

    /** The size of a memory page, asked of the system: {@link #PAGE_SIZE}. */
    private static long pageSize() {
        long size = control(SYSCONF, "sysconf", SC_PAGESIZE);
        return size > 0 ? size : 4096;
    }

    /**
     * Calls a function that returns -1 and sets errno on failure (every one here does, mmap's MAP_FAILED included):
     * its result, or -errno. Boxes its arguments: for the control path and UNMAP, not for reads and writes.
     */
    private static long control(MethodHandle function, String name, Object... arguments) {
        MemorySegment state = STATE.get();
        Object[] withState = new Object[arguments.length + 1];
        withState[0] = state;
        System.arraycopy(arguments, 0, withState, 1, arguments.length);
        long result;
        try {
            result = ((Number) function.invokeWithArguments(withState)).longValue();
        } catch (Throwable e) {
            throw new IllegalStateException(name + ": " + e, e);
        }
        return result != -1 ? result : -errno(state);
    }

    private static int errno(MemorySegment state) {
        return (int) ERRNO.get(state, 0L);
    }

    /** eventfd(initval, flags): a new descriptor, or -errno. */
    public static int eventfd(int initialValue, int flags) {
        return (int) control(EVENTFD, "eventfd", initialValue, flags);
    }

    /** read(fd, buffer, count): bytes read, or -1 (errno not kept: callers only drain an eventfd); no allocation. */
    public static long read(int fd, MemorySegment buffer, long count) {
        try {
            return (long) READ.invokeExact(fd, buffer, count);
        } catch (Throwable e) {
            throw new IllegalStateException("read: " + e, e);
        }
    }

    /** write(fd, buffer, count): bytes written, or -1; no allocation. */
    public static long write(int fd, MemorySegment buffer, long count) {
        try {
            return (long) WRITE.invokeExact(fd, buffer, count);
        } catch (Throwable e) {
            throw new IllegalStateException("write: " + e, e);
        }
    }

    /** {@code ENOSPC (errno 28): no space left on device}, for the errnos file and memory calls report. */
    public static String describe(int errno) {
        String name = switch (errno) {
            case 1 -> "EPERM: operation not permitted";
            case 2 -> "ENOENT: no such file or directory";
            case 4 -> "EINTR: interrupted system call";
            case 5 -> "EIO: input/output error";
            case 6 -> "ENXIO: no such device or address";
            case 9 -> "EBADF: bad file descriptor";
            case 11 -> "EAGAIN: resource temporarily unavailable";
            case 12 -> "ENOMEM: cannot allocate memory";
            case 13 -> "EACCES: permission denied";
            case 14 -> "EFAULT: bad address";
            case 16 -> "EBUSY: device or resource busy";
            case 17 -> "EEXIST: file exists";
            case 19 -> "ENODEV: no such device";
            case 20 -> "ENOTDIR: a path component is not a directory";
            case 21 -> "EISDIR: is a directory";
            case 22 -> "EINVAL: invalid argument (with O_DIRECT: the file system refuses it, or a misaligned buffer)";
            case 23 -> "ENFILE: too many open files in the system";
            case 24 -> "EMFILE: too many open files";
            case 26 -> "ETXTBSY: text file busy";
            case 27 -> "EFBIG: file too large";
            case 28 -> "ENOSPC: no space left on device";
            case 30 -> "EROFS: read-only file system";
            case 36 -> "ENAMETOOLONG: file name too long";
            case 40 -> "ELOOP: too many symbolic links";
            case 75 -> "EOVERFLOW: value too large";
            case 95 -> "EOPNOTSUPP: operation not supported";
            case 122 -> "EDQUOT: disk quota exceeded";
            default -> "error";
        };
        return name + " (errno " + errno + ")";
    }
}

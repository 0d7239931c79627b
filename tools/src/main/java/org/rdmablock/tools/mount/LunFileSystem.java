package org.rdmablock.tools.mount;

import org.cryptomator.jfuse.api.DirFiller;
import org.cryptomator.jfuse.api.Errno;
import org.cryptomator.jfuse.api.FileInfo;
import org.cryptomator.jfuse.api.FuseConfig;
import org.cryptomator.jfuse.api.FuseConnInfo;
import org.cryptomator.jfuse.api.FuseOperations;
import org.cryptomator.jfuse.api.Stat;
import org.cryptomator.jfuse.api.Statvfs;
import org.rdmablock.tools.bench.Units;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * The mounted file system (jfuse's {@link FuseOperations}): a root directory holding one file per LUN,
 * {@code lunN.img}, as large as the LUN. Reads and writes go to the LUN ({@link LunFile}); fsync sends SYNCHRONIZE
 * CACHE; a file opened O_SYNC or O_DSYNC writes with FUA. The size is fixed: truncate to any other size is EINVAL (as
 * for a block device), O_TRUNC is ignored; no file is created or removed. Called by libfuse's worker threads, any
 * number at once.
 */
final class LunFileSystem implements FuseOperations {
    /**
     * 1 MiB: the largest request asked of the kernel ({@code max_write}; libfuse then sets {@code max_pages} to match,
     * and direct reads come as large), the LUN's maximum transfer with our target. libfuse 3.14 asks for as much by
     * default; set here so as not to depend on it.
     */
    static final int MAX_REQUEST_BYTES = 1 << 20;
    /**
     * 64 requests the kernel may have queued to us at once for asynchronous direct I/O (its default is 12, fewer than
     * fio's iodepth 16; and libaio's I/Os are such background requests).
     */
    static final int MAX_BACKGROUND = 64;
    /** Linux's O_DSYNC bit, also set by O_SYNC. */
    static final int O_DSYNC = 010000;
    /** The file handle's bit for "write with FUA" (the low 32 bits are the file's index). */
    private static final long FUA_HANDLE_BIT = 1L << 32;
    private static final Logger LOG = LoggerFactory.getLogger(LunFileSystem.class);

    private final List<LunFile> files;
    private final Errno errno;
    private final Instant mountedAt = Instant.ofEpochSecond(System.currentTimeMillis() / 1000);
    private volatile String negotiated = "not yet";
    /** The largest read or write the kernel sent so far (written only when it grows: a rare racy max is enough). */
    private volatile long largestRequest;

    LunFileSystem(final List<LunFile> files, final Errno errno) {
        this.files = List.copyOf(files);
        this.errno = errno;
    }

    @Override
    public Errno errno() {
        return errno;
    }

    @Override
    public Set<Operation> supportedOperations() {
        return EnumSet.of(Operation.INIT, Operation.GET_ATTR, Operation.READ_DIR, Operation.OPEN, Operation.READ,
                Operation.WRITE, Operation.FLUSH, Operation.FSYNC, Operation.RELEASE, Operation.STATFS, Operation.TRUNCATE);
    }

    @Override
    public void init(final FuseConnInfo conn, final FuseConfig config) {
        conn.setMaxWrite(MAX_REQUEST_BYTES);
        conn.setMaxReadahead(MAX_REQUEST_BYTES);
        conn.setMaxBackground(MAX_BACKGROUND);
        conn.setCongestionThreshold(MAX_BACKGROUND * 3 / 4);
        // asynchronous direct I/O: an aio's requests go to us at once; O_TRUNC comes with open, where it is ignored
        conn.setWant(conn.want() | (conn.capable() & (FuseConnInfo.FUSE_CAP_ASYNC_DIO | FuseConnInfo.FUSE_CAP_ATOMIC_O_TRUNC)));
        negotiated = "FUSE protocol " + conn.protoMajor() + "." + conn.protoMinor() + ", max_write " + conn.maxWrite()
                + ", max_background " + conn.maxBackground() + ", async direct I/O "
                + ((conn.want() & FuseConnInfo.FUSE_CAP_ASYNC_DIO) != 0 ? "on" : "off");
        LOG.debug(negotiated);
    }

    /** The files, each as its name, size and block size. */
    List<String> fileNames() {
        return files.stream().map(f -> f.name() + " (" + Units.formatSize(f.size()) + ", " + f.blockSize() + "-byte blocks)").toList();
    }

    /** What {@link #init} agreed with the kernel, in words. */
    String negotiated() {
        return negotiated;
    }

    @Override
    public int getattr(final String path, final Stat stat, final FileInfo fi) {
        if ("/".equals(path)) {
            stat.setMode(Stat.S_IFDIR | 0755);
            stat.setNLink((short) 2);
        } else {
            final LunFile file = byPath(path);
            if (file == null) {
                return -errno.enoent();
            }
            stat.setMode(Stat.S_IFREG | 0644);
            stat.setNLink((short) 1);
            stat.setSize(file.size());
        }
        stat.mTime().set(mountedAt);
        stat.cTime().set(mountedAt);
        stat.aTime().set(mountedAt);
        return 0;
    }

    @Override
    public int readdir(final String path, final DirFiller filler, final long offset, final FileInfo fi, final int flags) {
        if (!"/".equals(path)) {
            return -errno.enotdir();
        }
        filler.fill(".", s -> { }, 0, 0);
        filler.fill("..", s -> { }, 0, 0);
        for (final LunFile file : files) {
            filler.fill(file.name(), s -> { }, 0, 0);
        }
        return 0;
    }

    @Override
    public int open(final String path, final FileInfo fi) {
        final int index = indexOf(path);
        if (index < 0) {
            return "/".equals(path) ? -errno.eisdir() : -errno.enoent();
        }
        fi.setFh(index | ((fi.getFlags() & O_DSYNC) != 0 ? FUA_HANDLE_BIT : 0));
        return 0;
    }

    @Override
    public int read(final String path, final ByteBuffer buf, final long count, final long offset, final FileInfo fi) {
        noteSize(count);
        return files.get((int) fi.getFh()).read(buf, (int) Math.min(count, buf.capacity()), offset);
    }

    @Override
    public int write(final String path, final ByteBuffer buf, final long count, final long offset, final FileInfo fi) {
        noteSize(count);
        final long handle = fi.getFh();
        return files.get((int) handle).write(buf, (int) Math.min(count, buf.capacity()), offset, (handle & FUA_HANDLE_BIT) != 0);
    }

    private void noteSize(final long count) {
        if (count > largestRequest) {
            largestRequest = count;
        }
    }

    /** The largest read or write the kernel has sent (1 MiB once {@link #init}'s max_write took effect). */
    long largestRequest() {
        return largestRequest;
    }

    /** close(): nothing is cached here, so nothing to write back; durability is fsync's. */
    @Override
    public int flush(final String path, final FileInfo fi) {
        return 0;
    }

    @Override
    public int fsync(final String path, final int datasync, final FileInfo fi) {
        return files.get((int) fi.getFh()).flush();
    }

    @Override
    public int release(final String path, final FileInfo fi) {
        return 0;
    }

    @Override
    public int truncate(final String path, final long size, final FileInfo fi) {
        final LunFile file = byPath(path);
        if (file == null) {
            return -errno.enoent();
        }
        return size == file.size() ? 0 : -errno.einval();
    }

    @Override
    public int statfs(final String path, final Statvfs statvfs) {
        long bytes = 0;
        for (final LunFile file : files) {
            bytes += file.size();
        }
        statvfs.setBsize(4096);
        statvfs.setFrsize(4096);
        statvfs.setBlocks(bytes / 4096);
        statvfs.setBfree(0);
        statvfs.setBavail(0);
        statvfs.setNameMax(255);
        return 0;
    }

    private LunFile byPath(final String path) {
        final int index = indexOf(path);
        return index < 0 ? null : files.get(index);
    }

    /** The index of the file {@code path} ("/lun0.img") names, or -1. */
    private int indexOf(final String path) {
        for (int i = 0; i < files.size(); i++) {
            final String name = files.get(i).name();
            if (path.length() == name.length() + 1 && path.charAt(0) == '/' && path.endsWith(name)) {
                return i;
            }
        }
        return -1;
    }
}

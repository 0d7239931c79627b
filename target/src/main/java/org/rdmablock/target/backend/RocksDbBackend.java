package org.rdmablock.target.backend;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.ReentrantLock;

import org.rdmablock.protocol.scsi.BackendStatus;
import org.rdmablock.target.config.LunConfig;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Status;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * A LUN in a RocksDB database (one database per LUN directory), for thin, compressed, crash-safe storage: the device
 * is cut into {@link #BLOCK_GROUP_BYTES}-byte block groups, each stored under the key (LUN number, group index); a
 * group never written, or unmapped, has no key and reads as zeroes. Runs each operation on the calling backend
 * thread through RocksDB's JNI calls and completes it before returning; several threads may call at once.
 *
 * <p>Block groups of 4 KiB: the target's I/O is in 4 KiB blocks, so a 4 KiB-block LUN never reads a group to modify
 * part of it, and a random 4 KiB write puts 4 KiB into the WAL. Larger groups (64 KiB) would mean fewer keys, a
 * smaller index and better compression, but a 16 times larger read-modify-write and WAL record for every random 4 KiB
 * write. A 512-byte-block LUN writes partial groups: those are read, patched and put back, under a lock per group
 * (striped, {@link #LOCK_STRIPES}) so that two writes to different blocks of one group cannot lose each other's bytes.
 *
 * <p>A write is one {@link WriteBatch} (atomic: after a crash all of it is there or none). Durability: in write-through
 * every batch is written with {@code sync=true} (the WAL is fsynced before the write returns); in write-back, FUA writes
 * are, others reach the WAL file with a write(2) (they survive the process's death, not the machine's), and
 * {@link #flush} syncs the WAL ({@code flushWal(true)}). UNMAP deletes whole groups with one range tombstone and zeroes
 * the unmapped part of a partial group (deleting the group when nothing else is left in it). Many small unmaps leave
 * many range tombstones, which slow reads until compaction drops them.
 *
 * <p>Allocation: each backend thread gets, once, a scratch key and value (direct buffers) and a write batch; reads
 * and writes copy one group at a time between the caller's segment and the scratch value (one memcpy per group, as
 * RocksDB's direct-buffer calls take a ByteBuffer and a view of the caller's segment would be a new object per call).
 * The JNI calls themselves allocate nothing on the Java heap on success ({@code BackendAllocationTest} measures it);
 * an error allocates its exception. UNMAP allocates its range keys.
 */
public final class RocksDbBackend extends AbstractLunBackend {
    /** Bytes of one block group, the unit stored under one key: 4 KiB (see the class comment for the trade-off). */
    public static final int BLOCK_GROUP_BYTES = 4096;
    /** Stripes of the group locks of LUNs whose blocks are smaller than a group; a power of two. */
    static final int LOCK_STRIPES = 1024;
    /** Bits per key of the Bloom filter, which answers reads of unwritten groups without reading table blocks. */
    static final double BLOOM_BITS_PER_KEY = 10;
    /** Informational LOG files RocksDB keeps in the LUN directory. */
    static final int KEPT_INFO_LOGS = 3;
    /** Key: LUN number (4 bytes) then group index (8 bytes), big-endian, so that keys sort as the device does. */
    private static final int KEY_BYTES = 12;
    /** Where the LUN number and group size the database was created with are kept; sorts apart from every block key. */
    private static final byte[] LAYOUT_KEY = "rdmablock:layout".getBytes(StandardCharsets.US_ASCII);
    private static final int LAYOUT_BYTES = 8;
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(RocksDbBackend.class);

    private final RocksDB db;
    private final Options options;
    private final LRUCache cache;
    private final BloomFilter filter;
    private final ReadOptions readOptions = new ReadOptions();
    private final WriteOptions bufferedWrite = new WriteOptions();
    private final WriteOptions syncedWrite = new WriteOptions().setSync(true);
    /** Null when the LUN's blocks are whole groups: no write is then partial, and none needs a lock. */
    private final ReentrantLock[] groupLocks;
    private final Queue<Scratch> scratches = new ConcurrentLinkedQueue<>();
    private final ThreadLocal<Scratch> scratch = ThreadLocal.withInitial(this::newScratch);
    private volatile String lastLoggedError;

    /** One backend thread's buffers, allocated on its first operation and freed by {@link #close()}. */
    private static final class Scratch {
        final ByteBuffer key = ByteBuffer.allocateDirect(KEY_BYTES).order(ByteOrder.BIG_ENDIAN);
        final ByteBuffer value = ByteBuffer.allocateDirect(BLOCK_GROUP_BYTES);
        final MemorySegment valueSegment = MemorySegment.ofBuffer(value);
        final WriteBatch batch = new WriteBatch();
    }

    private RocksDbBackend(LunConfig config, RocksDB db, Options options, LRUCache cache, BloomFilter filter) {
        super(config);
        this.db = db;
        this.options = options;
        this.cache = cache;
        this.filter = filter;
        this.groupLocks = config.blockSize() < BLOCK_GROUP_BYTES ? new ReentrantLock[LOCK_STRIPES] : null;
        if (groupLocks != null) {
            for (int i = 0; i < LOCK_STRIPES; i++) {
                groupLocks[i] = new ReentrantLock();
            }
        }
    }

    /**
     * Opens the LUN's database, or creates it with {@code create = true} (in an existing folder: RocksDB makes only the
     * database's own directory); the block cache is an LRU cache of
     * {@code blockCacheBytes}, none when 0. Throws {@link BackendOpenException} saying why it cannot.
     */
    static RocksDbBackend open(LunConfig config) {
        try {
            RocksDB.loadLibrary();
        } catch (RuntimeException | UnsatisfiedLinkError e) {
            throw failure(config, "cannot load RocksDB's native library: " + e.getMessage(), e);
        }
        if (Files.exists(config.path()) && !Files.isDirectory(config.path())) {
            throw failure(config, "not a directory: a rocksdb LUN's path is the database's directory", null);
        }
        if (!Files.isDirectory(config.path()) && (config.readOnly() || !config.create())) {
            throw failure(config, "no database directory there" + (config.readOnly() ? " (a read-only LUN is never created)"
                    : " (create = true makes a new, empty one; never its folder)"), null);
        }
        LRUCache cache = config.blockCacheBytes() > 0 ? new LRUCache(config.blockCacheBytes()) : null;
        BloomFilter filter = new BloomFilter(BLOOM_BITS_PER_KEY);
        BlockBasedTableConfig table = new BlockBasedTableConfig().setFilterPolicy(filter);
        if (cache != null) {
            table.setBlockCache(cache);
        } else {
            table.setNoBlockCache(true);
        }
        Options options = new Options().setCreateIfMissing(config.create() && !config.readOnly()).setTableFormatConfig(table)
                .setKeepLogFileNum(KEPT_INFO_LOGS);
        RocksDB db = null;
        try {
            db = config.readOnly() ? RocksDB.openReadOnly(options, config.path().toString())
                    : RocksDB.open(options, config.path().toString());
            checkLayout(config, db);
            return new RocksDbBackend(config, db, options, cache, filter);
        } catch (RocksDBException | RuntimeException e) {
            if (db != null) {
                db.close();
            }
            options.close();
            filter.close();
            if (cache != null) {
                cache.close();
            }
            if (e instanceof BackendOpenException refused) {
                throw refused;
            }
            String message = String.valueOf(e.getMessage());
            boolean locked = message.contains("lock") || message.contains("LOCK");
            throw failure(config, "cannot open the RocksDB database: " + message
                    + (locked ? " (is another process, or another LUN, using this directory?)" : ""), e);
        }
    }

    /**
     * Records the LUN number and group size in a new database, and checks them in an existing one: a directory of
     * another LUN, or of another layout, is refused rather than served as if empty. The size is not recorded: it may
     * change (growing a thin LUN is harmless; shrinking keeps the data past the end, unreachable).
     */
    private static void checkLayout(LunConfig config, RocksDB db) throws RocksDBException {
        byte[] recorded = db.get(LAYOUT_KEY);
        if (recorded == null) {
            boolean empty;
            try (RocksIterator keys = db.newIterator()) {
                keys.seekToFirst();
                empty = !keys.isValid();
            }
            if (!empty || config.readOnly()) {
                throw failure(config, "the directory holds a RocksDB database that is not a LUN's (no layout record)", null);
            }
            ByteBuffer layout = ByteBuffer.allocate(LAYOUT_BYTES).putInt(config.number()).putInt(BLOCK_GROUP_BYTES);
            try (WriteOptions synced = new WriteOptions().setSync(true)) {
                db.put(synced, LAYOUT_KEY, layout.array());
            }
            return;
        }
        if (recorded.length != LAYOUT_BYTES) {
            throw failure(config, "the database's layout record is " + recorded.length + " bytes, not " + LAYOUT_BYTES, null);
        }
        ByteBuffer layout = ByteBuffer.wrap(recorded);
        int recordedLun = layout.getInt();
        int recordedGroup = layout.getInt();
        if (recordedLun != config.number()) {
            throw failure(config, "the database belongs to LUN " + recordedLun + ", not to LUN " + config.number(), null);
        }
        if (recordedGroup != BLOCK_GROUP_BYTES) {
            throw failure(config, "the database was written with " + recordedGroup + "-byte block groups, this version uses "
                    + BLOCK_GROUP_BYTES, null);
        }
    }

    private static BackendOpenException failure(LunConfig config, String cause, Throwable underlying) {
        return new BackendOpenException(config.number(), "rocksdb", config.path(), cause, underlying);
    }

    private Scratch newScratch() {
        Scratch created = new Scratch();
        scratches.add(created);
        return created;
    }

    /** Every call may wait (a compaction stall, a flush of the write-ahead log): deferred off a poller that must not block. */
    @Override
    boolean mayBlock() {
        return true;
    }

    @Override
    BackendStatus readChecked(long deviceOffset, MemorySegment buffer, long bufferOffset, int length) {
        Scratch s = scratch.get();
        try {
            for (long done = 0; done < length; ) {
                long at = deviceOffset + done;
                int inGroup = (int) (at % BLOCK_GROUP_BYTES);
                int n = (int) Math.min(length - done, BLOCK_GROUP_BYTES - inGroup);
                if (load(s, at / BLOCK_GROUP_BYTES)) {
                    MemorySegment.copy(s.valueSegment, inGroup, buffer, bufferOffset + done, n);
                } else {
                    Zeroes.fill(buffer, bufferOffset + done, n);
                }
                done += n;
            }
            return BackendStatus.OK;
        } catch (RocksDBException e) {
            return failed("get", e);
        }
    }

    @Override
    BackendStatus writeChecked(long deviceOffset, MemorySegment buffer, long bufferOffset, int length, boolean forceUnitAccess) {
        if (length == 0) {
            return BackendStatus.OK;
        }
        Scratch s = scratch.get();
        long firstGroup = deviceOffset / BLOCK_GROUP_BYTES;
        long lastGroup = (deviceOffset + length - 1) / BLOCK_GROUP_BYTES;
        lockGroups(firstGroup, lastGroup);
        try {
            s.batch.clear();
            for (long done = 0; done < length; ) {
                long at = deviceOffset + done;
                long group = at / BLOCK_GROUP_BYTES;
                int inGroup = (int) (at % BLOCK_GROUP_BYTES);
                int n = (int) Math.min(length - done, BLOCK_GROUP_BYTES - inGroup);
                if (n < BLOCK_GROUP_BYTES && !load(s, group)) { // read-modify-write of a partial group
                    Zeroes.fill(s.valueSegment, 0, BLOCK_GROUP_BYTES);
                }
                MemorySegment.copy(buffer, bufferOffset + done, s.valueSegment, inGroup, n);
                s.value.clear();
                s.batch.put(key(s, group), s.value);
                done += n;
            }
            db.write(forceUnitAccess || writeThrough ? syncedWrite : bufferedWrite, s.batch);
            return BackendStatus.OK;
        } catch (RocksDBException e) {
            return failed("write", e);
        } finally {
            unlockGroups(firstGroup, lastGroup);
        }
    }

    /** Syncs the WAL: every write before it is then in a synced WAL file. */
    @Override
    BackendStatus flushChecked() {
        try {
            db.flushWal(true);
            return BackendStatus.OK;
        } catch (RocksDBException e) {
            return failed("flushWal", e);
        }
    }

    /**
     * Mapped: the block groups that have a key; deallocated: those that have none (never written, or unmapped whole),
     * which read as zeroes. One iterator seek, then a step per present group of the run.
     */
    @Override
    public long provisioning(long deviceOffset, long length) {
        long group = deviceOffset / BLOCK_GROUP_BYTES;
        long end = deviceOffset + length;
        try (RocksIterator keys = db.newIterator(readOptions)) {
            keys.seek(keyBytes(group));
            long present = keyedGroup(keys);
            if (present != group) {
                long next = present < 0 ? end : Math.min(end, present * BLOCK_GROUP_BYTES);
                return -(next - deviceOffset);
            }
            long expected = group;
            while (present == expected && expected * BLOCK_GROUP_BYTES < end) {
                expected++;
                keys.next();
                present = keyedGroup(keys);
            }
            return Math.min(end, expected * BLOCK_GROUP_BYTES) - deviceOffset;
        }
    }

    /** The group of this LUN under the iterator, or -1 past the LUN's keys. */
    private long keyedGroup(RocksIterator keys) {
        if (!keys.isValid()) {
            return -1;
        }
        ByteBuffer key = ByteBuffer.wrap(keys.key());
        return key.remaining() == KEY_BYTES && key.getInt(0) == lun ? key.getLong(4) : -1;
    }

    /** Zeroes the unmapped part of partial groups at the two ends, and deletes the whole groups between them. */
    @Override
    BackendStatus unmapChecked(long deviceOffset, long length) {
        if (length == 0) {
            return BackendStatus.OK;
        }
        Scratch s = scratch.get();
        long end = deviceOffset + length;
        long firstGroup = deviceOffset / BLOCK_GROUP_BYTES;
        long lastGroup = (end - 1) / BLOCK_GROUP_BYTES;
        long firstWhole = (deviceOffset + BLOCK_GROUP_BYTES - 1) / BLOCK_GROUP_BYTES;
        long endWhole = end / BLOCK_GROUP_BYTES;
        lockGroups(firstGroup, lastGroup);
        try {
            s.batch.clear();
            if (firstWhole >= endWhole) { // no whole group: the range lies in one or two partial ones
                zeroPart(s, firstGroup, deviceOffset, Math.min(end, (firstGroup + 1) * BLOCK_GROUP_BYTES));
                if (lastGroup != firstGroup) {
                    zeroPart(s, lastGroup, lastGroup * BLOCK_GROUP_BYTES, end);
                }
            } else {
                if (firstWhole > firstGroup) {
                    zeroPart(s, firstGroup, deviceOffset, firstWhole * BLOCK_GROUP_BYTES);
                }
                s.batch.deleteRange(keyBytes(firstWhole), keyBytes(endWhole));
                if (endWhole <= lastGroup) {
                    zeroPart(s, lastGroup, endWhole * BLOCK_GROUP_BYTES, end);
                }
            }
            db.write(writeThrough ? syncedWrite : bufferedWrite, s.batch);
            return BackendStatus.OK;
        } catch (RocksDBException e) {
            return failed("unmap", e);
        } finally {
            unlockGroups(firstGroup, lastGroup);
        }
    }

    /** Adds to the batch: group {@code group} with device bytes [from, to) zeroed, or its deletion if nothing is left. */
    private void zeroPart(Scratch s, long group, long from, long to) throws RocksDBException {
        if (!load(s, group)) {
            return; // not stored: reads zeroes already
        }
        long groupStart = group * BLOCK_GROUP_BYTES;
        Zeroes.fill(s.valueSegment, from - groupStart, to - from);
        if (MemorySegment.mismatch(s.valueSegment, 0, BLOCK_GROUP_BYTES, Zeroes.SEGMENT, 0, BLOCK_GROUP_BYTES) == -1) {
            s.batch.delete(key(s, group));
        } else {
            s.value.clear();
            s.batch.put(key(s, group), s.value);
        }
    }

    /**
     * Reads group {@code group} into the scratch value: true when stored, false when never written (or unmapped).
     * A stored value of another size is corruption, reported as a RocksDB error.
     */
    private boolean load(Scratch s, long group) throws RocksDBException {
        s.value.clear();
        int size = db.get(readOptions, key(s, group), s.value);
        if (size == RocksDB.NOT_FOUND) {
            return false;
        }
        if (size != BLOCK_GROUP_BYTES) {
            throw new RocksDBException("group " + group + " holds " + size + " bytes, not " + BLOCK_GROUP_BYTES,
                    new Status(Status.Code.Corruption, Status.SubCode.None, null));
        }
        return true;
    }

    /** The scratch key set to {@code group}, positioned for one use (RocksDB consumes it). */
    private ByteBuffer key(Scratch s, long group) {
        return s.key.clear().putInt(0, lun).putLong(4, group);
    }

    private byte[] keyBytes(long group) {
        return ByteBuffer.allocate(KEY_BYTES).putInt(lun).putLong(group).array();
    }

    /** Locks the stripes of groups [first, last] in increasing stripe order (so that two writers cannot deadlock). */
    private void lockGroups(long first, long last) {
        if (groupLocks != null) {
            forEachStripe(first, last, true);
        }
    }

    private void unlockGroups(long first, long last) {
        if (groupLocks != null) {
            forEachStripe(first, last, false);
        }
    }

    /** Locks or unlocks the stripes of groups [first, last], in increasing stripe order. */
    private void forEachStripe(long first, long last, boolean lock) {
        int mask = LOCK_STRIPES - 1;
        boolean all = last - first + 1 >= LOCK_STRIPES;
        int from = all ? 0 : (int) (first & mask);
        int to = all ? mask : (int) (last & mask);
        if (from > to) { // the range wraps around the stripes: the low ones first
            stripes(0, to, lock);
            stripes(from, mask, lock);
        } else {
            stripes(from, to, lock);
        }
    }

    private void stripes(int from, int to, boolean lock) {
        for (int i = from; i <= to; i++) {
            if (lock) {
                groupLocks[i].lock();
            } else {
                groupLocks[i].unlock();
            }
        }
    }

    /** Logs a RocksDB failure (once per distinct message in a row) and maps it to a status. */
    private BackendStatus failed(String call, RocksDBException e) {
        String message = e.getMessage();
        if (!message.equals(lastLoggedError)) {
            lastLoggedError = message;
            LOG.warn("{}: {} failed: {}", logName(), call, message);
        }
        Status status = e.getStatus();
        if (status == null) {
            return BackendStatus.IO_ERROR;
        }
        if (status.getSubCode() == Status.SubCode.NoSpace) {
            return BackendStatus.NO_SPACE;
        }
        return switch (status.getCode()) {
            case IOError, Corruption, Incomplete -> BackendStatus.IO_ERROR;
            default -> BackendStatus.INTERNAL_ERROR;
        };
    }

    /** Growing adds block groups never written (they read as zeroes); shrinking would leave the cut-off ones stored. */
    @Override
    String whyNotResizableTo(long to) {
        return to < sizeBytes ? "a rocksdb LUN is not shrunk while it serves (the blocks past the new end would stay in"
                + " the database and reappear at a later grow)" : null;
    }

    @Override
    void release() {
        for (Scratch s : scratches) {
            s.batch.close();
        }
        db.close();
        readOptions.close();
        bufferedWrite.close();
        syncedWrite.close();
        options.close();
        filter.close();
        if (cache != null) {
            cache.close();
        }
    }

    @Override
    public String toString() {
        return "rocksdb " + path + " (" + policy() + ")";
    }
}

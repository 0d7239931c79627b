package org.rdmablock.target.backend.crash;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

import org.rdmablock.protocol.scsi.BackendCallback;
import org.rdmablock.protocol.scsi.BackendStatus;
import org.rdmablock.target.backend.BackendFactory;
import org.rdmablock.target.backend.LunBackend;
import org.rdmablock.target.config.LunConfig;
import org.rdmablock.target.config.LunConfig.BackendKind;
import org.rdmablock.target.config.LunConfig.WriteCachePolicy;

/**
 * The child JVM of the crash test: opens a backend and streams the writes of a {@link WriteSchedule} from several
 * writer threads until it is killed, printing {@link AcknowledgedWrites#line} on stdout (unbuffered, one write(2) each)
 * for each write whose completion said OK; in write-back it first flushes, so an acknowledgement means durable in
 * both policies. Each writer thread waits for its write (and flush) before the next, so at most one of its writes is
 * unacknowledged at any time.
 *
 * <p>Arguments: {@code kind path writeCache seed writers blocks blockSize}.
 */
public final class CrashWriter {
    /** How long the writer runs if nobody kills it, so that a lost parent does not leave it running for long. */
    static final long LIFETIME_MILLIS = 60_000;
    /** The LUN number the writer's backend is opened with. */
    static final int LUN = 0;
    /** RocksDB block cache of the writer and of the check. */
    static final long CACHE_BYTES = 8L << 20;

    private CrashWriter() {
    }

    /** The configuration both the writer and the check open the backend with. */
    public static LunConfig lunConfig(BackendKind kind, Path path, WriteCachePolicy writeCache, WriteSchedule schedule) {
        return new LunConfig(LUN, kind, path, (long) schedule.blocks() * schedule.blockSize(), schedule.blockSize(), false,
                writeCache, false, kind == BackendKind.ROCKSDB ? CACHE_BYTES : 0, List.of(), true, false);
    }

    /** The arguments of {@link #main} for this run. */
    public static List<String> arguments(BackendKind kind, Path path, WriteCachePolicy writeCache, WriteSchedule schedule) {
        return List.of(kind.name(), path.toString(), writeCache.name(), Long.toString(schedule.seed()),
                Integer.toString(schedule.writers()), Integer.toString(schedule.blocks()), Integer.toString(schedule.blockSize()));
    }

    public static void main(String[] args) throws InterruptedException {
        BackendKind kind = BackendKind.valueOf(args[0]);
        Path path = Path.of(args[1]);
        WriteCachePolicy writeCache = WriteCachePolicy.valueOf(args[2]);
        WriteSchedule schedule = new WriteSchedule(Long.parseLong(args[3]), Integer.parseInt(args[4]),
                Integer.parseInt(args[5]), Integer.parseInt(args[6]));
        LunBackend backend = BackendFactory.open(lunConfig(kind, path, writeCache, schedule));
        FileOutputStream out = new FileOutputStream(FileDescriptor.out);
        for (int w = 0; w < schedule.writers(); w++) {
            int writer = w;
            Thread.ofPlatform().daemon().name("writer-" + w)
                    .start(() -> writeUntilKilled(backend, schedule, writer, writeCache == WriteCachePolicy.WRITE_BACK, out));
        }
        Thread.sleep(LIFETIME_MILLIS); // not a wait for a state: a bound on the writer's life, should no kill come
        System.err.println("not killed within " + LIFETIME_MILLIS + " ms");
        System.exit(3);
    }

    private static void writeUntilKilled(LunBackend backend, WriteSchedule schedule, int writer, boolean flushFirst,
                                         FileOutputStream out) {
        Status status = new Status();
        MemorySegment buffer = Arena.ofConfined().allocate(schedule.blockSize(), 4096);
        for (long seq = 0; ; seq++) {
            long block = schedule.blockOf(writer, seq);
            schedule.fill(buffer, 0, block, seq);
            backend.write(block * schedule.blockSize(), buffer, 0, schedule.blockSize(), false, status);
            status.require("write " + seq + " of writer " + writer + " to block " + block);
            if (flushFirst) {
                backend.flush(status);
                status.require("flush after write " + seq + " of writer " + writer);
            }
            byte[] line = AcknowledgedWrites.line(writer, seq).getBytes(StandardCharsets.US_ASCII);
            synchronized (out) {
                try {
                    out.write(line);
                } catch (IOException e) {
                    System.exit(4); // the parent is gone
                }
            }
        }
    }

    /** The writer thread's callback: the backends complete inline, so the status is there when the call returns. */
    private static final class Status implements BackendCallback {
        private BackendStatus last;

        @Override
        public void completed(BackendStatus status) {
            last = status;
        }

        void require(String what) {
            if (last != BackendStatus.OK) {
                System.err.println(what + " failed: " + last);
                System.exit(2);
            }
            last = null;
        }
    }
}

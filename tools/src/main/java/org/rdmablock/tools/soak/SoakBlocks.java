package org.rdmablock.tools.soak;

import org.rdmablock.initiator.Lun;
import org.rdmablock.initiator.SrpInitiator;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Where a soak writer's blocks go, one block at a time: a LUN through the initiator library, or the LUN's file on the
 * FUSE volume (opened {@code O_DIRECT}, so that every read and write reaches the target, not the page cache). Made by
 * the soak's controlling thread, then used by one writer thread only.
 */
sealed interface SoakBlocks extends AutoCloseable {
    /** What the writer goes through, for the summary: "library" or "fuse". */
    String client();

    int blockSize();

    /** A buffer for one block that {@link #write} and {@link #read} accept. */
    MemorySegment buffer();

    void write(long lba, MemorySegment block) throws IOException;

    void read(long lba, MemorySegment block) throws IOException;

    @Override
    void close() throws IOException;

    /** Through the initiator library: the session's registered buffers, one command per block. */
    record Library(SrpInitiator initiator, Lun lun) implements SoakBlocks {
        @Override
        public String client() {
            return "library";
        }

        @Override
        public int blockSize() {
            return lun.blockSize();
        }

        @Override
        public MemorySegment buffer() {
            return initiator.allocateBuffer(lun.blockSize());
        }

        @Override
        public void write(final long lba, final MemorySegment block) throws IOException {
            lun.writeBlocking(lba, 1, block, 0, false);
        }

        @Override
        public void read(final long lba, final MemorySegment block) throws IOException {
            lun.readBlocking(lba, 1, block, 0);
        }

        @Override
        public void close() {
            // the session is the soak's
        }
    }

    /**
     * Through the FUSE volume: positional reads and writes of the mounted LUN file, buffers aligned to the block as
     * O_DIRECT asks. An I/O the mount fails (EIO after its I/O timeout, the target away) throws.
     */
    final class Fuse implements SoakBlocks {
        private final FileChannel file;
        private final int blockSize;
        private final Arena arena = Arena.ofShared();

        Fuse(final Path lunFile, final int blockSize) throws IOException {
            this.file = FileChannel.open(lunFile, StandardOpenOption.READ, StandardOpenOption.WRITE,
                    com.sun.nio.file.ExtendedOpenOption.DIRECT);
            this.blockSize = blockSize;
        }

        @Override
        public String client() {
            return "fuse";
        }

        @Override
        public int blockSize() {
            return blockSize;
        }

        @Override
        public MemorySegment buffer() {
            return arena.allocate(blockSize, blockSize);
        }

        @Override
        public void write(final long lba, final MemorySegment block) throws IOException {
            final ByteBuffer bytes = block.asSlice(0, blockSize).asByteBuffer();
            while (bytes.hasRemaining()) {
                file.write(bytes, lba * blockSize + bytes.position());
            }
        }

        @Override
        public void read(final long lba, final MemorySegment block) throws IOException {
            final ByteBuffer bytes = block.asSlice(0, blockSize).asByteBuffer();
            while (bytes.hasRemaining()) {
                if (file.read(bytes, lba * blockSize + bytes.position()) < 0) {
                    throw new IOException("block " + lba + " is past the end of the mounted LUN file");
                }
            }
        }

        @Override
        public void close() throws IOException {
            file.close();
            arena.close();
        }
    }
}

package org.rdmablock.target;

import org.rdmablock.protocol.scsi.ReservationStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * A LUN's persistent reservations kept through power loss (APTPL) in {@code <folder>/lun-<N>.pr}, next to the
 * configuration file: written to a temporary file, fsynced, renamed over the old one and the folder fsynced, so a crash
 * leaves the old state or the new one, whole. Unlike LIO, which truncates and rewrites its file in place without an
 * fsync after changing its table, the change is durable before the PERSISTENT RESERVE OUT is answered, and a failed
 * write leaves the state as it was.
 *
 * <p>Threads: whichever runs the PERSISTENT RESERVE OUT (one at a time per unit, under its lock); it may wait.
 */
final class AptplFiles implements ReservationStore {
    private static final Logger LOG = LoggerFactory.getLogger(AptplFiles.class);
    /** The folder under the configuration file's where each LUN's file is. */
    static final String FOLDER = "reservations";

    private final Path file;

    AptplFiles(final Path folder, final int lun) {
        this.file = folder.resolve("lun-" + lun + ".pr");
    }

    @Override
    public String load() throws IOException {
        return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : null;
    }

    @Override
    public void save(final String text) throws IOException {
        try {
            Files.createDirectories(file.getParent());
            final Path temporary = file.resolveSibling("." + file.getFileName() + ".tmp");
            writeDurably(temporary, text.getBytes(StandardCharsets.UTF_8));
            Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            syncFolder(file.getParent());
        } catch (IOException | RuntimeException e) {
            LOG.error("cannot save the persistent reservations to {}: {}; the PERSISTENT RESERVE OUT is refused and"
                    + " the reservations stay as they were", file, e.toString());
            throw e;
        }
    }

    @Override
    public void delete() throws IOException {
        try {
            if (Files.deleteIfExists(file)) {
                syncFolder(file.getParent());
            }
        } catch (IOException | RuntimeException e) {
            LOG.error("cannot remove {}: {}; the PERSISTENT RESERVE OUT is refused", file, e.toString());
            throw e;
        }
    }

    @Override
    public String describe() {
        return file.toString();
    }

    /** Writes {@code bytes} as the whole of {@code path} and fsyncs it. */
    static void writeDurably(final Path path, final byte[] bytes) throws IOException {
        try (FileChannel out = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            final ByteBuffer buffer = ByteBuffer.wrap(bytes);
            while (buffer.hasRemaining()) {
                out.write(buffer);
            }
            out.force(true);
        }
    }

    /** Makes the renames and removals in {@code folder} durable. */
    static void syncFolder(final Path folder) throws IOException {
        try (FileChannel channel = FileChannel.open(folder, StandardOpenOption.READ)) {
            channel.force(true);
        }
    }
}

package org.rdmablock.tools.mount;

import org.cryptomator.jfuse.api.Fuse;
import org.cryptomator.jfuse.api.FuseBuilder;
import org.cryptomator.jfuse.api.FuseMountFailedException;
import org.rdmablock.initiator.InitiatorConfig;
import org.rdmablock.initiator.Lun;
import org.rdmablock.initiator.SrpInitiator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;

/**
 * A mounted volume: every LUN of an initiator's session as {@code lunN.img} under a directory, served by libfuse's
 * multithreaded loop through jfuse. {@link #close} unmounts; the session stays the caller's (close it after).
 */
public final class Volume implements AutoCloseable {
    /** The name the mount shows in the mount table (its source, and the type {@code fuse.rdmablock}). */
    static final String FS_NAME = "rdmablock";
    private static final Logger LOG = LoggerFactory.getLogger(Volume.class);

    private final Fuse fuse;
    private final LunFileSystem fileSystem;
    private final SlotPool slots;
    private final Path directory;

    private Volume(final Fuse fuse, final LunFileSystem fileSystem, final SlotPool slots, final Path directory) {
        this.fuse = fuse;
        this.fileSystem = fileSystem;
        this.slots = slots;
        this.directory = directory;
    }

    /**
     * Mounts the session's LUNs on {@code directory} (which must exist and have nothing mounted on it) with at most
     * {@code threads} FUSE worker threads, each with a registered buffer of its own; returns once the kernel answers
     * through the mount.
     *
     * @param library libfuse3's runtime library ({@link FuseRequirements})
     * @throws FuseMountFailedException libfuse could not mount (its reason went to stderr)
     */
    public static Volume mount(final SrpInitiator initiator, final Path directory, final int threads, final Path library)
            throws FuseMountFailedException {
        final FuseBuilder builder = Fuse.builder();
        builder.setLibraryPath(library.toString());
        final SlotPool slots = new SlotPool(threads, initiator::allocateBuffer,
                initiator.config().waiting() == InitiatorConfig.Waiting.CALLER ? initiator::poll : null);
        final boolean direct = Configuration.registerFuseBuffers() && initiator.registrationIsCheap();
        final List<LunFile> files = new ArrayList<>();
        for (final Lun lun : initiator.luns()) {
            files.add(new LunFile(lun, slots, builder.errno().eio(), direct ? initiator::registerMemory : null));
        }
        final LunFileSystem fileSystem = new LunFileSystem(files, builder.errno());
        final Fuse fuse = builder.build(fileSystem);
        try {
            fuse.mount(FS_NAME, directory, "-o", "fsname=" + FS_NAME, "-o", "subtype=" + FS_NAME,
                    "-o", "max_threads=" + threads);
        } catch (FuseMountFailedException | RuntimeException e) {
            closeQuietly(fuse);
            throw e;
        }
        return new Volume(fuse, fileSystem, slots, directory);
    }

    /** The files, as {@code name (size)} for reports. */
    public List<String> fileNames() {
        return fileSystem.fileNames();
    }

    /** What the mount agreed with the kernel (protocol, max_write, background requests, async direct I/O), in words. */
    public String negotiated() {
        return fileSystem.negotiated();
    }

    /** FUSE worker threads that did I/O so far (each holds one registered buffer). */
    public int threadsSeen() {
        return slots.claimed();
    }

    /** The largest read or write the kernel has sent so far, in bytes. */
    public long largestRequest() {
        return fileSystem.largestRequest();
    }

    public Path directory() {
        return directory;
    }

    /** Unmounts (libfuse's {@code fuse_unmount}: lazy for root) and waits up to 10 s for the loop to end. */
    @Override
    public void close() {
        closeQuietly(fuse);
    }

    private static void closeQuietly(final Fuse fuse) {
        try {
            fuse.close();
        } catch (TimeoutException e) {
            LOG.warn("the FUSE loop did not end within 10 s of the unmount: {}", e.getMessage());
        }
    }
}

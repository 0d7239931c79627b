package org.rdmablock.tools.mount;

import org.cryptomator.jfuse.api.FuseMountFailedException;
import org.rdmablock.initiator.InitiatorConfig;
import org.rdmablock.initiator.SrpInitiator;
import org.rdmablock.initiator.SrpIoException;
import org.rdmablock.target.CommandLines;
import org.rdmablock.target.config.Quantities;
import org.rdmablock.tools.session.EmbeddedTarget;
import org.rdmablock.tools.session.TargetOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * {@code rdmablock mount}: every LUN of a target as a file ({@code lunN.img}, its capacity) under a directory, through
 * FUSE, so that fio, dd or any program can use a remote LUN. Logs in to the target (or starts one in this process),
 * mounts, prints a line saying so, and serves until Ctrl-C or SIGTERM (a shutdown hook unmounts, logs out, stops an
 * embedded target) or until the directory is unmounted from outside ({@code fusermount3 -u}). A stale mount on the
 * directory, left by a killed mount, is cleaned up first.
 *
 * <p>Exit status: 0 unmounted cleanly; 1 the machine lacks FUSE (the message says what to install), the directory is
 * in use, or the target could not be reached; 2 a bad option.
 */
@Command(name = "rdmablock mount", mixinStandardHelpOptions = true, versionProvider = CommandLines.Version.class, sortOptions = false,
        description = "Mounts a target's LUNs as files (lunN.img) through FUSE; Ctrl-C or SIGTERM unmounts.")
public final class MountCommand implements Callable<Integer> {
    static final int EXIT_FAILED = 1;
    static final int EXIT_USAGE = 2;
    /**
     * 12 FUSE worker threads: requests served at once (more wait in the kernel's queue, up to its max_background of
     * {@link LunFileSystem#MAX_BACKGROUND}); 12 MiB registered. Fewer threads than requests in flight did better than 32
     * on two cores: docs/benchmarks/fuse-1mib-rows.md, entry "at a816c85 and 317e1bb", "Fewer FUSE threads".
     */
    static final int DEFAULT_FUSE_THREADS = 12;
    /** How often the main thread checks that the mount is still there (an unmount from outside ends the command). */
    static final long WATCH_MILLIS = 500;

    @Parameters(index = "0", paramLabel = "DIRECTORY", description = "where to mount (made if absent)")
    Path directory;

    @Mixin
    TargetOptions session;

    @Option(names = "--channels", defaultValue = "1", description = "RDMA channels (QPs) of the session (default: ${DEFAULT-VALUE})")
    int channels;

    @Option(names = "--queue-depth", defaultValue = "" + InitiatorConfig.DEFAULT_QUEUE_DEPTH,
            description = "commands in flight per channel at most (default: ${DEFAULT-VALUE})")
    int queueDepth;

    @Option(names = "--channel-wait", defaultValue = "yield", description = "how the initiator's channel threads wait "
            + "for completions: yield (poll, yielding the core), events (sleep on the completion channel) or caller (no "
            + "channel threads: each FUSE thread drives the channels while it waits for its answer) (default: ${DEFAULT-VALUE})")
    String channelWait;

    @Option(names = "--io-timeout", paramLabel = "DURATION", defaultValue = "30s", description = "how long I/O waits while "
            + "the target is away (the initiator logging in again) before it fails with EIO, logged, as nbd-client's "
            + "-timeout; a command the target holds this long is aborted and sent again (default: ${DEFAULT-VALUE})")
    String ioTimeout;

    @Option(names = "--fuse-threads", defaultValue = "" + DEFAULT_FUSE_THREADS, description = "FUSE worker threads, "
            + "requests served at once; each has a registered 1 MiB buffer (default: ${DEFAULT-VALUE})")
    int fuseThreads;

    @Option(names = "--embedded-target", paramLabel = "file|memory|null", description = "start our target in this process "
            + "on 127.0.0.1 (a free port), LUN 0 of this backend, and mount it (--target is ignored)")
    String embeddedTarget;

    @Option(names = "--embedded-size", defaultValue = "1g", description = "size of the embedded target's LUN (default: ${DEFAULT-VALUE})")
    String embeddedSize;

    @Option(names = "--embedded-file", paramLabel = "PATH", description = "the embedded file target's image (made sparse "
            + "if absent)")
    Path embeddedFile;

    @Option(names = "--fuse-library", paramLabel = "PATH", description = "libfuse3's runtime library (default: "
            + FuseRequirements.LIBRARY + " found in LD_LIBRARY_PATH or the system's library directories)")
    Path fuseLibrary;

    private java.time.Duration ioTimeoutBound;
    private final PrintStream out;
    private final PrintStream err;
    private final FuseRequirements.Probe probe;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private EmbeddedTarget embedded;
    private SrpInitiator initiator;
    private Volume volume;
    private boolean closed;
    /** The folders {@link #prepare} made for the mount point, deepest first: removed again if the mount fails. */
    private final java.util.List<Path> madeFolders = new java.util.ArrayList<>();
    /** Set as stop() begins, so that the watch does not report the unmount it makes as one from outside. */
    private volatile boolean stopping;

    /** A mount that prints to the process's stdout and stderr and looks at this machine. */
    public MountCommand() {
        this(System.out, System.err, FuseRequirements.SYSTEM);
    }

    /** For tests: where it prints, and the machine as {@code probe} shows it. */
    MountCommand(final PrintStream out, final PrintStream err, final FuseRequirements.Probe probe) {
        this.out = out;
        this.err = err;
        this.probe = probe;
    }

    public static void main(final String[] args) {
        final String[] rest = args.length > 0 && args[0].equals("mount") ? java.util.Arrays.copyOfRange(args, 1, args.length) : args;
        System.exit(CommandLines.of(new MountCommand(), "rdmablock mount").execute(rest));
    }

    @Override
    public Integer call() {
        final long embeddedBytes;
        try {
            if (channels < 1 || channels > 256 || queueDepth < 2 || queueDepth > 4096 || fuseThreads < 1 || fuseThreads > 1024) {
                throw new IllegalArgumentException("--channels must be 1..256, --queue-depth 2..4096, --fuse-threads 1..1024");
            }
            embeddedBytes = Quantities.parseSize(embeddedSize);
            ioTimeoutBound = Quantities.parseDuration(ioTimeout);
            if (ioTimeoutBound.isZero() || ioTimeoutBound.isNegative()) {
                throw new IllegalArgumentException("--io-timeout must be positive, not " + ioTimeout);
            }
            if (embeddedTarget != null && embeddedTarget.toLowerCase(Locale.ROOT).equals("file") != (embeddedFile != null)) {
                throw new IllegalArgumentException("--embedded-file goes with --embedded-target file, and only with it");
            }
        } catch (IllegalArgumentException e) {
            err.println("rdmablock mount: " + e.getMessage());
            return EXIT_USAGE;
        }
        final FuseRequirements.Found fuse = FuseRequirements.check(probe, fuseLibrary);
        if (!fuse.ok()) {
            err.println("rdmablock mount: this machine cannot mount a FUSE file system:");
            fuse.problems().forEach(p -> err.println("  - " + p));
            return EXIT_FAILED;
        }
        try {
            prepare(directory, fuse.fusermount());
        } catch (IOException e) {
            err.println("rdmablock mount: " + e.getMessage());
            return EXIT_FAILED;
        }
        final Thread hook = new Thread(this::stop, "rdmablock-mount-shutdown");
        try {
            final InitiatorConfig config;
            try {
                if (embeddedTarget != null) {
                    embedded = EmbeddedTarget.start(embeddedTarget, embeddedBytes, embeddedFile, session.provider(),
                            session.nvmeSubsystem());
                }
                config = session.config(embedded)
                        .withChannels(channels, InitiatorConfig.ChannelPolicy.PER_THREAD)
                        .withQueueDepth(queueDepth)
                        .withWaiting(InitiatorConfig.Waiting.named(channelWait))
                        // a command unanswered, or the target away, for longer than the bound fails (EIO, logged)
                        .withFaultHandling(ioTimeoutBound, ioTimeoutBound, InitiatorConfig.DEFAULT_MAX_RETRIES)
                        .withBounceBytes(4096); // every I/O buffer is registered (SlotPool): bounce buffers carry only discovery
            } catch (IllegalArgumentException e) {
                err.println("rdmablock mount: " + e.getMessage());
                return EXIT_USAGE;
            }
            initiator = SrpInitiator.connect(config);
            Runtime.getRuntime().addShutdownHook(hook);
            volume = Volume.mount(initiator, directory, fuseThreads, fuse.library());
            out.println("rdmablock mount: " + String.join(", ", volume.fileNames()) + " of "
                    + (embedded != null ? "the embedded " + embeddedTarget + " target at " + embedded.where() : session.target())
                    + " mounted at " + directory.toAbsolutePath() + " (" + volume.negotiated() + "); Ctrl-C or SIGTERM unmounts");
            out.flush();
            watch();
            return 0;
        } catch (SrpIoException e) {
            err.println("rdmablock mount: " + e.getMessage());
            return EXIT_FAILED;
        } catch (FuseMountFailedException | RuntimeException e) {
            err.println("rdmablock mount: mounting on " + directory + " failed: " + e.getMessage());
            return EXIT_FAILED;
        } finally {
            stop();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // the JVM is shutting down: the hook runs (or ran) stop()
            }
        }
    }

    /** Makes the directory, or cleans up a stale mount on it; refuses one with a live mount. */
    private void prepare(final Path directory, final Path fusermount) throws IOException {
        switch (MountPoint.probe(directory)) {
            case STALE -> {
                MountPoint.cleanUp(directory, fusermount);
                err.println("rdmablock mount: cleaned up a stale mount at " + directory + " (its server was gone)");
            }
            case MOUNTED -> throw new IOException(directory + " has a live mount already (unmount it: "
                    + FuseRequirements.FUSERMOUNT + " -u " + directory + ")");
            case FREE -> {
                if (Files.exists(directory) && !Files.isDirectory(directory)) {
                    throw new IOException(directory + " is not a directory (a mount point must be one)");
                }
                for (Path missing = directory.toAbsolutePath(); missing != null && Files.notExists(missing);
                     missing = missing.getParent()) {
                    madeFolders.add(missing);
                }
                try {
                    Files.createDirectories(directory);
                } catch (IOException e) {
                    madeFolders.clear();
                    throw new IOException("cannot make the mount point " + directory + ": " + e, e);
                }
            }
        }
    }

    /** Removes the folders {@link #prepare} made, when they are still empty: a failed mount leaves nothing behind. */
    private void removeMadeFolders() {
        for (final Path folder : madeFolders) {
            try {
                Files.deleteIfExists(folder);
            } catch (IOException e) {
                return; // not empty (or not ours to remove): leave it and the folders above it
            }
        }
        madeFolders.clear();
    }

    /** Until stopped, or until the directory is no longer a mount point (unmounted from outside). */
    private void watch() {
        try {
            while (!stopped.await(WATCH_MILLIS, TimeUnit.MILLISECONDS)) {
                if (!stopping && !MountPoint.mounted(directory, Files.readAllLines(MountPoint.MOUNTS))) {
                    err.println("rdmablock mount: " + directory + " was unmounted");
                    return;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            err.println("rdmablock mount: cannot read " + MountPoint.MOUNTS + ": " + e.getMessage());
        }
    }

    /** Unmounts, logs out, stops an embedded target; once, from the shutdown hook or the main thread. */
    private synchronized void stop() {
        stopping = true;
        if (closed) {
            return;
        }
        closed = true;
        try {
            if (volume != null) {
                volume.close();
                err.println("rdmablock mount: unmounted " + directory);
            } else {
                removeMadeFolders();
            }
        } finally {
            try {
                if (initiator != null) {
                    initiator.close();
                }
            } finally {
                if (embedded != null) {
                    embedded.close();
                }
                stopped.countDown();
            }
        }
    }
}

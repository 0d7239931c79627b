package org.rdmablock.target;

import org.rdmablock.target.config.ConfigChange;
import org.rdmablock.target.config.ConfigException;
import org.rdmablock.target.config.LunConfig;
import org.rdmablock.target.config.PipelineConfig;
import org.rdmablock.target.config.TargetConfig;
import org.rdmablock.target.config.TargetConfigReader;
import org.rdmablock.target.config.TargetConfigWriter;
import org.rdmablock.target.srp.SrpTarget;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * The configuration a daemon runs, and every way of changing it while it runs: the SIGHUP reload and the management
 * socket's verbs (a LUN added, removed, resized, made read-only, its initiators changed; a whole configuration applied;
 * the running one saved to the file). Each change is a desired configuration, compared with the running one
 * ({@link ConfigChange}), checked whole, then applied by the {@link LunInventory} or refused with nothing changed.
 *
 * <p>Threads: the signal thread and the management socket's client threads, one change at a time (this object's lock).
 */
public final class RunningConfiguration {
    private static final Logger LOG = LoggerFactory.getLogger(RunningConfiguration.class);

    /** Logged on SIGHUP by a daemon serving the embedded default, which keeps serving. */
    static final String NOTHING_TO_RELOAD = "SIGHUP: nothing to reload, this daemon serves the embedded default config"
            + " (start it with --config FILE to reload a file); serving on";

    /** The start-up warning of {@link #warnIfInlineBlocks}; {} is the LUN numbers. */
    static final String INLINE_BLOCKING = "backend_threads = 0, blocking_threads = 0: LUN(s) {} (file / rocksdb) run on the"
            + " completion poller's thread; a backend call that blocks holds up every channel, and timeouts.command cannot"
            + " answer it meanwhile (a restart with blocking_threads \"auto\" or at least 1 gives their calls that wait"
            + " threads of their own)";

    private final Path file;
    private final LunInventory inventory;
    private final SrpTarget target;
    private final Duration quiesce;
    private final Runnable servedChanged;
    private TargetConfig running;

    /**
     * What a change did.
     *
     * @param running the configuration running after it
     * @param applied whether it changed anything
     * @param summary what it did or why not, as the log has it
     * @param changes what it changed (or, in a dry run, would change), a line per LUN
     * @param refused whether it was refused (or failed) with nothing changed: the summary says why
     */
    public record Outcome(TargetConfig running, boolean applied, String summary, List<String> changes, boolean refused) {
        public Outcome {
            changes = List.copyOf(changes);
        }
    }

    /**
     * @param file          the config file SIGHUP re-reads and {@code save} writes; null with the embedded default
     * @param quiesce       how long a change waits for the commands in flight on the LUNs it closes or shrinks
     * @param servedChanged called after each change that was applied (the metrics' LUN list)
     */
    public RunningConfiguration(final Path file, final TargetConfig running, final LunInventory inventory,
                                final SrpTarget target, final Duration quiesce, final Runnable servedChanged) {
        this.file = file;
        this.running = running;
        this.inventory = inventory;
        this.target = target;
        this.quiesce = quiesce;
        this.servedChanged = servedChanged;
    }

    /** The folder relative paths given to the verbs resolve against: the config file's, or the working directory. */
    public Path baseDirectory() {
        return TargetConfig.baseDirectory(file);
    }

    /** The configuration running now. */
    public synchronized TargetConfig running() {
        return running;
    }

    /**
     * Re-reads the file and applies it, as SIGHUP and the management socket's {@code reload} do. With the embedded
     * default there is nothing to re-read: said, and nothing changes.
     */
    public synchronized Outcome reload() {
        if (file == null) {
            LOG.info(NOTHING_TO_RELOAD);
            return new Outcome(running, false, NOTHING_TO_RELOAD, List.of(), false);
        }
        final TargetConfig reread;
        try {
            reread = TargetConfigReader.read(file);
        } catch (ConfigException e) {
            return refused("reload of " + file + " refused, the running configuration stays: " + e.getMessage());
        }
        return applyChecked(reread, "reload of " + file, false, false);
    }

    /**
     * Applies {@code change} of the running configuration (the management socket's verbs): the result is written and
     * read back with every check the config file gets ({@link TargetConfigReader.Storage#CHECKED}), then applied as a
     * reload is, or only listed with {@code dryRun}.
     *
     * @param force  whether a LUN may shrink
     * @param origin what asked, for the log and the summary ("lun resize 1")
     * @throws IllegalArgumentException the change cannot be made from this configuration (no such LUN, say)
     */
    public synchronized Outcome apply(final UnaryOperator<TargetConfig> change, final boolean force, final boolean dryRun,
                                      final String origin) {
        final TargetConfig desired = change.apply(running);
        final TargetConfig checked;
        try {
            checked = TargetConfigReader.read(TargetConfigWriter.write(desired, List.of()), origin,
                    TargetConfig.baseDirectory(file), TargetConfigReader.Storage.CHECKED);
        } catch (ConfigException e) {
            return refused(origin + " refused, the running configuration stays: " + e.getMessage());
        }
        return applyChecked(new TargetConfig(running.source(), checked.listen(), checked.identity(), checked.channel(),
                checked.pipeline(), checked.timeouts(), checked.luns(), checked.metrics(), checked.admin(), checked.nvme(),
                checked.ports()),
                origin, force, dryRun);
    }

    private Outcome applyChecked(final TargetConfig desired, final String origin, final boolean force, final boolean dryRun) {
        try {
            final ConfigChange change = ConfigChange.between(running, desired);
            if (change.needsRestart()) {
                return refused(origin + " refused: " + change.restartMessage());
            }
            if (change.isEmpty() && inventory.serves(desired.luns())) {
                LOG.info("{}: nothing changed", origin);
                return new Outcome(running, false, "nothing changed", List.of(), false);
            }
            final List<String> changes = inventory.plan(desired.luns(), force);
            if (dryRun) {
                return new Outcome(running, false, "dry run: " + change.summary() + "; nothing applied",
                        java.util.stream.Stream.of(changes.stream(),
                                change.timeoutsChanged() ? java.util.stream.Stream.of("timeouts changed") : java.util.stream.Stream.<String>empty(),
                                change.portStateChanges().stream().map(Object::toString)).flatMap(x -> x).toList(), false);
            }
            // a LUN an earlier reload failed to reopen is tried again even when the file did not change
            final String summary = change.summary() + "; " + inventory.apply(desired.luns(), force, target::unitAttention,
                    () -> target.awaitCommandsInFlight(quiesce));
            if (change.timeoutsChanged()) {
                target.timeoutsChanged(desired.timeouts());
            }
            if (change.portStatesChanged()) {
                target.portStatesChanged(desired.ports()); // ASYMMETRIC ACCESS STATE CHANGED to every nexus logged in
            }
            LOG.info("{}: {}", origin, summary);
            final List<Integer> served = inventory.numbers();
            warnIfInlineBlocks(target.pipeline(), desired.luns().stream()
                    .filter(l -> served.contains(l.number()))
                    .filter(l -> running.luns().stream().noneMatch(r -> r.number() == l.number() && r.backend() == l.backend()))
                    .toList());
            running = applied(desired);
            servedChanged.run();
            return new Outcome(running, true, summary, changes, false);
        } catch (LunInventory.Refused e) {
            return refused(origin + " refused, the running configuration stays: " + e.getMessage());
        } catch (RuntimeException e) {
            LOG.warn("{} failed, the running configuration stays", origin, e);
            return new Outcome(running, false, origin + " failed, the running configuration stays: " + e, List.of(), true);
        }
    }

    /**
     * {@code desired} as the inventory applied it: each LUN it serves as it serves it (a shrink it undid keeps its old
     * size); a LUN it left out as desired, so that the next change tries it again.
     */
    private TargetConfig applied(final TargetConfig desired) {
        final java.util.Map<Integer, LunConfig> served = new java.util.HashMap<>();
        inventory.configs().forEach(lun -> served.put(lun.number(), lun));
        return desired.withLuns(desired.luns().stream().map(lun -> served.getOrDefault(lun.number(), lun)).toList());
    }

    private Outcome refused(final String why) {
        LOG.warn(why);
        return new Outcome(running, false, why, List.of(), true);
    }

    /**
     * Writes the running configuration to the config file: to a temporary file beside it, fsynced, then renamed over
     * it (with the folder fsynced), the previous file kept as {@code FILE.bak} (a hard link to it). A link to the file
     * is followed: the file it names is written. Every key is written (the file's comments
     * are not kept; the {@code .bak} has them). Returns the file written.
     *
     * @throws IllegalStateException the daemon serves the embedded default (no file to write)
     * @throws IOException           the file could not be written; the previous one is untouched
     */
    public synchronized Path save() throws IOException {
        if (file == null) {
            throw new IllegalStateException("this daemon serves the embedded default: there is no config file to save to"
                    + " (start it with --config FILE)");
        }
        // a config that is a link is written where it points: the link stays
        final Path absolute = Files.exists(file) ? file.toRealPath() : file.toAbsolutePath();
        final String text = TargetConfigWriter.write(running, List.of(
                "Written by rdmablock admin save at " + Instant.now() + ": the configuration the daemon ran then, every"
                        + " key with its value.",
                "The file it replaced is " + absolute.getFileName() + ".bak (with its comments); deploy/rdmablock.toml"
                        + " documents each key."));
        final Path temporary = absolute.resolveSibling("." + absolute.getFileName() + ".tmp");
        boolean renamed = false;
        try {
            AptplFiles.writeDurably(temporary, text.getBytes(StandardCharsets.UTF_8));
            if (Files.exists(absolute)) {
                Files.setPosixFilePermissions(temporary, Files.getPosixFilePermissions(absolute));
                keepAsBackup(absolute);
            }
            Files.move(temporary, absolute, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            renamed = true;
        } finally {
            if (!renamed) {
                Files.deleteIfExists(temporary);
            }
        }
        AptplFiles.syncFolder(absolute.getParent()); // the renames themselves durable
        LOG.info("saved the running configuration to {} (the previous file is {}.bak)", absolute, absolute.getFileName());
        return absolute;
    }

    /**
     * {@code FILE.bak}: a second name for the file as it is (a hard link: nothing copied, and durable with the folder's
     * fsync), or, where the file system has no links, a copy, fsynced.
     */
    private static void keepAsBackup(final Path file) throws IOException {
        final Path backup = file.resolveSibling(file.getFileName() + ".bak");
        Files.deleteIfExists(backup);
        try {
            Files.createLink(backup, file);
        } catch (UnsupportedOperationException | IOException noLink) {
            Files.copy(file, backup, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.COPY_ATTRIBUTES);
            try (FileChannel copy = FileChannel.open(backup, StandardOpenOption.WRITE)) {
                copy.force(true);
            }
        }
    }

    /**
     * {@code backend_threads = 0} without blocking-call threads makes every backend call on the completion poller's
     * thread: right for memory and null LUNs, but a file or RocksDB call that blocks (an fsync on a slow disk) holds up
     * every channel, and {@code timeouts.command} cannot answer it meanwhile. Said at start, naming the LUNs, and after a
     * change for the LUNs it brings and serves (with {@code blocking_threads = "auto"}, a pipeline started with memory
     * and null LUNs only has none).
     */
    static void warnIfInlineBlocks(final PipelineConfig pipeline, final List<LunConfig> luns) {
        if (pipeline.backendThreads() != 0 || pipeline.blockingThreads() != 0) {
            return;
        }
        final String blocking = luns.stream().filter(l -> !PipelineConfig.neverBlocks(l))
                .map(l -> String.valueOf(l.number())).collect(java.util.stream.Collectors.joining(", "));
        if (!blocking.isEmpty()) {
            LOG.warn(INLINE_BLOCKING, blocking);
        }
    }
}

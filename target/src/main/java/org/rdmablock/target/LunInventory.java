package org.rdmablock.target;

import org.rdmablock.protocol.scsi.BlockBackend;
import org.rdmablock.protocol.scsi.LogicalUnit;
import org.rdmablock.protocol.scsi.LogicalUnitConfig;
import org.rdmablock.protocol.scsi.LogicalUnitTable;
import org.rdmablock.protocol.scsi.NexusRegistry;
import org.rdmablock.protocol.scsi.SenseCode;
import org.rdmablock.target.backend.LunBackend;
import org.rdmablock.target.config.ConfigChange;
import org.rdmablock.target.config.InitiatorPortId;
import org.rdmablock.target.config.LunConfig;
import org.rdmablock.target.config.TargetConfig;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The target's logical units and who sees which: opens each LUN's backend, wraps it in the SCSI engine's
 * {@link LogicalUnit}, and gives each initiator a {@link LogicalUnitTable} of the units its access lists allow (one
 * table per initiator port id, kept and updated in place, so a reload changes what a logged-in session sees without
 * dropping it). Applying a configuration ({@link #apply}: SIGHUP, the management socket) adds and removes units,
 * reopens those whose storage changed, changes size, write protection and allowed initiators in place, and reports
 * to each initiator what it sees changed as its unit attentions.
 *
 * <p>Threads: built and reloaded under its own lock (start-up, SIGHUP, logins; a login waits while a reload waits for
 * the commands in flight); the tables it hands out are read by the pipeline without locks (they copy on write).
 */
public final class LunInventory implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LunInventory.class);

    /** Opens a LUN's backend; a backend that is also {@link AutoCloseable} is closed when its LUN goes. */
    @FunctionalInterface
    public interface BackendOpener {
        BlockBackend open(LunConfig lun) throws Exception;
    }

    private final BackendOpener opener;
    /** The I_T nexuses persistent reservations name; the target's logins share it. */
    private final NexusRegistry nexuses;
    /** Where each LUN's persistent reservations are kept through power loss, or null (APTPL refused). */
    private final Path reservationsFolder;
    private final long idExt;
    private final int maxTransferBytes;
    private final Map<Integer, Lun> luns = new LinkedHashMap<>();
    private final Map<InitiatorPortId, LogicalUnitTable> views = new HashMap<>();
    /** LUNs a reload failed to reopen: configured but not served; the next reload tries them again as it reopens. */
    private final Set<Integer> leftOut = new HashSet<>();

    private record Lun(LunConfig config, BlockBackend backend, LogicalUnit unit) {
    }

    /** Opens every LUN of {@code config}, with no place to keep reservations through power loss. */
    public LunInventory(final TargetConfig config, final BackendOpener opener) {
        this(config, opener, new NexusRegistry(), null);
    }

    /**
     * Opens every LUN of {@code config}; on a failure closes what it opened and throws, naming the LUN. Each unit's
     * persistent reservations are kept through power loss in {@code reservationsFolder} (null: refused), and a state
     * saved there is taken back, naming its nexuses in {@code nexuses}.
     */
    public LunInventory(final TargetConfig config, final BackendOpener opener, final NexusRegistry nexuses,
                        final Path reservationsFolder) {
        this.opener = Objects.requireNonNull(opener);
        this.nexuses = Objects.requireNonNull(nexuses);
        this.reservationsFolder = reservationsFolder;
        this.idExt = config.identity().idExt();
        this.maxTransferBytes = (int) Math.min(config.channel().maxIoSize(), 1 << 30);
        try {
            for (final LunConfig lun : config.luns()) {
                luns.put(lun.number(), open(lun));
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    private Lun open(final LunConfig lun) {
        final BlockBackend backend;
        try {
            backend = opener.open(lun);
        } catch (RuntimeException e) {
            if (e.getMessage() != null && e.getMessage().startsWith("LUN " + lun.number())) {
                throw e; // BackendOpenException names the LUN and path already
            }
            throw new IllegalStateException("LUN " + lun.number() + (lun.path() != null ? " (" + lun.path() + ")" : "")
                    + ": " + e.getMessage(), e);
        } catch (Exception e) {
            throw new IllegalStateException("LUN " + lun.number() + (lun.path() != null ? " (" + lun.path() + ")" : "")
                    + ": " + e.getMessage(), e);
        }
        final LogicalUnitConfig unitConfig = LogicalUnitConfig.builder()
                .blockSize(lun.blockSize())
                .serialNumber(String.format("%016x-%d", idExt, lun.number()))
                .writeCacheEnabled(lun.writeCache() == LunConfig.WriteCachePolicy.WRITE_BACK)
                .readOnly(lun.readOnly())
                .thinProvisioning(backend.supportsUnmap())
                .maxTransferBytes(Math.max(lun.blockSize(), maxTransferBytes))
                .build();
        final Lun opened = new Lun(lun, backend, new LogicalUnit(lun.number(), unitConfig, backend));
        if (reservationsFolder != null) {
            keepReservations(opened);
        }
        return opened;
    }

    /** Keeps {@code unit}'s persistent reservations in its file and takes back what was saved there. */
    private void keepReservations(final Lun opened) {
        final LogicalUnit unit = opened.unit();
        final AptplFiles store = new AptplFiles(reservationsFolder, unit.lun());
        try {
            if (unit.reservations().persistIn(store, nexuses, unit.config().serialNumber())) {
                LOG.info("LUN {}: persistent reservations taken back from {} ({} registration(s), generation {})",
                        unit.lun(), store.describe(), unit.reservations().registrationCount(),
                        Integer.toUnsignedString(unit.reservations().generation()));
            }
        } catch (java.io.IOException | RuntimeException e) {
            closeBackend(opened);
            throw new IllegalStateException("LUN " + unit.lun() + ": its persistent reservations: " + e.getMessage(), e);
        }
    }

    /** The I_T nexuses the units' reservations name, which the target's logins are to share. */
    public NexusRegistry nexuses() {
        return nexuses;
    }

    /** The units {@code initiator} may use, or null when no LUN allows it (its login is refused). */
    public synchronized LogicalUnitTable unitsFor(final InitiatorPortId initiator) {
        return viewOf(initiator, false);
    }

    /**
     * The units {@code initiator} may use, kept up to date by every change: empty when no LUN allows it now (the NVMe
     * hosts' view, which a later LUN may fill).
     */
    public synchronized LogicalUnitTable liveUnitsFor(final InitiatorPortId initiator) {
        return viewOf(initiator, true);
    }

    private LogicalUnitTable viewOf(final InitiatorPortId initiator, final boolean evenEmpty) {
        LogicalUnitTable view = views.get(initiator);
        if (view == null) {
            view = new LogicalUnitTable();
            for (final Lun lun : luns.values()) {
                if (lun.config().allows(initiator)) {
                    view.add(lun.unit());
                }
            }
            if (view.size() == 0 && !luns.isEmpty() && !evenEmpty) {
                return null;
            }
            views.put(initiator, view);
        }
        return view;
    }

    /** Whether the LUNs served now are exactly {@code wanted} (a reload left none out and has nothing to apply). */
    public synchronized boolean serves(final List<LunConfig> wanted) {
        if (wanted.size() != luns.size()) {
            return false;
        }
        for (final LunConfig lun : wanted) {
            final Lun current = luns.get(lun.number());
            if (current == null || !current.config().equals(lun)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Who is told what changed for an initiator: its inventory ({@code lun} {@link #ALL_LUNS}, REPORTED LUNS DATA HAS
     * CHANGED) or one unit of it ({@code lun}, CAPACITY DATA HAS CHANGED or MODE PARAMETERS CHANGED).
     */
    @FunctionalInterface
    public interface Attentions {
        /** The LUN of a change to the set of units an initiator sees. */
        int ALL_LUNS = -1;

        void changed(InitiatorPortId initiator, int lun, SenseCode condition);
    }

    /** A configuration the inventory will not apply; nothing has changed. The message says why, naming the LUN. */
    public static final class Refused extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Refused(final String message) {
            super(message, null, false, false);
        }
    }

    /** The settings a served LUN changes without closing: its size, its write protection, who may see it. */
    private static final List<String> IN_PLACE_KEYS = List.of("size", "read_only", "allowed_initiators");
    /** The settings that name other storage: a change of any of them reopens the LUN, size and all. */
    private static final List<String> STORAGE_KEYS = List.of("backend", "path", "block_size");

    /** What applying a LUN list does to one LUN. */
    private enum Action { ADD, REMOVE, REOPEN, IN_PLACE, RECORD }

    private record Step(int number, Action action, Lun current, LunConfig next) {
        boolean grows() {
            return action == Action.IN_PLACE && next.sizeBytes() > current.config().sizeBytes();
        }

        boolean shrinks() {
            return action == Action.IN_PLACE && next.sizeBytes() < current.config().sizeBytes();
        }

        boolean writeProtects() {
            return action == Action.IN_PLACE && next.readOnly() && !current.config().readOnly();
        }

        boolean protectionChanges() {
            return action == Action.IN_PLACE && next.readOnly() != current.config().readOnly();
        }

        boolean accessChanges() {
            return action == Action.IN_PLACE && keys().contains("allowed_initiators"); // compared as sets there
        }

        String describe() {
            final String what = switch (action) {
                case ADD -> "added";
                case REMOVE -> "removed";
                case REOPEN -> current == null ? "reopened (it failed to open at the last apply)"
                        : "reopened (" + String.join(", ", keys()) + " changed)";
                case RECORD -> "kept as it is (only create / grow changed, which apply at an open)";
                case IN_PLACE -> {
                    final List<String> parts = new ArrayList<>();
                    if (next.sizeBytes() != current.config().sizeBytes()) {
                        parts.add("resized from " + current.config().sizeBytes() + " to " + next.sizeBytes()
                                + " bytes (CAPACITY DATA HAS CHANGED)");
                    }
                    if (next.readOnly() != current.config().readOnly()) {
                        parts.add((next.readOnly() ? "made read-only" : "made writable") + " (MODE PARAMETERS CHANGED)");
                    }
                    if (accessChanges()) {
                        parts.add("allowed initiators now " + (next.allowedInitiators().isEmpty() ? "any"
                                : next.allowedInitiators().toString()) + " (REPORTED LUNS DATA HAS CHANGED where seen"
                                + " or unseen)");
                    }
                    yield "changed in place: " + String.join("; ", parts);
                }
            };
            return "LUN " + number + " " + what;
        }

        private List<String> keys() {
            return new ConfigChange.LunChange(current.config(), next).changedKeys();
        }
    }

    /**
     * What {@link #apply} would do with {@code wanted}, a line per LUN that changes ("LUN 1 changed in place: resized
     * from 1073741824 to 2147483648 bytes (CAPACITY DATA HAS CHANGED)"), changing nothing: a dry run.
     *
     * @throws Refused what cannot be applied (a shrink not forced, a size a backend cannot take while it serves)
     */
    public synchronized List<String> plan(final List<LunConfig> wanted, final boolean force) {
        return steps(wanted, force).stream().filter(step -> step.action() != Action.RECORD)
                .map(Step::describe).toList();
    }

    private List<Step> steps(final List<LunConfig> wanted, final boolean force) {
        final Map<Integer, LunConfig> byNumber = new LinkedHashMap<>();
        wanted.forEach(l -> byNumber.put(l.number(), l));
        final List<Step> steps = new ArrayList<>();
        final List<String> refusals = new ArrayList<>();
        for (final LunConfig next : byNumber.values()) {
            final Lun current = luns.get(next.number());
            if (current == null) {
                // a LUN an earlier reload left out is tried again as it reopens, not as an added one
                steps.add(new Step(next.number(), leftOut.contains(next.number()) ? Action.REOPEN : Action.ADD, null, next));
                continue;
            }
            final List<String> keys = new ConfigChange.LunChange(current.config(), next).changedKeys();
            if (keys.isEmpty()) {
                if (!current.config().equals(next)) {
                    steps.add(new Step(next.number(), Action.RECORD, current, next));
                }
                continue;
            }
            final boolean sameStorage = keys.stream().noneMatch(STORAGE_KEYS::contains);
            final long from = current.config().sizeBytes();
            if (sameStorage && next.sizeBytes() < from && !force) {
                refusals.add("LUN " + next.number() + " would shrink from " + from + " to " + next.sizeBytes()
                        + " bytes, cutting off its end: refused unless forced (rdmablock admin lun resize --force,"
                        + " or apply --force)");
                continue;
            }
            final boolean inPlace = IN_PLACE_KEYS.containsAll(keys)
                    && (next.readOnly() || !opensReadOnly(current)); // writable again needs storage open for writing
            if (sameStorage && next.sizeBytes() != from) {
                final String why = current.backend() instanceof LunBackend lunBackend
                        ? lunBackend.whyNotResizable(next.sizeBytes()) : "its backend cannot be resized";
                if (why != null || !inPlace) {
                    final List<String> reopening = keys.stream().filter(k -> !IN_PLACE_KEYS.contains(k)).toList();
                    refusals.add("LUN " + next.number() + " cannot be resized while it serves: " + (why != null ? why
                            : !reopening.isEmpty() ? "its size changes in place, its " + String.join(", ", reopening)
                            + " only by reopening it: change them one at a time"
                            : "its storage is open read-only; make it writable first, then resize it"));
                    continue;
                }
            }
            steps.add(new Step(next.number(), inPlace ? Action.IN_PLACE : Action.REOPEN, current, next));
        }
        for (final Lun lun : luns.values()) {
            if (!byNumber.containsKey(lun.config().number())) {
                steps.add(new Step(lun.config().number(), Action.REMOVE, lun, null));
            }
        }
        if (!refusals.isEmpty()) {
            throw new Refused(String.join("; ", refusals));
        }
        return steps;
    }

    /** Whether the LUN's storage was opened read-only (making it writable then needs a reopen). */
    private static boolean opensReadOnly(final Lun lun) {
        return lun.backend() instanceof LunBackend lunBackend ? lunBackend.readOnly() : lun.config().readOnly();
    }

    /**
     * Applies a configuration's LUNs (a SIGHUP reload, a management verb, a declarative apply), in this order:
     * <ol>
     *     <li>checks every LUN first ({@link #plan}): a refusal throws {@link Refused} and changes nothing;</li>
     *     <li>opens the added LUNs and grows the storage of LUNs that grow in place (a failure closes and shrinks them
     *     again and throws: nothing changed);</li>
     *     <li>takes the removed and reopened units out of every initiator's table (commands that come from now on
     *     find no unit there), write-protects the units made read-only and gives the units that shrink their new
     *     capacity, telling their initiators at once;</li>
     *     <li>calls {@code quiesce}, which returns once no command that may have found one of those units, the blocks
     *     cut off, or a unit writable is still executing (false when it gave up waiting: a warning; it goes on, but
     *     cuts no storage: such a shrink is undone, its unit reporting its old size again);</li>
     *     <li>closes the removed and reopened backends and cuts the storage of the units that shrink (one that cannot
     *     be cut is undone the same way, and the summary says so);</li>
     *     <li>reopens the changed LUNs (after the close: the same file or DB cannot be open twice); one that fails to
     *     open is left out (in no table, its old backend closed), logged and named in the summary, and the next
     *     apply that still configures it tries again to open it;</li>
     *     <li>gives the units that grow their new capacity, lifts the write protection of those made writable, moves
     *     units whose allowed initiators changed into and out of the initiators' tables, and adds the added and
     *     reopened units to the tables of the initiators they allow.</li>
     * </ol>
     * Units changed in place keep serving throughout: their initiators see no error, only the unit attention of the
     * change ({@link Attentions}): CAPACITY DATA HAS CHANGED for a resize, MODE PARAMETERS CHANGED for write protection
     * on or off, and REPORTED LUNS DATA HAS CHANGED for each initiator whose set of units changed. Returns a one-line
     * summary; {@link #configs()} then holds what was applied (a shrink undone keeps its old size).
     *
     * @param force whether a LUN may shrink (its end is cut off)
     * @throws Refused what cannot be applied; nothing changed
     */
    public synchronized String apply(final List<LunConfig> wanted, final boolean force, final Attentions attentions,
                                     final BooleanSupplier quiesce) {
        final List<Step> steps = steps(wanted, force);
        final Map<Integer, Lun> incoming = new LinkedHashMap<>();
        final List<Step> grown = new ArrayList<>();
        try {
            for (final Step step : steps) {
                if (step.action() == Action.ADD) {
                    incoming.put(step.number(), open(step.next()));
                } else if (step.grows()) {
                    ((LunBackend) step.current().backend()).resize(step.next().sizeBytes());
                    grown.add(step);
                }
            }
        } catch (RuntimeException e) {
            incoming.values().forEach(LunInventory::closeBackend);
            for (final Step step : grown) {
                try {
                    ((LunBackend) step.current().backend()).resize(step.current().config().sizeBytes());
                } catch (RuntimeException undo) {
                    LOG.warn("LUN {}: its storage grown for the apply that failed could not be shrunk back",
                            step.number(), undo);
                }
            }
            throw e;
        }
        final List<Lun> going = new ArrayList<>();
        for (final Step step : steps) {
            if ((step.action() == Action.REMOVE || step.action() == Action.REOPEN) && step.current() != null) {
                going.add(step.current());
            }
        }
        final Set<InitiatorPortId> affected = new HashSet<>();
        for (final Map.Entry<InitiatorPortId, LogicalUnitTable> view : views.entrySet()) {
            for (final Lun lun : going) {
                if (view.getValue().remove(lun.config().number()) != null) {
                    affected.add(view.getKey());
                }
            }
        }
        going.forEach(lun -> luns.remove(lun.config().number()));
        final List<Step> shrunk = steps.stream().filter(Step::shrinks).toList();
        final List<Step> protectedNow = steps.stream().filter(Step::writeProtects).toList();
        for (final Step step : protectedNow) {
            step.current().unit().writeProtect(true);
            tellViewers(step, SenseCode.MODE_PARAMETERS_CHANGED, attentions); // as the change shows, not after the wait
        }
        for (final Step step : shrunk) {
            step.current().unit().changeCapacity(step.next().sizeBytes() / step.next().blockSize());
            tellViewers(step, SenseCode.CAPACITY_DATA_HAS_CHANGED, attentions);
        }
        String unquiet = "";
        // a shrink waits before its cut; write protection so that no write is still landing when the verb returns
        if (!going.isEmpty() || !shrunk.isEmpty() || !protectedNow.isEmpty()) {
            boolean quiet;
            try {
                quiet = quiesce.getAsBoolean();
            } catch (RuntimeException e) {
                LOG.warn("apply: waiting for the commands in flight failed", e);
                quiet = false;
            }
            if (!quiet) {
                LOG.warn("apply: commands may still be executing on LUNs {}; going on anyway",
                        java.util.stream.Stream.concat(numbers(going).stream(), shrunk.stream().map(Step::number)).toList());
                unquiet = "; closed with commands possibly still in flight";
            }
        }
        going.forEach(LunInventory::closeBackend);
        final List<String> failed = new ArrayList<>();
        final Set<Integer> notShrunk = new HashSet<>();
        for (final Step step : shrunk) {
            final long from = step.current().config().sizeBytes();
            try {
                if (!unquiet.isEmpty()) {
                    throw new IllegalStateException("commands may still be writing to its end");
                }
                ((LunBackend) step.current().backend()).resize(step.next().sizeBytes());
            } catch (RuntimeException e) {
                // not cut: the unit reports its old size again, and the configuration keeps it (a restart would
                // refuse a file longer than configured)
                LOG.warn("LUN {} stays {} bytes: its storage could not be cut", step.number(), from, e);
                step.current().unit().changeCapacity(from / step.current().config().blockSize());
                tellViewers(step, SenseCode.CAPACITY_DATA_HAS_CHANGED, attentions);
                failed.add("LUN " + step.number() + " not shrunk, it stays " + from + " bytes: " + e.getMessage());
                notShrunk.add(step.number());
            }
        }
        final List<String> notReopened = new ArrayList<>();
        leftOut.clear();
        int reopened = 0;
        for (final Step step : steps) {
            if (step.action() != Action.REOPEN) {
                continue;
            }
            try {
                incoming.put(step.number(), open(step.next()));
                reopened++;
            } catch (RuntimeException e) {
                LOG.warn("apply: LUN {} could not be reopened and is left out", step.number(), e);
                notReopened.add(e.getMessage()); // names the LUN
                leftOut.add(step.number());
            }
        }
        int changedInPlace = 0;
        for (final Step step : steps) {
            if (step.action() != Action.IN_PLACE && step.action() != Action.RECORD) {
                continue;
            }
            final Lun current = step.current();
            final LunConfig applied = notShrunk.contains(step.number())
                    ? step.next().withSize(current.config().sizeBytes()) : step.next();
            luns.put(step.number(), new Lun(applied, current.backend(), current.unit()));
            if (step.action() == Action.RECORD) {
                continue;
            }
            changedInPlace++;
            if (step.grows()) {
                current.unit().changeCapacity(step.next().sizeBytes() / step.next().blockSize());
            }
            if (!step.next().readOnly() && current.config().readOnly()) {
                current.unit().writeProtect(false);
            }
            for (final Map.Entry<InitiatorPortId, LogicalUnitTable> view : views.entrySet()) {
                final boolean was = current.config().allows(view.getKey());
                final boolean is = step.next().allows(view.getKey());
                if (was && !is) {
                    view.getValue().remove(step.number());
                    affected.add(view.getKey());
                } else if (!was && is) {
                    view.getValue().add(current.unit());
                    affected.add(view.getKey());
                } else if (is) {
                    // shrinks and write protection told their initiators as they showed, above
                    if (step.grows()) {
                        attentions.changed(view.getKey(), step.number(), SenseCode.CAPACITY_DATA_HAS_CHANGED);
                    }
                    if (step.protectionChanges() && !step.writeProtects()) {
                        attentions.changed(view.getKey(), step.number(), SenseCode.MODE_PARAMETERS_CHANGED);
                    }
                }
            }
        }
        for (final Map.Entry<InitiatorPortId, LogicalUnitTable> view : views.entrySet()) {
            for (final Lun lun : incoming.values()) {
                if (lun.config().allows(view.getKey())) {
                    view.getValue().add(lun.unit());
                    affected.add(view.getKey());
                }
            }
        }
        // in the configuration's order, as describe() lists them
        final Map<Integer, Lun> served = new LinkedHashMap<>();
        for (final LunConfig lun : wanted) {
            final Lun kept = luns.containsKey(lun.number()) ? luns.get(lun.number()) : incoming.get(lun.number());
            if (kept != null) {
                served.put(lun.number(), kept);
            }
        }
        luns.clear();
        luns.putAll(served);
        affected.forEach(initiator -> attentions.changed(initiator, Attentions.ALL_LUNS,
                SenseCode.REPORTED_LUNS_DATA_HAS_CHANGED));
        final long removed = steps.stream().filter(step -> step.action() == Action.REMOVE).count();
        failed.addAll(0, notReopened.isEmpty() ? List.of() : List.of("left out, failed to reopen: "
                + String.join("; ", notReopened)));
        return "LUNs now " + luns.keySet() + " (" + (incoming.size() - reopened) + " added, " + reopened + " reopened, "
                + (changedInPlace == 0 ? "" : changedInPlace + " changed in place, ") + removed + " removed"
                + (failed.isEmpty() ? "" : "; " + String.join("; ", failed)) + unquiet + ")";
    }

    /** {@code condition} to each initiator that sees the step's unit now (before its allowed initiators change). */
    private void tellViewers(final Step step, final SenseCode condition, final Attentions attentions) {
        for (final Map.Entry<InitiatorPortId, LogicalUnitTable> view : views.entrySet()) {
            if (view.getValue().get(step.number()) == step.current().unit()) {
                attentions.changed(view.getKey(), step.number(), condition);
            }
        }
    }

    private static List<Integer> numbers(final List<Lun> list) {
        return list.stream().map(l -> l.config().number()).toList();
    }

    private static void closeBackend(final Lun lun) {
        if (lun.backend() instanceof AutoCloseable closeable) {
            try {
                closeable.close();
            } catch (Exception e) {
                LOG.warn("closing LUN {}", lun.config().number(), e);
            }
        }
    }

    /** The unit served as LUN {@code number}, or null. */
    public synchronized LogicalUnit unit(final int number) {
        final Lun lun = luns.get(number);
        return lun == null ? null : lun.unit();
    }

    /** The numbers of the LUNs served now. */
    public synchronized List<Integer> numbers() {
        return List.copyOf(luns.keySet());
    }

    /** The configurations of the LUNs served now, in LUN order. */
    public synchronized List<LunConfig> configs() {
        return luns.values().stream().map(Lun::config).toList();
    }

    /** The LUNs served, a line each (the banner's). */
    public synchronized List<String> describe() {
        return luns.values().stream().map(lun -> describe(lun.config())).toList();
    }

    /**
     * One LUN in a line, as the banner and {@code --check} print it: "LUN 0: file /srv/lun0.img, 1024 MiB, 512-byte
     * blocks, write-through", with "(new: created at start)" where {@code create = true} will make its file.
     */
    public static String describe(final LunConfig c) {
        final boolean made = c.create() && c.path() != null && !c.readOnly() && !java.nio.file.Files.exists(c.path());
        return String.format("LUN %d: %s%s, %d MiB, %d-byte blocks, %s%s%s%s", c.number(),
                c.backend().name().toLowerCase(java.util.Locale.ROOT), c.path() != null ? " " + c.path() : "",
                c.sizeBytes() >> 20, c.blockSize(), c.writeCache().name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'),
                c.readOnly() ? ", read-only" : "",
                c.allowedInitiators().isEmpty() ? "" : ", initiators " + c.allowedInitiators(),
                made ? " (new: made empty at start, create = true)" : "");
    }

    @Override
    public synchronized void close() {
        luns.values().forEach(LunInventory::closeBackend);
        luns.clear();
        views.clear();
        leftOut.clear();
    }
}

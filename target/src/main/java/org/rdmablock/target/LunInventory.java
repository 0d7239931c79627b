package org.rdmablock.target;

import org.rdmablock.protocol.scsi.BlockBackend;
import org.rdmablock.protocol.scsi.LogicalUnit;
import org.rdmablock.protocol.scsi.LogicalUnitConfig;
import org.rdmablock.protocol.scsi.LogicalUnitTable;
import org.rdmablock.target.config.InitiatorPortId;
import org.rdmablock.target.config.LunConfig;
import org.rdmablock.target.config.TargetConfig;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The target's logical units and who sees which: opens each LUN's backend, wraps it in the SCSI engine's
 * {@link LogicalUnit}, and gives each initiator a {@link LogicalUnitTable} of the units its access lists allow (one
 * table per initiator port id, kept and updated in place, so a reload changes what a logged-in session sees without
 * dropping it). Reloads add, remove and replace units and report which initiators' inventories changed, so that their
 * sessions get the REPORTED LUNS DATA HAS CHANGED unit attention.
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
    private final long idExt;
    private final int maxTransferBytes;
    private final Map<Integer, Lun> luns = new LinkedHashMap<>();
    private final Map<InitiatorPortId, LogicalUnitTable> views = new HashMap<>();
    /** LUNs a reload failed to reopen: configured but not served; the next reload tries them again as it reopens. */
    private final Set<Integer> leftOut = new HashSet<>();

    private record Lun(LunConfig config, BlockBackend backend, LogicalUnit unit) {
    }

    /** Opens every LUN of {@code config}; on a failure closes what it opened and throws, naming the LUN. */
    public LunInventory(final TargetConfig config, final BackendOpener opener) {
        this.opener = Objects.requireNonNull(opener);
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
        return new Lun(lun, backend, new LogicalUnit(lun.number(), unitConfig, backend));
    }

    /** The units {@code initiator} may use, or null when no LUN allows it (its login is refused). */
    public synchronized LogicalUnitTable unitsFor(final InitiatorPortId initiator) {
        LogicalUnitTable view = views.get(initiator);
        if (view == null) {
            view = new LogicalUnitTable();
            for (final Lun lun : luns.values()) {
                if (lun.config().allows(initiator)) {
                    view.add(lun.unit());
                }
            }
            if (view.size() == 0 && !luns.isEmpty()) {
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
     * Applies a reloaded configuration's LUNs, in this order:
     * <ol>
     *     <li>opens the added LUNs (a failure closes them again and throws: nothing changed);</li>
     *     <li>takes the removed and changed units out of every initiator's table (commands that come from now on
     *     find no unit there);</li>
     *     <li>calls {@code quiesce}, which returns once no command that may have found one of those units is still
     *     executing (false when it gave up waiting: a warning, and the backends close anyway);</li>
     *     <li>closes their backends;</li>
     *     <li>reopens the changed LUNs (after the close: the same file or DB cannot be open twice); one that fails to
     *     open is left out (in no table, its old backend closed), logged and named in the summary, and the next
     *     reload that still configures it tries again to open it, as it reopens a changed LUN;</li>
     *     <li>adds the added and reopened units to the tables of the initiators they allow.</li>
     * </ol>
     * Unchanged LUNs keep their unit and backend throughout. Calls {@code inventoryChanged} for each initiator whose
     * set of units changed, once the tables are final. Returns a one-line summary.
     */
    public synchronized String reload(final List<LunConfig> wanted, final Consumer<InitiatorPortId> inventoryChanged,
                                      final BooleanSupplier quiesce) {
        final Map<Integer, LunConfig> byNumber = new LinkedHashMap<>();
        wanted.forEach(l -> byNumber.put(l.number(), l));
        final Map<Integer, Lun> incoming = new LinkedHashMap<>();
        final List<LunConfig> changed = new ArrayList<>();
        try {
            for (final LunConfig lun : byNumber.values()) {
                final Lun current = luns.get(lun.number());
                if (current == null && !leftOut.contains(lun.number())) {
                    incoming.put(lun.number(), open(lun));
                } else if (current == null || !current.config().equals(lun)) {
                    changed.add(lun); // access lists are part of the config: a changed list reopens the unit too
                }
            }
        } catch (RuntimeException e) {
            incoming.values().forEach(LunInventory::closeBackend);
            throw e;
        }
        final List<Lun> going = new ArrayList<>();
        for (final Lun lun : luns.values()) {
            final LunConfig next = byNumber.get(lun.config().number());
            if (next == null || !next.equals(lun.config())) {
                going.add(lun);
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
        String unquiet = "";
        if (!going.isEmpty()) {
            boolean quiet;
            try {
                quiet = quiesce.getAsBoolean();
            } catch (RuntimeException e) {
                LOG.warn("reload: waiting for the commands in flight failed", e);
                quiet = false;
            }
            if (!quiet) {
                LOG.warn("reload: commands may still be executing on LUNs {}; closing them anyway", numbers(going));
                unquiet = "; closed with commands possibly still in flight";
            }
        }
        going.forEach(LunInventory::closeBackend);
        final List<String> failed = new ArrayList<>();
        leftOut.clear();
        int reopened = 0;
        for (final LunConfig lun : changed) {
            try {
                incoming.put(lun.number(), open(lun));
                reopened++;
            } catch (RuntimeException e) {
                LOG.warn("reload: LUN {} could not be reopened and is left out", lun.number(), e);
                failed.add(e.getMessage()); // names the LUN
                leftOut.add(lun.number());
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
        for (final Integer number : byNumber.keySet()) {
            final Lun lun = luns.containsKey(number) ? luns.get(number) : incoming.get(number);
            if (lun != null) {
                served.put(number, lun);
            }
        }
        luns.clear();
        luns.putAll(served);
        affected.forEach(inventoryChanged);
        final long removed = going.stream().filter(lun -> !byNumber.containsKey(lun.config().number())).count();
        return "LUNs now " + luns.keySet() + " (" + (incoming.size() - reopened) + " added, " + reopened + " reopened, "
                + removed + " removed" + (failed.isEmpty() ? "" : "; left out, failed to reopen: " + String.join("; ", failed))
                + unquiet + ")";
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

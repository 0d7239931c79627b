package org.rdmablock.target;

import org.rdmablock.protocol.scsi.BlockBackend;
import org.rdmablock.protocol.scsi.LogicalUnit;
import org.rdmablock.protocol.scsi.LogicalUnitConfig;
import org.rdmablock.protocol.scsi.LogicalUnitTable;
import org.rdmablock.target.config.InitiatorPortId;
import org.rdmablock.target.config.LunConfig;
import org.rdmablock.target.config.TargetConfig;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The target's logical units and who sees which: opens each LUN's backend, wraps it in the SCSI engine's
 * {@link LogicalUnit}, and gives each initiator a {@link LogicalUnitTable} of the units its access lists allow (one
 * table per initiator port id, kept and updated in place, so a reload changes what a logged-in session sees without
 * dropping it). Reloads add, remove and replace units and report which initiators' inventories changed, so that their
 * sessions get the REPORTED LUNS DATA HAS CHANGED unit attention.
 *
 * <p>Threads: built and reloaded under its own lock (start-up, SIGHUP, logins); the tables it hands out are read by the
 * pipeline without locks (they copy on write).
 */
public final class LunInventory implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(LunInventory.class.getName());

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

    /**
     * Applies a reloaded configuration's LUNs: opens the new and changed ones first (a failure changes nothing), then
     * swaps them into every initiator's table and closes what went. Calls {@code inventoryChanged} for each initiator
     * whose set of units changed. Returns a one-line summary.
     */
    public synchronized String reload(final List<LunConfig> wanted, final Consumer<InitiatorPortId> inventoryChanged) {
        final Map<Integer, LunConfig> byNumber = new LinkedHashMap<>();
        wanted.forEach(l -> byNumber.put(l.number(), l));
        final Map<Integer, Lun> opened = new LinkedHashMap<>();
        try {
            for (final LunConfig lun : byNumber.values()) {
                final Lun current = luns.get(lun.number());
                if (current == null || !current.config().equals(lun)) {
                    if (current != null) {
                        // the same file or DB cannot be open twice: changed units close before they reopen
                        closeBackend(current);
                    }
                    opened.put(lun.number(), open(lun));
                }
            }
        } catch (RuntimeException e) {
            opened.values().forEach(LunInventory::closeBackend);
            throw e;
        }
        final List<Integer> removed = new ArrayList<>();
        for (final Integer number : luns.keySet()) {
            if (!byNumber.containsKey(number)) {
                removed.add(number);
            }
        }
        final Map<InitiatorPortId, LogicalUnitTable> current = new HashMap<>(views);
        for (final Map.Entry<InitiatorPortId, LogicalUnitTable> view : current.entrySet()) {
            final InitiatorPortId initiator = view.getKey();
            final LogicalUnitTable table = view.getValue();
            boolean changed = false;
            for (final Integer number : removed) {
                changed |= table.remove(number) != null;
            }
            for (final Lun lun : opened.values()) {
                changed |= table.remove(lun.config().number()) != null;
                if (lun.config().allows(initiator)) {
                    table.add(lun.unit());
                    changed = true;
                }
            }
            // access lists of unchanged units are part of their config, so a changed list reopened the unit above
            if (changed) {
                inventoryChanged.accept(initiator);
            }
        }
        for (final Integer number : removed) {
            closeBackend(luns.remove(number));
        }
        luns.putAll(opened);
        return "LUNs now " + luns.keySet() + " (" + opened.size() + " opened, " + removed.size() + " removed)";
    }

    private static void closeBackend(final Lun lun) {
        if (lun.backend() instanceof AutoCloseable closeable) {
            try {
                closeable.close();
            } catch (Exception e) {
                LOG.log(Level.WARNING, "closing LUN " + lun.config().number(), e);
            }
        }
    }

    /** Lines for the start-up banner, one per LUN. */
    public synchronized List<String> describe() {
        final List<String> lines = new ArrayList<>();
        for (final Lun lun : luns.values()) {
            final LunConfig c = lun.config();
            lines.add(String.format("LUN %d: %s%s, %d MiB, %d-byte blocks, %s%s%s", c.number(),
                    c.backend().name().toLowerCase(java.util.Locale.ROOT), c.path() != null ? " " + c.path() : "",
                    c.sizeBytes() >> 20, c.blockSize(), c.writeCache().name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'),
                    c.readOnly() ? ", read-only" : "",
                    c.allowedInitiators().isEmpty() ? "" : ", initiators " + c.allowedInitiators()));
        }
        return Collections.unmodifiableList(lines);
    }

    @Override
    public synchronized void close() {
        luns.values().forEach(LunInventory::closeBackend);
        luns.clear();
        views.clear();
    }
}

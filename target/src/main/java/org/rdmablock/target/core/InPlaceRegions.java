package org.rdmablock.target.core;

import org.rdmablock.target.backend.InPlaceStorage;
import org.rdmablock.verbs.MemoryRegion;
import org.rdmablock.verbs.ProtectionDomain;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;

/**
 * The in-place LUNs whose memory the pipeline's protection domain has registered, so that their blocks move by RDMA
 * straight to and from the initiator ({@link InPlaceStorage}); each is deregistered when the pipeline closes, before
 * its domain does. Intake stage adds; the closing thread releases.
 */
final class InPlaceRegions {
    private final ProtectionDomain pd;
    private final Set<InPlaceStorage> storages = Collections.synchronizedSet(Collections.newSetFromMap(new IdentityHashMap<>()));

    InPlaceRegions(final ProtectionDomain pd) {
        this.pd = pd;
    }

    /** Remembers {@code storage} for {@link #releaseAll} (allocates only for a LUN not seen before). */
    void add(final InPlaceStorage storage) {
        storages.add(storage);
    }

    /** The storage's memory registered in the pipeline's domain. */
    MemoryRegion regionOf(final InPlaceStorage storage) {
        return storage.regionIn(pd);
    }

    /** Deregisters every storage's region from the domain (closing thread, once no command runs). */
    void releaseAll() {
        synchronized (storages) {
            storages.forEach(storage -> storage.releaseRegionIn(pd));
        }
    }
}

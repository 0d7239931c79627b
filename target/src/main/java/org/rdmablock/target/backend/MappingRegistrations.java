package org.rdmablock.target.backend;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

import org.rdmablock.verbs.MemoryRegion;
import org.rdmablock.verbs.ProtectionDomain;
import org.rdmablock.verbs.VerbsException;

/**
 * The registrations of one LUN's mapping for {@link InPlaceStorage}: one per protection domain asked (a target has
 * one), made on the first ask and kept until released. A failed registration is remembered as none and not tried
 * again (the LUN's data then goes through the target's buffers). Lookups read a copy-on-write array, so the poller
 * asking per command takes no lock.
 */
final class MappingRegistrations {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(MappingRegistrations.class);

    private final String owner;
    private final MemorySegment mapping;
    private final int access;
    private volatile Registration[] registrations = new Registration[0];
    /** Set by {@link #releaseAll()} under the lock: no registration after it. */
    private boolean released;

    /** The mapping registered in one protection domain; a null region: registration failed, or released. */
    private record Registration(ProtectionDomain pd, MemoryRegion region) {
    }

    /**
     * @param owner   what log lines name (the backend's log name)
     * @param mapping the LUN's whole mapping (byte offset = device offset)
     * @param access  the regions' access flags ({@link org.rdmablock.verbs.AccessFlags})
     */
    MappingRegistrations(String owner, MemorySegment mapping, int access) {
        this.owner = owner;
        this.mapping = mapping;
        this.access = access;
    }

    /** The mapping's region in {@code pd}, registered on the first call; null once released or when that failed. */
    MemoryRegion regionIn(ProtectionDomain pd) {
        for (Registration r : registrations) {
            if (r.pd == pd) {
                return r.region;
            }
        }
        return register(pd);
    }

    private synchronized MemoryRegion register(ProtectionDomain pd) {
        for (Registration r : registrations) {
            if (r.pd == pd) {
                return r.region;
            }
        }
        if (released) {
            return null;
        }
        MemoryRegion region = null;
        try {
            region = pd.registerMemory(mapping, access);
        } catch (VerbsException e) {
            LOG.warn("{}: cannot register its mapping ({}); its data goes through the target's buffers", owner, e.getMessage());
        }
        Registration[] next = Arrays.copyOf(registrations, registrations.length + 1);
        next[next.length - 1] = new Registration(pd, region);
        registrations = next;
        return region;
    }

    /** Deregisters the region of {@code pd}; {@link #regionIn} answers null for it afterwards. */
    synchronized void release(ProtectionDomain pd) {
        Registration[] current = registrations;
        for (int i = 0; i < current.length; i++) {
            if (current[i].pd == pd && current[i].region != null) {
                closeQuietly(current[i].region);
                Registration[] next = current.clone();
                next[i] = new Registration(pd, null);
                registrations = next;
                return;
            }
        }
    }

    /** Deregisters every region, before the mapping goes away; none is made after this. */
    synchronized void releaseAll() {
        released = true;
        for (Registration r : registrations) {
            if (r.region != null) {
                closeQuietly(r.region);
            }
        }
        registrations = new Registration[0];
    }

    private void closeQuietly(MemoryRegion region) {
        try {
            region.close();
        } catch (RuntimeException e) {
            LOG.warn("{}: deregistering its mapping failed: {}", owner, e.toString());
        }
    }
}

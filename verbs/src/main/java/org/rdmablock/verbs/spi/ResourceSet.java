package org.rdmablock.verbs.spi;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.rdmablock.verbs.VerbsException;

/**
 * The live resources of a context or protection domain, so that closing the owner while any remain fails with
 * EBUSY, as libibverbs' ibv_close_device and ibv_dealloc_pd do. Thread-safe.
 */
public final class ResourceSet {
    private final String owner;
    private final Set<AutoCloseable> resources = ConcurrentHashMap.newKeySet();

    /** @param owner how the EBUSY message names the owner, e.g. "protection domain" */
    public ResourceSet(final String owner) {
        this.owner = owner;
    }

    /** Records a resource made under the owner; returns it. */
    public <T extends AutoCloseable> T add(final T resource) {
        resources.add(resource);
        return resource;
    }

    /** Forgets a resource that closed. */
    public void remove(final AutoCloseable resource) {
        resources.remove(resource);
    }

    /** Throws EBUSY while any resource remains. */
    public void requireEmpty() {
        final int left = resources.size();
        if (left != 0) {
            throw new VerbsException(VerbsException.EBUSY, owner + " still has " + left + " resource(s)");
        }
    }
}

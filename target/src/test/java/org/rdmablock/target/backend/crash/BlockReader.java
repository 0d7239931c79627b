package org.rdmablock.target.backend.crash;

import java.lang.foreign.MemorySegment;

/**
 * Reads one block after the crash, for {@link DurabilityVerifier}: from the reopened backend, or over the wire from a
 * restarted target. Called on the verifying thread.
 */
@FunctionalInterface
public interface BlockReader {
    /** Reads block {@code block} into {@code buffer} at offset 0; throws when the read fails. */
    void read(long block, MemorySegment buffer);
}

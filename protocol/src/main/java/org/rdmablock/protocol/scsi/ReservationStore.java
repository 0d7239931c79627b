package org.rdmablock.protocol.scsi;

import java.io.IOException;

/**
 * Where a unit's persistent reservations are kept through a power loss (SPC-4 5.13.4, APTPL): one text per unit,
 * replaced whole. Each call returns only once what it changed is durable: a state is saved before the PERSISTENT
 * RESERVE OUT that made it is answered.
 */
public interface ReservationStore {
    /** The state saved last, or null when none is. */
    String load() throws IOException;

    /** Replaces the saved state with {@code text}, durably (written whole or not at all). */
    void save(String text) throws IOException;

    /** Removes the saved state, durably (an initiator turned persistence off). */
    void delete() throws IOException;

    /** Where it keeps the state, for messages. */
    String describe();
}

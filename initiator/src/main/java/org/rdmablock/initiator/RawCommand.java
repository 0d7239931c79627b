package org.rdmablock.initiator;

/**
 * Fills a RAW request's {@code cdb}, {@code cdbLength}, {@code rawDirection}, {@code rawLength} (and inline data), on
 * the submitting thread between claim and publish.
 */
@FunctionalInterface
interface RawCommand {
    void fill(IoRequest request);
}

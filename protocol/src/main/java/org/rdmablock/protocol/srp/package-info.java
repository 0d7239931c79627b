/**
 * Flyweight codecs for the SCSI RDMA Protocol information units, byte-compatible with Linux's
 * {@code include/scsi/srp.h} (T10 SRP r16a plus the SRP-2 immediate-data extensions).
 *
 * <p>Every flyweight is wrapped over a {@link java.lang.foreign.MemorySegment} at an offset and reads or
 * writes its fields in place: nothing is copied and nothing is allocated. All multi-byte fields are
 * big-endian, except the 8-byte tag, which SRP treats as opaque: it is read and written as a raw
 * {@code long} in the platform's native byte order, so {@code setTag(tag())} echoes the initiator's
 * bytes exactly, whatever their meaning to the initiator.
 *
 * <p>Received IUs go through {@link org.rdmablock.protocol.srp.SrpIuDecoder} (or a flyweight's
 * {@code validate} method) first: a malformed IU yields a {@link org.rdmablock.protocol.srp.SrpDecodeError},
 * never an exception and never a read outside the received bytes.
 */
package org.rdmablock.protocol.srp;

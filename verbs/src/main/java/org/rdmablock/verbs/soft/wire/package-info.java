/**
 * Flyweight codecs of the iWARP wire protocols the soft provider speaks: MPA connection frames and FPDUs
 * (RFC 5044, RFC 6581), DDP tagged and untagged headers (RFC 5041), RDMAP messages (RFC 5040) and the RFC 7306
 * extensions. Each flyweight wraps a {@link java.nio.ByteBuffer} at an offset, reads and writes fields in place
 * with named offsets and explicit big-endian order, and allocates nothing.
 */
package org.rdmablock.verbs.soft.wire;

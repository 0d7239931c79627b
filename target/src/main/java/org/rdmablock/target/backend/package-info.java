/**
 * The LUN backends: where a logical unit's blocks live. {@link org.rdmablock.target.backend.BackendFactory} opens the
 * one a {@link org.rdmablock.target.config.LunConfig} names, as a {@link org.rdmablock.target.backend.LunBackend}
 * (protocol's {@code BlockBackend} plus close): a sparse file with positional I/O through the C library, a RocksDB
 * database, native memory, or nothing at all. Every backend runs an operation on the calling backend thread and
 * completes it before returning, and the file, memory and null backends allocate nothing per read or write.
 */
package org.rdmablock.target.backend;

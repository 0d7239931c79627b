/**
 * Flyweight codecs for NVMe over Fabrics on RDMA, byte-compatible with Linux's {@code include/linux/nvme.h} and
 * {@code include/linux/nvme-rdma.h} (NVMe Base 2.0, the NVMe over Fabrics and RDMA Transport specifications): the
 * 64-byte submission queue entry with its SGL descriptor, the 16-byte completion queue entry, the Fabrics Connect
 * command and its 1 KiB data, Property Get and Set, and the RDMA CM private data of the connect request, accept and
 * reject.
 *
 * <p>Every flyweight is wrapped over a {@link java.lang.foreign.MemorySegment} at an offset and reads or writes its
 * fields in place: nothing is copied and nothing is allocated (but the NQN strings of the Connect data, read once per
 * connect). Every multi-byte field is little-endian, as NVMe puts them on the wire. The status constants are Linux's,
 * without the completion's phase bit ({@link org.rdmablock.protocol.nvme.NvmeCompletion#setStatus} shifts them).
 */
package org.rdmablock.protocol.nvme;

/**
 * The {@code soft} provider: RDMA in software over TCP for hosts without an RDMA NIC.
 *
 * <p>Each connected QP is one TCP connection speaking the iWARP protocol suite: MPA (RFC 5044) framing with
 * CRC32c, DDP (RFC 5041) tagged and untagged placement, RDMAP (RFC 5040) operations, and RFC 7306 immediate
 * data and atomics. Socket I/O runs on {@link org.rdmablock.verbs.soft.IoAgent} threads that place incoming
 * data straight into registered memory, so RDMA READ and WRITE need no action from the remote application.
 * UD QPs use UDP. The module README lists every deviation from the RFCs.
 */
package org.rdmablock.verbs.soft;

/**
 * The NVMe over Fabrics front end (NVMe RDMA Transport): {@link org.rdmablock.target.nvme.NvmeTarget} takes each
 * queue's rdma_cm connect, {@link org.rdmablock.target.nvme.NvmeFrontEnd} serves the capsules on the core's intake
 * stage, translating the I/O commands into the SBC commands the logical units execute (target/README.md, "NVMe over
 * Fabrics").
 */
package org.rdmablock.target.nvme;

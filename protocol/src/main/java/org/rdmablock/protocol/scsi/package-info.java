/**
 * The SCSI block command set, independent of any transport: CDB decoding ({@link
 * org.rdmablock.protocol.scsi.CdbDecoder}), sense data ({@link org.rdmablock.protocol.scsi.SenseData}),
 * the per-LUN engine ({@link org.rdmablock.protocol.scsi.LogicalUnit}) with its LUN routing ({@link
 * org.rdmablock.protocol.scsi.LogicalUnitTable}), and the asynchronous storage interface it drives ({@link
 * org.rdmablock.protocol.scsi.BlockBackend}) with an in-memory implementation for tests.
 *
 * <p>References: T10 SPC-4 (INQUIRY, MODE SENSE/SELECT, REPORT LUNS, REQUEST SENSE, REPORT SUPPORTED
 * OPERATION CODES, sense data) and SBC-3/SBC-4 (READ/WRITE, READ CAPACITY, SYNCHRONIZE CACHE, UNMAP, WRITE
 * SAME, the block VPD pages).
 */
package org.rdmablock.protocol.scsi;

/**
 * The wire protocol of the block target, free of any transport: SRP information units
 * ({@link org.rdmablock.protocol.srp}) and the SCSI block command set with its sense data
 * ({@link org.rdmablock.protocol.scsi}). Nothing here knows about verbs, queue pairs or threads.
 */
package org.rdmablock.protocol;

/** SRP and SCSI. */
package org.rdmablock.protocol;

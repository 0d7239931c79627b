package org.rdmablock.target.config;

/**
 * Limits of one SRP channel (one RDMA connection), negotiated at login.
 *
 * @param credits           receive credits granted per channel (SRP req_lim); at most 4096, ib_srpt uses 128
 * @param maxIuLength       largest initiator-to-target IU accepted (max_it_iu_len), at least 64
 * @param maxIoSize         largest data transfer of one command in bytes
 * @param immediateData     whether immediate data (data-out inside the SRP_CMD IU) is offered
 * @param immediateDataSize largest immediate data accepted, bytes; must fit in maxIuLength
 * @param maxChannels       channels the daemon serves at once; a login beyond them is rejected
 */
public record ChannelConfig(int credits, int maxIuLength, int maxIoSize, boolean immediateData,
                            int immediateDataSize, int maxChannels) {
}

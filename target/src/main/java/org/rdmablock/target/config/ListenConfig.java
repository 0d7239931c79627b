package org.rdmablock.target.config;

/**
 * Where the daemon listens.
 *
 * @param provider verbs provider: {@code soft}, {@code native} or {@code auto} (native when an RDMA device is
 *                 present, soft otherwise)
 * @param address  the IP address to bind (IPv4 or IPv6 literal or host name)
 * @param port     the rdma_cm port (TCP port for the soft provider), 1..65535
 */
public record ListenConfig(String provider, String address, int port) {
    /** Default port: the one Linux's ib_srpt examples give {@code rdma_cm_port}. */
    public static final int DEFAULT_PORT = 5555;
}

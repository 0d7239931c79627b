package org.rdmablock.target.config;

import java.util.List;

/**
 * Where the daemon listens.
 *
 * @param provider verbs provider: {@code soft}, {@code native} or {@code auto} (native when an RDMA device is
 *                 present, soft otherwise)
 * @param address  the IP address to bind (IPv4 or IPv6 literal or host name)
 * @param port     the rdma_cm port (TCP port for the soft provider), 1..65535
 */
public record ListenConfig(String provider, String address, int port) {
    /** The provider names a config may give, in the order messages list them. */
    public static final List<String> PROVIDERS = List.of("soft", "native", "auto");
    /** Default provider: soft, which runs anywhere (over TCP); native hardware has to be asked for. */
    public static final String DEFAULT_PROVIDER = "soft";
    /** Default address: loopback, so that the daemon is reachable from outside only when its config says so. */
    public static final String DEFAULT_ADDRESS = "127.0.0.1";
    /** Default port: the one Linux's ib_srpt examples give {@code rdma_cm_port}. */
    public static final int DEFAULT_PORT = 5555;
}

package org.rdmablock.target.config;

import java.nio.file.Path;

/**
 * The management endpoint: a Unix domain socket that speaks JSON-RPC 2.0 to {@code rdmablock admin} (and scripts),
 * made mode 0600, answering only the daemon's own user and root.
 *
 * @param socket the socket's path (absolute, resolved against the config file's directory); null: no endpoint
 */
public record AdminConfig(Path socket) {
    /** No management endpoint (the default). */
    public static final AdminConfig NONE = new AdminConfig(null);

    /** Whether the daemon serves the endpoint. */
    public boolean served() {
        return socket != null;
    }
}

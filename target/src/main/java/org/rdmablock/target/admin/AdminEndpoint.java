package org.rdmablock.target.admin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import jdk.net.ExtendedSocketOptions;
import jdk.net.UnixDomainPrincipal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * The daemon's management socket: JSON-RPC 2.0, one request per line and one response line each, on a Unix domain
 * socket made mode 0600 that answers only the daemon's own user and root (the peer's credentials, SO_PEERCRED, are
 * read at accept: a peer of another user gets one error response and is closed). A socket file left by a daemon that
 * is gone is replaced; one a live daemon answers on is refused.
 *
 * <p>Threads: {@code rdmablock-admin} accepts; each connection is served on a virtual thread of its own, its requests
 * in order. The methods ({@link AdminMethods}) run there, beside the data path, never on it.
 */
public final class AdminEndpoint implements AutoCloseable {
    /** JSON-RPC 2.0 error codes: the protocol's, then this endpoint's own (-32000 to -32099 are the server's). */
    public static final int PARSE_ERROR = -32700;
    public static final int INVALID_REQUEST = -32600;
    public static final int METHOD_NOT_FOUND = -32601;
    public static final int INVALID_PARAMS = -32602;
    public static final int INTERNAL_ERROR = -32603;
    /** The peer is neither the daemon's user nor root. */
    public static final int NOT_ALLOWED = -32001;
    /** The longest request line read: a request is a method and a few parameters. */
    static final int MAX_REQUEST_CHARS = 1 << 16;

    private static final Logger LOG = LoggerFactory.getLogger(AdminEndpoint.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path socket;
    private final ServerSocketChannel server;
    private final AdminMethods methods;
    /** The user the daemon runs as: it and root may manage it. */
    private final String owner;
    private final Thread acceptor;
    private volatile boolean closed;

    private AdminEndpoint(final Path socket, final ServerSocketChannel server, final AdminMethods methods) {
        this.owner = System.getProperty("user.name");
        this.socket = socket;
        this.methods = methods;
        this.server = server;
        this.acceptor = Thread.ofPlatform().daemon().name("rdmablock-admin").start(this::acceptLoop);
    }

    /**
     * Binds {@code socket} (mode 0600) and serves {@code methods} on it.
     *
     * @throws UncheckedIOException naming the path and why it cannot be served (a live daemon on it, no folder, ...)
     */
    public static AdminEndpoint start(final Path socket, final AdminMethods methods) {
        try {
            if (Files.exists(socket, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                if (answers(socket)) {
                    throw new IOException("a daemon answers on it already");
                }
                Files.delete(socket); // left by a daemon that is gone
            }
            final ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            try {
                server.bind(UnixDomainSocketAddress.of(socket));
                Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString("rw-------"));
            } catch (IOException | RuntimeException e) {
                server.close();
                throw e;
            }
            return new AdminEndpoint(socket, server, methods);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot serve the management socket " + socket + ": " + e.getMessage(), e);
        }
    }

    private static boolean answers(final Path socket) {
        try (SocketChannel probe = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
            return probe.isConnected();
        } catch (IOException e) {
            return false;
        }
    }

    /** The socket's path. */
    public Path socket() {
        return socket;
    }

    private void acceptLoop() {
        while (!closed) {
            final SocketChannel client;
            try {
                client = server.accept();
            } catch (IOException e) {
                if (!closed) {
                    LOG.warn("management socket {}: accept failed: {}", socket, e.getMessage());
                }
                return;
            }
            Thread.ofVirtual().name("rdmablock-admin-client").start(() -> serve(client));
        }
    }

    private void serve(final SocketChannel client) {
        try (client; OutputStream out = Channels.newOutputStream(client);
             BufferedReader in = new BufferedReader(new InputStreamReader(Channels.newInputStream(client), StandardCharsets.UTF_8))) {
            final String peer = peerUser(client);
            if (!owner.equals(peer) && !"root".equals(peer)) {
                LOG.warn("management socket {}: refused a client of user {} (only {} and root may manage this daemon)",
                        socket, peer, owner);
                // its request is read first: closed with it unread, the client would get a reset, not this answer
                readLine(in);
                write(out, error(null, NOT_ALLOWED, "user " + peer + " may not manage this daemon (only " + owner
                        + " and root)"));
                return;
            }
            String line;
            while ((line = readLine(in)) != null) {
                final JsonNode response = line.isBlank() ? null : answer(line);
                if (response != null) {
                    write(out, response);
                }
            }
        } catch (IOException e) {
            LOG.debug("management client gone: {}", e.getMessage());
        }
    }

    private static String peerUser(final SocketChannel client) throws IOException {
        final UnixDomainPrincipal principal = client.getOption(ExtendedSocketOptions.SO_PEERCRED);
        return principal.user().getName();
    }

    /** A line of at most {@link #MAX_REQUEST_CHARS}; longer is an I/O error that ends the connection. */
    private static String readLine(final BufferedReader in) throws IOException {
        final StringBuilder line = new StringBuilder();
        int c;
        while ((c = in.read()) >= 0 && c != '\n') {
            if (line.length() >= MAX_REQUEST_CHARS) {
                throw new IOException("a request line longer than " + MAX_REQUEST_CHARS + " characters");
            }
            line.append((char) c);
        }
        return c < 0 && line.isEmpty() ? null : line.toString();
    }

    /**
     * The response to one request line; null for a notification (a request without an id), which JSON-RPC runs but
     * does not answer. A batch (an array) is not served: one error answers it.
     */
    JsonNode answer(final String line) {
        final JsonNode request;
        try {
            request = JSON.readTree(line);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            return error(null, PARSE_ERROR, "not JSON: " + e.getOriginalMessage());
        }
        final JsonNode id = request.get("id");
        if (!request.isObject() || !"2.0".equals(request.path("jsonrpc").asText(null)) || !request.path("method").isTextual()) {
            return error(request.isObject() ? id : null, INVALID_REQUEST, (request.isArray() ? "batches are not served; " : "")
                    + "a JSON-RPC 2.0 request: {\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"status\"}");
        }
        final String method = request.get("method").asText();
        final boolean notification = !request.has("id");
        try {
            final Object result = methods.call(method, request.path("params"));
            if (notification) {
                return null;
            }
            final ObjectNode response = JSON.createObjectNode().put("jsonrpc", "2.0");
            response.set("id", id);
            response.set("result", JSON.valueToTree(result));
            return response;
        } catch (AdminMethods.UnknownMethodException e) {
            return notification ? null : error(id, METHOD_NOT_FOUND, e.getMessage());
        } catch (IllegalArgumentException e) {
            return notification ? null : error(id, INVALID_PARAMS, e.getMessage());
        } catch (RuntimeException e) {
            LOG.warn("management method {} failed", method, e);
            return notification ? null : error(id, INTERNAL_ERROR, method + " failed: " + e);
        }
    }

    private static ObjectNode error(final JsonNode id, final int code, final String message) {
        final ObjectNode response = JSON.createObjectNode().put("jsonrpc", "2.0");
        response.set("id", id);
        response.putObject("error").put("code", code).put("message", message);
        return response;
    }

    private static void write(final OutputStream out, final JsonNode response) throws IOException {
        out.write((JSON.writeValueAsString(response) + "\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    /** Stops accepting, closes the socket and removes its file. */
    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException e) {
            LOG.debug("closing the management socket: {}", e.getMessage());
        }
        try {
            Files.deleteIfExists(socket);
        } catch (IOException e) {
            LOG.warn("cannot remove the management socket {}: {}", socket, e.getMessage());
        }
        try {
            acceptor.join(java.time.Duration.ofSeconds(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

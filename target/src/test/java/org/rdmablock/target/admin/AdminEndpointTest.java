package org.rdmablock.target.admin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The management socket's JSON-RPC 2.0 as the specification has it: a parse error, an invalid request, a batch, an
 * unknown method each answered with its code; a notification run and not answered; and the socket file's life: a
 * stale one replaced, a live daemon's refused, the file gone at close.
 */
class AdminEndpointTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    @TempDir
    Path dir;

    private static AdminEndpoint serve(final Path socket, final StringBuilder notified) {
        final Map<String, Function<JsonNode, Object>> methods = new LinkedHashMap<>();
        methods.put("echo", params -> params);
        methods.put("note", params -> notified.append(params.asText()).toString());
        return AdminEndpoint.start(socket, AdminMethods.of(methods));
    }

    @Test
    void errorsCarryTheSpecificationsCodesAndNotificationsGetNoAnswer() throws IOException {
        final StringBuilder notified = new StringBuilder();
        final Path socket = dir.resolve("a.sock");
        try (AdminEndpoint endpoint = serve(socket, notified);
             SocketChannel client = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
            final BufferedReader in = new BufferedReader(new InputStreamReader(Channels.newInputStream(client),
                    StandardCharsets.UTF_8));
            assertEquals(AdminEndpoint.PARSE_ERROR, code(ask(client, in, "not json")));
            assertEquals(AdminEndpoint.INVALID_REQUEST, code(ask(client, in, "[1, 2]")));
            assertEquals(AdminEndpoint.INVALID_REQUEST, code(ask(client, in, "{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"echo\"}")));
            final JsonNode unknown = ask(client, in, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"nope\"}");
            assertEquals(AdminEndpoint.METHOD_NOT_FOUND, code(unknown));
            assertEquals(7, unknown.get("id").asInt());
            assertTrue(unknown.get("error").get("message").asText().contains("the methods are echo, note"), unknown.toString());

            send(client, "{\"jsonrpc\":\"2.0\",\"method\":\"note\",\"params\":\"heard\"}");
            final JsonNode echoed = ask(client, in, "{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"method\":\"echo\",\"params\":[5]}");
            assertEquals("x", echoed.get("id").asText(), "the notification got no answer: " + echoed);
            assertEquals(5, echoed.get("result").get(0).asInt());
            assertEquals("heard", notified.toString(), "and it ran");
            assertFalse(echoed.has("error"));
        }
        assertFalse(Files.exists(socket), "the file goes at close");
    }

    @Test
    void aStaleSocketIsReplacedAndALiveOneRefused() throws IOException {
        final Path socket = dir.resolve("b.sock");
        try (ServerSocketChannel gone = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            gone.bind(UnixDomainSocketAddress.of(socket)); // closed below, its file left: a daemon killed
        }
        assertTrue(Files.exists(socket));
        try (AdminEndpoint endpoint = serve(socket, new StringBuilder())) {
            final UncheckedIOException e = assertThrows(UncheckedIOException.class, () -> serve(socket, new StringBuilder()));
            assertEquals("cannot serve the management socket " + socket + ": a daemon answers on it already", e.getMessage());
            assertTrue(Files.exists(socket), "the live daemon's socket is left alone");
        }
    }

    private static int code(final JsonNode response) {
        assertFalse(response.has("result"), response.toString());
        return response.get("error").get("code").asInt();
    }

    private static void send(final SocketChannel client, final String line) throws IOException {
        client.write(ByteBuffer.wrap((line + "\n").getBytes(StandardCharsets.UTF_8)));
    }

    private static JsonNode ask(final SocketChannel client, final BufferedReader in, final String line) throws IOException {
        send(client, line);
        return JSON.readTree(in.readLine());
    }
}

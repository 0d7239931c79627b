package org.rdmablock.verbs.conformance;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

import org.rdmablock.verbs.CompletionChannel;
import org.rdmablock.verbs.CompletionQueue;
import org.rdmablock.verbs.ConnectionId;
import org.rdmablock.verbs.ConnectionListener;
import org.rdmablock.verbs.ConnectionParameters;
import org.rdmablock.verbs.QueuePair;
import org.rdmablock.verbs.QueuePairCapabilities;
import org.rdmablock.verbs.QueuePairInitAttributes;
import org.rdmablock.verbs.QueuePairType;

/** Two hosts with a connected QP between them, set up through the connection manager. */
public final class ConnectedPair implements AutoCloseable {
    static final Duration TIMEOUT = Duration.ofSeconds(10);

    public final Host client;
    public final Host server;
    public final CompletionQueue clientCq;
    public final CompletionQueue serverCq;
    /** The CQs' completion channels, for sides set up {@link Side#withCompletionChannel()}; else null. */
    public final CompletionChannel clientChannel;
    public final CompletionChannel serverChannel;
    public final ConnectionId clientId;
    public final ConnectionId serverId;
    public final QueuePair clientQp;
    public final QueuePair serverQp;
    final byte[] acceptData;
    private final ConnectionListener listener;
    private final boolean ownsHosts;

    /** Everything needed to set up one side's QP; {@code notified}: its CQ gets a completion channel. */
    record Side(QueuePairType type, QueuePairCapabilities caps, ConnectionParameters parameters, Consumer<QueuePair> beforeConnect,
                boolean notified) {
        static Side of(final QueuePairType type) {
            return new Side(type, QueuePairCapabilities.DEFAULT, ConnectionParameters.of(new byte[0]), qp -> { }, false);
        }

        Side withParameters(final ConnectionParameters p) {
            return new Side(type, caps, p, beforeConnect, notified);
        }

        Side withCaps(final QueuePairCapabilities c) {
            return new Side(type, c, parameters, beforeConnect, notified);
        }

        Side beforeConnect(final Consumer<QueuePair> action) {
            return new Side(type, caps, parameters, action, notified);
        }

        Side withCompletionChannel() {
            return new Side(type, caps, parameters, beforeConnect, true);
        }
    }

    public ConnectedPair(final ProviderFixture fixture, final QueuePairType type) throws Exception {
        this(fixture, Side.of(type), Side.of(type));
    }

    ConnectedPair(final ProviderFixture fixture, final Side clientSide, final Side serverSide) throws Exception {
        this(fixture, new Host(fixture), new Host(fixture), clientSide, serverSide, null, true);
    }

    /** A pair between existing hosts (not closed with the pair); the server QP may use {@code serverSrq}. */
    ConnectedPair(final ProviderFixture fixture, final Host client, final Host server, final Side clientSide,
                  final Side serverSide, final org.rdmablock.verbs.SharedReceiveQueue serverSrq, final boolean ownsHosts) throws Exception {
        this(fixture, client, server, clientSide, serverSide, serverSrq, null, ownsHosts);
    }

    /** As above; the server QP completes on {@code sharedServerCq} when given (several pairs may share it). */
    ConnectedPair(final ProviderFixture fixture, final Host client, final Host server, final Side clientSide,
                  final Side serverSide, final org.rdmablock.verbs.SharedReceiveQueue serverSrq,
                  final CompletionQueue sharedServerCq, final boolean ownsHosts) throws Exception {
        this.client = client;
        this.server = server;
        this.ownsHosts = ownsHosts;
        clientChannel = clientSide.notified() ? client.track(client.context.createCompletionChannel()) : null;
        serverChannel = serverSide.notified() ? server.track(server.context.createCompletionChannel()) : null;
        clientCq = client.cq(1024, clientChannel);
        serverCq = sharedServerCq != null ? sharedServerCq : server.cq(1024, serverChannel);
        listener = server.provider.connectionManager().listen(new InetSocketAddress(fixture.address(), 0), 16);
        ConnectionId requested = null;
        ConnectionId resolved = null;
        try {
            resolved = client.provider.connectionManager().resolve(listener.localAddress(), TIMEOUT);
            final ConnectionId active = resolved;
            clientQp = active.createQueuePair(client.pd, new QueuePairInitAttributes(clientSide.type(), clientCq, clientCq,
                null, clientSide.caps(), false));
            clientSide.beforeConnect().accept(clientQp);
            final CompletableFuture<Void> connected = CompletableFuture.runAsync(() -> active.connect(clientSide.parameters(), TIMEOUT));
            requested = listener.nextRequest(TIMEOUT);
            if (requested == null) {
                throw new TimeoutException("no connection request within " + TIMEOUT + ": " + failureOf(connected));
            }
            serverQp = requested.createQueuePair(server.pd, new QueuePairInitAttributes(serverSide.type(), serverCq, serverCq,
                serverSrq, serverSide.caps(), false));
            serverSide.beforeConnect().accept(serverQp);
            requested.accept(serverSide.parameters());
            connected.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        } catch (final Exception | AssertionError e) {
            // nothing of a half-made pair may outlive the test: its threads and connections would disturb the next
            for (final AutoCloseable c : new AutoCloseable[] {requested, resolved, listener}) {
                try {
                    if (c != null) {
                        c.close();
                    }
                } catch (final Exception ignored) {
                    // best effort
                }
            }
            if (ownsHosts) {
                client.close();
                server.close();
            }
            throw e;
        }
        clientId = resolved;
        serverId = requested;
        acceptData = clientId.privateData();
    }

    private static String failureOf(final CompletableFuture<Void> future) {
        try {
            future.get(1, TimeUnit.SECONDS);
            return "connect returned";
        } catch (final ExecutionException e) {
            return String.valueOf(e.getCause());
        } catch (final Exception e) {
            return "connect still running";
        }
    }

    @Override
    public void close() {
        try {
            clientId.close();
        } catch (final RuntimeException ignored) {
            // best effort
        }
        try {
            serverId.close();
        } catch (final RuntimeException ignored) {
            // best effort
        }
        listener.close();
        if (ownsHosts) {
            client.close();
            server.close();
        }
    }
}

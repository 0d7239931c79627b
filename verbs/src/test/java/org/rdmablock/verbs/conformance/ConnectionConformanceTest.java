package org.rdmablock.verbs.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.rdmablock.verbs.conformance.DataTransferConformanceTest.ALL;
import static org.rdmablock.verbs.conformance.DataTransferConformanceTest.postReceive;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.rdmablock.verbs.AccessFlags;
import org.rdmablock.verbs.Await;
import org.rdmablock.verbs.CompletionQueue;
import org.rdmablock.verbs.ConnectionFailedException;
import org.rdmablock.verbs.ConnectionId;
import org.rdmablock.verbs.ConnectionListener;
import org.rdmablock.verbs.ConnectionParameters;
import org.rdmablock.verbs.ConnectionRejectedException;
import org.rdmablock.verbs.DisconnectReason;
import org.rdmablock.verbs.MemoryRegion;
import org.rdmablock.verbs.QueuePair;
import org.rdmablock.verbs.QueuePairInitAttributes;
import org.rdmablock.verbs.QueuePairState;
import org.rdmablock.verbs.QueuePairType;
import org.rdmablock.verbs.SendFlags;
import org.rdmablock.verbs.SendOpcode;
import org.rdmablock.verbs.SendWorkRequest;
import org.rdmablock.verbs.VerbsException;
import org.rdmablock.verbs.WcStatus;
import org.rdmablock.verbs.conformance.Completions.Wc;

/** Connection setup and teardown: reject with private data, disconnect on both sides, a peer that vanishes. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ConnectionConformanceTest {

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.rdmablock.verbs.conformance.Fixtures#providers")
    void rejectCarriesPrivateDataToTheActiveSide(final ProviderFixture fixture) throws Exception {
        try (Endpoints ends = new Endpoints(fixture, 4)) {
            final ConnectionId id = ends.resolvedWithQp();
            final byte[] login = new byte[56];
            new Random(30).nextBytes(login);
            final CompletableFuture<ConnectionRejectedException> attempt = CompletableFuture.supplyAsync(() ->
                assertThrows(ConnectionRejectedException.class, () -> id.connect(ConnectionParameters.of(login), ConnectedPair.TIMEOUT)));
            final ConnectionId request = ends.listener.nextRequest(ConnectedPair.TIMEOUT);
            DataTransferConformanceTest.assertStartsWith(login, request.privateData());
            assertEquals(ConnectionId.State.REQUESTED, request.state());
            final byte[] reason = {(byte) 0xC2, 0, 0, 0, 0, 1, 0, 4};
            request.reject(reason);
            final ConnectionRejectedException rejected = attempt.get(10, TimeUnit.SECONDS);
            assertEquals(ConnectionFailedException.Reason.CONSUMER_REJECT, rejected.reason(), rejected.getMessage());
            assertEquals(VerbsException.ECONNREFUSED, rejected.errno());
            DataTransferConformanceTest.assertStartsWith(reason, rejected.privateData());
            assertEquals(ConnectionId.State.REJECTED, id.state());
            assertEquals(QueuePairState.ERR, id.queuePair().state(), "a rejected connection's QP is in ERR (as librdmacm leaves it)");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.rdmablock.verbs.conformance.Fixtures#providers")
    void connectingWhereNobodyListensFailsClearly(final ProviderFixture fixture) throws Exception {
        final int port;
        try (ServerSocket probe = new ServerSocket(0)) {
            port = probe.getLocalPort();
        }
        try (Host client = new Host(fixture)) {
            final ConnectionId id = client.track(client.provider.connectionManager()
                .resolve(new InetSocketAddress(fixture.address(), port), ConnectedPair.TIMEOUT));
            id.createQueuePair(client.pd, QueuePairInitAttributes.of(QueuePairType.RC, client.cq(16)));
            // a reconnecting initiator tells "no target there (yet)" from "the target refused my login" by the reason
            final ConnectionRejectedException e = assertThrows(ConnectionRejectedException.class,
                () -> id.connect(ConnectionParameters.of(new byte[] {1, 2, 3}), ConnectedPair.TIMEOUT));
            assertEquals(ConnectionFailedException.Reason.NO_LISTENER, e.reason(), e.getMessage());
            assertEquals(VerbsException.ECONNREFUSED, e.errno());
            assertEquals(0, e.privateData().length, "nobody sent private data");
            assertEquals(ConnectionId.State.REJECTED, id.state());
            assertEquals(VerbsException.EINVAL, assertThrows(VerbsException.class,
                () -> id.connect(ConnectionParameters.of(new byte[0]), ConnectedPair.TIMEOUT)).errno(), "a failed id is not connected again");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.rdmablock.verbs.conformance.Fixtures#providers")
    void disconnectIsSeenOnBothSidesAndFlushesOutstandingWork(final ProviderFixture fixture) throws Exception {
        try (ConnectedPair pair = new ConnectedPair(fixture, QueuePairType.RC)) {
            final MemoryRegion clientSink = pair.client.register(4096, AccessFlags.LOCAL_WRITE);
            final MemoryRegion serverSink = pair.server.register(4096, AccessFlags.LOCAL_WRITE);
            postReceive(pair.clientQp, clientSink, 0, 64, 1);
            postReceive(pair.serverQp, serverSink, 0, 64, 2);
            final CompletableFuture<DisconnectReason> serverSaw = new CompletableFuture<>();
            pair.serverId.onDisconnect(id -> serverSaw.complete(id.disconnectReason()));
            assertNull(pair.clientId.disconnectReason(), "a connection that has not ended has no reason");
            pair.clientId.disconnect();
            assertTrue(pair.clientId.awaitDisconnect(ConnectedPair.TIMEOUT));
            assertEquals(DisconnectReason.LOCAL_DISCONNECT, pair.clientId.disconnectReason());
            assertEquals(DisconnectReason.PEER_DISCONNECTED, serverSaw.get(10, TimeUnit.SECONDS), "reason seen by the handler");
            assertEquals(DisconnectReason.PEER_DISCONNECTED, pair.serverId.disconnectReason());
            assertEquals(ConnectionId.State.DISCONNECTED, pair.serverId.state());
            assertEquals(WcStatus.WR_FLUSH_ERR, Completions.awaitOne(pair.clientCq).status());
            assertEquals(WcStatus.WR_FLUSH_ERR, Completions.awaitOne(pair.serverCq).status());
            ErrorConformanceTest.awaitState(pair.serverQp, QueuePairState.ERR);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.rdmablock.verbs.conformance.Fixtures#providers")
    void peerThatVanishesFailsOutstandingWorkAndNothingHangs(final ProviderFixture fixture) throws Exception {
        final ConnectedPair pair = new ConnectedPair(fixture, QueuePairType.RC);
        try {
            final MemoryRegion remote = pair.server.register(8 << 20, ALL);
            final MemoryRegion local = pair.client.register(8 << 20, AccessFlags.LOCAL_WRITE);
            postReceive(pair.clientQp, local, 0, 64, 1);
            postReceive(pair.clientQp, local, 64, 64, 2);
            final SendWorkRequest read = new SendWorkRequest().wrId(3).opcode(SendOpcode.RDMA_READ).flags(SendFlags.SIGNALED)
                .remote(remote.address(), remote.rkey());
            read.sgl().add(local, 0, 8 << 20);
            final SendWorkRequest send = new SendWorkRequest().wrId(4).opcode(SendOpcode.SEND).flags(SendFlags.SIGNALED);
            pair.clientQp.postSend(read.next(send));
            pair.server.provider.close(); // the peer's process is gone: its sockets close under it
            final List<Wc> done = Completions.await(pair.clientCq, 4, ConnectedPair.TIMEOUT);
            assertEquals(List.of(1L, 2L, 3L, 4L), done.stream().map(Wc::wrId).sorted().toList());
            assertTrue(done.stream().anyMatch(wc -> wc.status() != WcStatus.SUCCESS), "outstanding work must fail: " + done);
            done.stream().filter(wc -> wc.wrId() <= 2).forEach(wc -> assertEquals(WcStatus.WR_FLUSH_ERR, wc.status()));
            assertTrue(pair.clientId.awaitDisconnect(ConnectedPair.TIMEOUT));
            // the soft provider cannot tell a reset from an orderly close; rdma_cm reports a DREQ from the peer's kernel
            assertTrue(List.of(DisconnectReason.PEER_DISCONNECTED, DisconnectReason.CONNECTION_LOST).contains(pair.clientId.disconnectReason()),
                "reason " + pair.clientId.disconnectReason());
            assertEquals(QueuePairState.ERR, pair.clientQp.state());
        } finally {
            pair.clientId.close();
            pair.client.close();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.rdmablock.verbs.conformance.Fixtures#providers")
    void acceptChecksItsTimeoutBeforeAnsweringAndTheRequestStaysAcceptable(final ProviderFixture fixture) throws Exception {
        try (Endpoints ends = new Endpoints(fixture, 4)) {
            final ConnectionId id = ends.resolvedWithQp();
            assertEquals(VerbsException.EINVAL, assertThrows(VerbsException.class,
                () -> id.connect(ConnectionParameters.of(new byte[0]), Duration.ZERO)).errno());
            assertEquals(ConnectionId.State.RESOLVED, id.state(), "a refused argument changes nothing");
            final CompletableFuture<Void> connected = CompletableFuture.runAsync(() -> id.connect(ConnectionParameters.of(new byte[0]), ConnectedPair.TIMEOUT));
            final ConnectionId request = ends.requestWithQp();
            for (final Duration bad : new Duration[] {Duration.ZERO, Duration.ofMillis(-1), null}) {
                final VerbsException e = assertThrows(VerbsException.class, () -> request.accept(ConnectionParameters.of(new byte[0]), bad));
                assertEquals(VerbsException.EINVAL, e.errno(), String.valueOf(bad));
                assertEquals(ConnectionId.State.REQUESTED, request.state());
            }
            request.accept(ConnectionParameters.of(new byte[0]), ConnectedPair.TIMEOUT);
            connected.get(10, TimeUnit.SECONDS);
            assertEquals(ConnectionId.State.CONNECTED, request.state());
            assertEquals(ConnectionId.State.CONNECTED, id.state());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.rdmablock.verbs.conformance.Fixtures#providers")
    void eachSideReadsTheReadDepthsThePeerAnnouncedAndItsOwn(final ProviderFixture fixture) throws Exception {
        // the client offers IRD 4 and asks for ORD 8; the server grants IRD 16 (covering the client's 8) and ORD 2
        final ConnectedPair.Side client = ConnectedPair.Side.of(QueuePairType.RC).withParameters(new ConnectionParameters(new byte[0], 4, 8, 7, 7));
        final ConnectedPair.Side server = ConnectedPair.Side.of(QueuePairType.RC).withParameters(new ConnectionParameters(new byte[0], 16, 2, 7, 7));
        try (ConnectedPair pair = new ConnectedPair(fixture, client, server)) {
            final ConnectionId.ReadDepths atServer = pair.serverId.readDepths();
            final ConnectionId.ReadDepths atClient = pair.clientId.readDepths();
            assertEquals(4, atServer.peerResponderResources(), "the server reads what the client offered: " + atServer);
            assertEquals(8, atServer.peerInitiatorDepth(), atServer.toString());
            assertEquals(16, atClient.peerResponderResources(), "the client reads what the server granted: " + atClient);
            assertEquals(2, atClient.peerInitiatorDepth(), atClient.toString());
            assertEquals(16, atServer.responderResources(), atServer.toString());
            assertEquals(2, atServer.initiatorDepth(), atServer.toString());
            // the client's own values are the provider's to settle (IB takes the server's; the soft provider keeps
            // what it asked within them), but neither side may issue more than the other accepts
            assertTrue(atClient.initiatorDepth() >= 1 && atClient.initiatorDepth() <= atServer.responderResources(), atClient.toString());
            assertTrue(atClient.responderResources() >= atServer.initiatorDepth(), atClient.toString());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.rdmablock.verbs.conformance.Fixtures#providers")
    void theRequestShowsThePeersReadDepthsBeforeItIsAccepted(final ProviderFixture fixture) throws Exception {
        try (Endpoints ends = new Endpoints(fixture, 4)) {
            final ConnectionId id = ends.resolvedWithQp();
            assertEquals(ConnectionId.ReadDepths.UNKNOWN, id.readDepths(), "nothing is known before the exchange");
            final CompletableFuture<Void> connected = CompletableFuture.runAsync(
                () -> id.connect(new ConnectionParameters(new byte[0], 3, 5, 7, 7), ConnectedPair.TIMEOUT));
            final ConnectionId request = ends.server.track(ends.listener.nextRequest(ConnectedPair.TIMEOUT));
            assertEquals(new ConnectionId.ReadDepths(-1, -1, 3, 5), request.readDepths(), "the peer's known, this side's not yet");
            request.reject(new byte[0]);
            assertThrows(java.util.concurrent.ExecutionException.class, () -> connected.get(10, TimeUnit.SECONDS));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.rdmablock.verbs.conformance.Fixtures#providers")
    void privateDataLimitsHoldToTheByteForRequestReplyAndReject(final ProviderFixture fixture) throws Exception {
        try (Endpoints ends = new Endpoints(fixture, 4)) {
            // request and reply: one over the limit is refused before anything is sent, exactly the limit arrives
            final ConnectionId id = ends.resolvedWithQp();
            final int requestLimit = id.maxPrivateDataLength(ConnectionId.CmMessage.REQUEST);
            assertTrue(requestLimit >= 56, "a request must carry rdma_cm's SRP login (56 bytes), limit " + requestLimit);
            assertTrue(ends.client.provider.connectionManager().maxPrivateDataLength() <= requestLimit);
            assertEquals(VerbsException.EINVAL, assertThrows(VerbsException.class,
                () -> id.connect(ConnectionParameters.of(new byte[requestLimit + 1]), ConnectedPair.TIMEOUT)).errno());
            assertEquals(ConnectionId.State.RESOLVED, id.state(), "nothing was sent");
            final byte[] login = random(requestLimit, 1);
            final CompletableFuture<Void> connected = CompletableFuture.runAsync(() -> id.connect(ConnectionParameters.of(login), ConnectedPair.TIMEOUT));
            final ConnectionId request = ends.requestWithQp();
            DataTransferConformanceTest.assertStartsWith(login, request.privateData());
            final int replyLimit = request.maxPrivateDataLength(ConnectionId.CmMessage.REPLY);
            assertTrue(replyLimit >= requestLimit, "reply limit " + replyLimit);
            assertEquals(VerbsException.EINVAL, assertThrows(VerbsException.class,
                () -> request.accept(ConnectionParameters.of(new byte[replyLimit + 1]), ConnectedPair.TIMEOUT)).errno());
            assertEquals(ConnectionId.State.REQUESTED, request.state(), "nothing was sent");
            final byte[] response = random(replyLimit, 2);
            request.accept(ConnectionParameters.of(response), ConnectedPair.TIMEOUT);
            connected.get(10, TimeUnit.SECONDS);
            DataTransferConformanceTest.assertStartsWith(response, id.privateData());

            // reject: the same at its own limit
            final ConnectionId second = ends.resolvedWithQp();
            final CompletableFuture<ConnectionRejectedException> attempt = CompletableFuture.supplyAsync(() ->
                assertThrows(ConnectionRejectedException.class, () -> second.connect(ConnectionParameters.of(new byte[0]), ConnectedPair.TIMEOUT)));
            final ConnectionId refused = ends.server.track(ends.listener.nextRequest(ConnectedPair.TIMEOUT));
            final int rejectLimit = refused.maxPrivateDataLength(ConnectionId.CmMessage.REJECT);
            assertTrue(rejectLimit >= 56, "a reject must carry an SRP LOGIN_REJ, limit " + rejectLimit);
            assertEquals(VerbsException.EINVAL, assertThrows(VerbsException.class, () -> refused.reject(new byte[rejectLimit + 1])).errno());
            assertEquals(ConnectionId.State.REQUESTED, refused.state(), "nothing was sent");
            final byte[] reason = random(rejectLimit, 3);
            refused.reject(reason);
            final ConnectionRejectedException rejected = attempt.get(10, TimeUnit.SECONDS);
            assertEquals(ConnectionFailedException.Reason.CONSUMER_REJECT, rejected.reason());
            DataTransferConformanceTest.assertStartsWith(reason, rejected.privateData());
        }
    }

    private static byte[] random(final int length, final long seed) {
        final byte[] bytes = new byte[length];
        new Random(seed).nextBytes(bytes);
        bytes[length - 1] = (byte) 0xA5; // a last byte that cannot pass for padding
        return bytes;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.rdmablock.verbs.conformance.Fixtures#providers")
    void aListenerOnTheIpv6WildcardTakesIpv4ConnectionsAndIpv6ToItsAddress(final ProviderFixture fixture) throws Exception {
        // [::] listens for both families (rdma_cm's afonly and Java's IPV6_V6ONLY are off by default): the native
        // provider binds a struct sockaddr_in6 with rdma_bind_addr, and IPv4 initiators still reach it
        if (fixture.name().equals("soft")) {
            assumeTrue(fixture.address6() != null, "this host has no IPv6 (soft provider's sockets need it here)");
        }
        try (Endpoints ends = new Endpoints(fixture, 4, InetAddress.getByName("::"))) {
            assertTrue(ends.listener.localAddress().getAddress() instanceof Inet6Address, "listening on " + ends.listener.localAddress());
            sendOver(ends, fixture.address(), 1);
            if (fixture.address6() != null) { // soft: ::1; native: -Drdmablock.conformance.address6, an address of the RDMA interface
                final ConnectionId id = sendOver(ends, fixture.address6(), 2);
                assertEquals(fixture.address6(), id.remoteAddress().getAddress());
                assertTrue(id.localAddress().getAddress() instanceof Inet6Address, "connected from " + id.localAddress());
            }
        }
    }

    /** Connects to the listener's port at {@code address}, accepts, and carries one SEND across; returns the client's id. */
    private static ConnectionId sendOver(final Endpoints ends, final InetAddress address, final long seed) throws Exception {
        final InetSocketAddress target = new InetSocketAddress(address, ends.listener.localAddress().getPort());
        final ConnectionId id = ends.client.track(ends.client.provider.connectionManager().resolve(target, ConnectedPair.TIMEOUT));
        final CompletionQueue clientCq = ends.client.cq(16);
        final QueuePair clientQp = id.createQueuePair(ends.client.pd, QueuePairInitAttributes.of(QueuePairType.RC, clientCq));
        final CompletableFuture<Void> connected = CompletableFuture.runAsync(() -> id.connect(ConnectionParameters.of(new byte[0]), ConnectedPair.TIMEOUT));
        final ConnectionId request = ends.requestWithQp();
        final MemoryRegion sink = ends.server.register(64, AccessFlags.LOCAL_WRITE);
        postReceive(request.queuePair(), sink, 0, 64, seed);
        request.accept(ConnectionParameters.of(new byte[0]), ConnectedPair.TIMEOUT);
        connected.get(10, TimeUnit.SECONDS);
        assertEquals(address, id.remoteAddress().getAddress(), "the client's peer");
        final MemoryRegion source = ends.client.register(DataTransferConformanceTest.pattern(ends.client, 64, seed), AccessFlags.LOCAL_WRITE);
        final SendWorkRequest send = new SendWorkRequest().wrId(seed).opcode(SendOpcode.SEND).flags(SendFlags.SIGNALED);
        send.sgl().add(source, 0, 64);
        clientQp.postSend(send);
        assertEquals(WcStatus.SUCCESS, Completions.awaitOne(clientCq).status());
        assertEquals(WcStatus.SUCCESS, Completions.awaitOne(request.queuePair().receiveCompletionQueue()).status());
        assertArrayEquals(DataTransferConformanceTest.bytes(source.segment(), 0, 64), DataTransferConformanceTest.bytes(sink.segment(), 0, 64));
        return id;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.rdmablock.verbs.conformance.Fixtures#providers")
    void oneListenerTakesManyConcurrentConnectionsAndEachCarriesItsOwnSend(final ProviderFixture fixture) throws Exception {
        final int connections = 32;
        final int size = 64;
        try (Endpoints ends = new Endpoints(fixture, connections);
             java.util.concurrent.ExecutorService initiators = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
            final CompletionQueue clientCq = ends.client.cq(4 * connections);
            final CompletionQueue serverCq = ends.server.cq(4 * connections);
            final MemoryRegion sources = ends.client.register(DataTransferConformanceTest.pattern(ends.client, size * connections, 32), AccessFlags.LOCAL_WRITE);
            final MemoryRegion sinks = ends.server.register((long) size * connections, AccessFlags.LOCAL_WRITE);
            // every initiator resolves, creates its QP and connects at the same time, naming itself in its private data
            final List<java.util.concurrent.Future<ConnectionId>> connects = new java.util.ArrayList<>();
            for (int i = 0; i < connections; i++) {
                final byte index = (byte) i;
                connects.add(initiators.submit(() -> {
                    final ConnectionId id = ends.client.provider.connectionManager().resolve(ends.listener.localAddress(), ConnectedPair.TIMEOUT);
                    try {
                        id.createQueuePair(ends.client.pd, QueuePairInitAttributes.of(QueuePairType.RC, clientCq));
                        id.connect(ConnectionParameters.of(new byte[] {index}), ConnectedPair.TIMEOUT);
                        return id;
                    } catch (final RuntimeException e) {
                        id.close();
                        throw e;
                    }
                }));
            }
            // the target takes them one by one; each QP gets a receive for its initiator's slot
            final QueuePair[] serverQps = new QueuePair[connections];
            for (int k = 0; k < connections; k++) {
                final ConnectionId request = ends.listener.nextRequest(ConnectedPair.TIMEOUT);
                assertNotNull(request, "only " + k + " of " + connections + " requests arrived");
                ends.server.track(request);
                final int index = request.privateData()[0];
                assertNull(serverQps[index], "initiator " + index + " requested twice");
                serverQps[index] = request.createQueuePair(ends.server.pd, QueuePairInitAttributes.of(QueuePairType.RC, serverCq));
                postReceive(serverQps[index], sinks, (long) size * index, size, index);
                request.accept(ConnectionParameters.of(new byte[0]), ConnectedPair.TIMEOUT);
            }
            final ConnectionId[] ids = new ConnectionId[connections];
            for (int i = 0; i < connections; i++) {
                ids[i] = ends.client.track(connects.get(i).get(ConnectedPair.TIMEOUT.toSeconds(), TimeUnit.SECONDS));
                assertEquals(ConnectionId.State.CONNECTED, ids[i].state());
            }
            for (int i = 0; i < connections; i++) {
                final SendWorkRequest send = new SendWorkRequest().wrId(i).opcode(SendOpcode.SEND).flags(SendFlags.SIGNALED);
                send.sgl().add(sources, (long) size * i, size);
                ids[i].queuePair().postSend(send);
            }
            final List<Wc> sent = Completions.await(clientCq, connections, ConnectedPair.TIMEOUT);
            final List<Wc> received = Completions.await(serverCq, connections, ConnectedPair.TIMEOUT);
            sent.forEach(wc -> assertEquals(WcStatus.SUCCESS, wc.status(), "send " + wc.wrId()));
            for (final Wc wc : received) {
                assertEquals(WcStatus.SUCCESS, wc.status(), "receive " + wc.wrId());
                assertEquals(serverQps[(int) wc.wrId()].qpNum(), wc.qpNum(), "initiator " + wc.wrId() + "'s SEND arrived on its own QP");
                assertEquals(size, wc.byteLength());
            }
            assertArrayEquals(DataTransferConformanceTest.bytes(sources.segment(), 0, size * connections),
                DataTransferConformanceTest.bytes(sinks.segment(), 0, size * connections), "every slot holds its initiator's bytes");
        }
    }

    /**
     * A target polls one CQ for all its connections from its own thread and answers a SEND at once. A SEND that the
     * initiator sends the moment its connect returns may reach the target while the accept is still finishing: the
     * polling thread must not read a connection that is half attached (the soft provider threw NullPointerException
     * from poll) nor deliver a SEND before the QP can answer it (an answer failed: "cannot post a send in state INIT").
     * One connection at a time, so that the CQ's poll reads each QP's stream itself.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("org.rdmablock.verbs.conformance.Fixtures#providers")
    void aSendArrivingAsTheAcceptFinishesIsAnsweredAtOnceFromThePollingThread(final ProviderFixture fixture) throws Exception {
        final int connections = 150;
        try (Endpoints ends = new Endpoints(fixture, 4);
             java.util.concurrent.ExecutorService initiators = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
            final CompletionQueue serverCq = ends.server.cq(64);
            final MemoryRegion serverMemory = ends.server.register(64, AccessFlags.LOCAL_WRITE);
            final MemoryRegion clientMemory = ends.client.register(64, AccessFlags.LOCAL_WRITE);
            final org.rdmablock.verbs.WorkCompletions got = new org.rdmablock.verbs.WorkCompletions(1);
            final java.util.Map<Integer, QueuePair> byQpNum = new java.util.concurrent.ConcurrentHashMap<>();
            final java.util.concurrent.atomic.AtomicReference<Throwable> pollerFailed = new java.util.concurrent.atomic.AtomicReference<>();
            final java.util.concurrent.atomic.AtomicBoolean running = new java.util.concurrent.atomic.AtomicBoolean(true);
            // answers whose postSend has returned: the answer can reach the client while the poller is still inside
            // the post (rxe), and closing the server's QP under that call fails ("Session is acquired by 1 clients")
            final java.util.concurrent.atomic.AtomicInteger answered = new java.util.concurrent.atomic.AtomicInteger();
            final Thread poller = Thread.ofPlatform().name("conformance-poller").start(() -> {
                final org.rdmablock.verbs.WorkCompletions wc = new org.rdmablock.verbs.WorkCompletions(16);
                final SendWorkRequest answer = new SendWorkRequest().opcode(SendOpcode.SEND).flags(SendFlags.SIGNALED);
                answer.sgl().add(serverMemory, 0, 8);
                try {
                    while (running.get()) {
                        final int n = serverCq.poll(wc, 16);
                        for (int i = 0; i < n; i++) {
                            if (wc.isSuccess(i) && wc.opcode(i) == org.rdmablock.verbs.WcOpcode.RECV) {
                                byQpNum.get(wc.qpNum(i)).postSend(answer.wrId(wc.wrId(i)));
                                answered.incrementAndGet();
                            }
                        }
                    }
                } catch (final Throwable t) {
                    pollerFailed.set(t);
                }
            });
            try {
                for (int k = 0; k < connections; k++) {
                    final CompletionQueue clientCq = ends.client.cq(16); // its own: a closed connection flushes work
                    final java.util.concurrent.Future<ConnectionId> connected = initiators.submit(() -> {
                        final ConnectionId id = ends.client.track(
                            ends.client.provider.connectionManager().resolve(ends.listener.localAddress(), ConnectedPair.TIMEOUT));
                        id.createQueuePair(ends.client.pd, QueuePairInitAttributes.of(QueuePairType.RC, clientCq));
                        postReceive(id.queuePair(), clientMemory, 0, 64, 1);
                        id.connect(ConnectionParameters.of(new byte[0]), ConnectedPair.TIMEOUT);
                        final SendWorkRequest send = new SendWorkRequest().wrId(2).opcode(SendOpcode.SEND);
                        send.sgl().add(clientMemory, 0, 8);
                        id.queuePair().postSend(send); // at once: the accept may not have returned yet
                        return id;
                    });
                    final ConnectionId request = ends.server.track(ends.listener.nextRequest(ConnectedPair.TIMEOUT));
                    assertNotNull(request, "connection " + k + ": no request");
                    final QueuePair qp = request.createQueuePair(ends.server.pd, QueuePairInitAttributes.of(QueuePairType.RC, serverCq));
                    byQpNum.put(qp.qpNum(), qp);
                    postReceive(qp, serverMemory, 8, 56, k);
                    request.accept(ConnectionParameters.of(new byte[0]), ConnectedPair.TIMEOUT);
                    final ConnectionId id = connected.get(ConnectedPair.TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                    final int n = Await.atMost("connection " + k + ": the answer", ConnectedPair.TIMEOUT)
                        .until(() -> clientCq.poll(got, 1), count -> count > 0 || pollerFailed.get() != null);
                    final int round = k;
                    assertNull(pollerFailed.get(), () -> "connection " + round + ": the polling thread failed: " + pollerFailed.get());
                    assertEquals(1, n, "connection " + k + ": the answer arrives");
                    assertEquals(WcStatus.SUCCESS, got.status(0), "connection " + k + ": " + got.toString(0));
                    Await.atMost("connection " + k + ": the polling thread's post returned", ConnectedPair.TIMEOUT)
                        .until(() -> answered.get() > round || pollerFailed.get() != null);
                    assertEquals(k + 1, answered.get(), "connection " + k + ": the polling thread's post returned");
                    id.close();
                    request.close();
                }
            } finally {
                running.set(false);
                poller.join(10_000);
            }
            assertNull(pollerFailed.get(), () -> "the polling thread failed: " + pollerFailed.get());
        }
    }

    /** Two hosts and a listener on the server's, closed together. */
    private static final class Endpoints implements AutoCloseable {
        final Host client;
        final Host server;
        final ConnectionListener listener;

        Endpoints(final ProviderFixture fixture, final int backlog) {
            this(fixture, backlog, fixture.address());
        }

        /** The listener on {@code listenOn} (a wildcard, say) instead of the fixture's address. */
        Endpoints(final ProviderFixture fixture, final int backlog, final InetAddress listenOn) {
            client = new Host(fixture);
            server = new Host(fixture);
            listener = server.provider.connectionManager().listen(new InetSocketAddress(listenOn, 0), backlog);
        }

        /** An id resolved to the listener with its RC QP created; closed with the client host. */
        ConnectionId resolvedWithQp() {
            final ConnectionId id = client.track(client.provider.connectionManager().resolve(listener.localAddress(), ConnectedPair.TIMEOUT));
            id.createQueuePair(client.pd, QueuePairInitAttributes.of(QueuePairType.RC, client.cq(16)));
            return id;
        }

        /** The listener's next request with its RC QP created; closed with the server host. */
        ConnectionId requestWithQp() throws InterruptedException {
            final ConnectionId request = server.track(listener.nextRequest(ConnectedPair.TIMEOUT));
            assertNotNull(request, "no connection request within " + ConnectedPair.TIMEOUT);
            request.createQueuePair(server.pd, QueuePairInitAttributes.of(QueuePairType.RC, server.cq(16)));
            return request;
        }

        @Override
        public void close() {
            listener.close();
            server.close();
            client.close();
        }
    }
}

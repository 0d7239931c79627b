package org.rdmablock.verbs.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
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
import org.rdmablock.verbs.ConnectionParameters;
import org.rdmablock.verbs.MemoryRegion;
import org.rdmablock.verbs.QueuePairCapabilities;
import org.rdmablock.verbs.QueuePairType;
import org.rdmablock.verbs.ReceiveWorkRequest;
import org.rdmablock.verbs.SendFlags;
import org.rdmablock.verbs.SendOpcode;
import org.rdmablock.verbs.SendWorkRequest;
import org.rdmablock.verbs.WcOpcode;
import org.rdmablock.verbs.WcStatus;
import org.rdmablock.verbs.conformance.Completions.Wc;

/** Every operation on every transport, with immediate data and atomics: data arrives intact and completes right. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DataTransferConformanceTest {
    static final int ALL = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_ATOMIC;

    /**
     * Private data arrives whole, possibly padded with zeros to the transport's fixed size (rdma_cm over
     * InfiniBand and RoCE delivers the CM message's whole private data field).
     */
    static void assertStartsWith(final byte[] expected, final byte[] actual) {
        assertTrue(actual.length >= expected.length, "private data of " + actual.length + " bytes, sent " + expected.length);
        assertArrayEquals(expected, java.util.Arrays.copyOf(actual, expected.length));
        for (int i = expected.length; i < actual.length; i++) {
            assertEquals(0, actual[i], "padding after the private data must be zero");
        }
    }

    static MemorySegment pattern(final Host host, final int size, final long seed) {
        final MemorySegment memory = host.allocate(size);
        final byte[] bytes = new byte[size];
        new Random(seed).nextBytes(bytes);
        MemorySegment.copy(bytes, 0, memory, ValueLayout.JAVA_BYTE, 0, size);
        return memory;
    }

    static byte[] bytes(final MemorySegment memory, final long offset, final int length) {
        return memory.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE);
    }

    static void postReceive(final org.rdmablock.verbs.QueuePair qp, final MemoryRegion mr, final long offset, final int length, final long wrId) {
        final ReceiveWorkRequest wr = new ReceiveWorkRequest().wrId(wrId);
        wr.sgl().add(mr, offset, length);
        qp.postReceive(wr);
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("org.rdmablock.verbs.conformance.Fixtures#connectedTransports")
    void sendArrivesInReceiveBufferAndBothSidesComplete(final ProviderFixture fixture, final QueuePairType type) throws Exception {
        try (ConnectedPair pair = new ConnectedPair(fixture, type)) {
            final MemoryRegion source = pair.client.register(pattern(pair.client, 4096, 1), AccessFlags.LOCAL_WRITE);
            final MemoryRegion sink = pair.server.register(8192, AccessFlags.LOCAL_WRITE);
            postReceive(pair.serverQp, sink, 0, 8192, 77);
            final SendWorkRequest send = new SendWorkRequest().wrId(5).opcode(SendOpcode.SEND).flags(SendFlags.SIGNALED);
            send.sgl().add(source, 0, 4096);
            pair.clientQp.postSend(send);

            final Wc received = Completions.awaitOne(pair.serverCq);
            assertEquals(WcStatus.SUCCESS, received.status());
            assertEquals(WcOpcode.RECV, received.opcode());
            assertEquals(77, received.wrId());
            assertEquals(4096, received.byteLength());
            assertEquals(pair.serverQp.qpNum(), received.qpNum());
            assertArrayEquals(bytes(source.segment(), 0, 4096), bytes(sink.segment(), 0, 4096));
            final Wc sent = Completions.awaitOne(pair.clientCq);
            assertEquals(WcStatus.SUCCESS, sent.status());
            assertEquals(WcOpcode.SEND, sent.opcode());
            assertEquals(5, sent.wrId());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.rdmablock.verbs.conformance.Fixtures#providers")
    void largeSendIsSegmentedAndScatteredAcrossReceiveElements(final ProviderFixture fixture) throws Exception {
        final int size = 300_000;
        final QueuePairCapabilities caps = new QueuePairCapabilities(16, 16, 4, 4, 64);
        try (ConnectedPair pair = new ConnectedPair(fixture, ConnectedPair.Side.of(QueuePairType.RC).withCaps(caps),
            ConnectedPair.Side.of(QueuePairType.RC).withCaps(caps))) {
            final MemoryRegion a = pair.client.register(pattern(pair.client, size / 2, 2), AccessFlags.LOCAL_WRITE);
            final MemoryRegion b = pair.client.register(pattern(pair.client, size / 2, 3), AccessFlags.LOCAL_WRITE);
            final MemoryRegion sink = pair.server.register(400_000, AccessFlags.LOCAL_WRITE);
            final ReceiveWorkRequest recv = new ReceiveWorkRequest(3).wrId(1);
            recv.sgl().add(sink, 0, 1000).add(sink, 5000, 100_000).add(sink, 200_000, size - 101_000);
            pair.serverQp.postReceive(recv);
            final SendWorkRequest send = new SendWorkRequest(2).opcode(SendOpcode.SEND).flags(SendFlags.SIGNALED);
            send.sgl().add(a, 0, size / 2).add(b, 0, size / 2);
            pair.clientQp.postSend(send);

            final Wc received = Completions.awaitOne(pair.serverCq);
            assertEquals(WcStatus.SUCCESS, received.status());
            assertEquals(size, received.byteLength());
            final byte[] expected = new byte[size];
            System.arraycopy(bytes(a.segment(), 0, size / 2), 0, expected, 0, size / 2);
            System.arraycopy(bytes(b.segment(), 0, size / 2), 0, expected, size / 2, size / 2);
            final byte[] actual = new byte[size];
            System.arraycopy(bytes(sink.segment(), 0, 1000), 0, actual, 0, 1000);
            System.arraycopy(bytes(sink.segment(), 5000, 100_000), 0, actual, 1000, 100_000);
            System.arraycopy(bytes(sink.segment(), 200_000, size - 101_000), 0, actual, 101_000, size - 101_000);
            assertArrayEquals(expected, actual);
            assertEquals(WcStatus.SUCCESS, Completions.awaitOne(pair.clientCq).status());
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("org.rdmablock.verbs.conformance.Fixtures#connectedTransports")
    void sendWithImmediateAndInlineData(final ProviderFixture fixture, final QueuePairType type) throws Exception {
        try (ConnectedPair pair = new ConnectedPair(fixture, type)) {
            final MemoryRegion source = pair.client.register(pattern(pair.client, 64, 4), AccessFlags.LOCAL_WRITE);
            final MemoryRegion sink = pair.server.register(256, AccessFlags.LOCAL_WRITE);
            postReceive(pair.serverQp, sink, 0, 128, 1);
            postReceive(pair.serverQp, sink, 128, 128, 2);
            final SendWorkRequest send = new SendWorkRequest().opcode(SendOpcode.SEND_WITH_IMM).immediateData(0xCAFE_F00D)
                .flags(SendFlags.SIGNALED | SendFlags.INLINE);
            send.sgl().add(source, 0, 64);
            pair.clientQp.postSend(send);
            source.segment().fill((byte) 0); // inline data was copied at post time
            pair.clientQp.postSend(new SendWorkRequest().opcode(SendOpcode.SEND).flags(SendFlags.SIGNALED)); // zero-length

            final List<Wc> received = Completions.await(pair.serverCq, 2, ConnectedPair.TIMEOUT);
            assertTrue(received.get(0).hasImmediate());
            assertEquals(0xCAFE_F00D, received.get(0).immediate());
            assertEquals(64, received.get(0).byteLength());
            assertArrayEquals(bytes(pattern(pair.client, 64, 4), 0, 64), bytes(sink.segment(), 0, 64));
            assertEquals(0, received.get(1).byteLength());
            assertTrue(!received.get(1).hasImmediate());
            assertEquals(2, Completions.await(pair.clientCq, 2, ConnectedPair.TIMEOUT).size());
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("org.rdmablock.verbs.conformance.Fixtures#connectedTransports")
    void rdmaWritePlacesDataWithoutReceiverAction(final ProviderFixture fixture, final QueuePairType type) throws Exception {
        try (ConnectedPair pair = new ConnectedPair(fixture, type)) {
            final int size = 1 << 20;
            final MemoryRegion source = pair.client.register(pattern(pair.client, size, 5), AccessFlags.LOCAL_WRITE);
            final MemoryRegion target = pair.server.register(size + 4096, ALL);
            final SendWorkRequest write = new SendWorkRequest().wrId(9).opcode(SendOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                .remote(target.address() + 4096, target.rkey());
            write.sgl().add(source, 0, size);
            pair.clientQp.postSend(write);
            final Wc done = Completions.awaitOne(pair.clientCq);
            assertEquals(WcStatus.SUCCESS, done.status());
            assertEquals(WcOpcode.RDMA_WRITE, done.opcode());
            if (type == QueuePairType.UC) {
                awaitContent(target.segment(), 4096, bytes(source.segment(), 0, size));
            }
            assertArrayEquals(bytes(source.segment(), 0, size), bytes(target.segment(), 4096, size));
            assertEquals(0, Completions.drain(pair.serverCq, java.time.Duration.ofMillis(50)).size(), "a WRITE consumes no receive");
        }
    }

    static void awaitContent(final MemorySegment memory, final long offset, final byte[] expected) {
        Await.atMost(expected.length + " bytes placed at " + offset, ConnectedPair.TIMEOUT)
            .until(() -> java.util.Arrays.equals(expected, bytes(memory, offset, expected.length)));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("org.rdmablock.verbs.conformance.Fixtures#connectedTransports")
    void rdmaWriteWithImmediateConsumesAReceive(final ProviderFixture fixture, final QueuePairType type) throws Exception {
        try (ConnectedPair pair = new ConnectedPair(fixture, type)) {
            final MemoryRegion source = pair.client.register(pattern(pair.client, 20_000, 6), AccessFlags.LOCAL_WRITE);
            final MemoryRegion target = pair.server.register(20_000, ALL);
            postReceive(pair.serverQp, target, 0, 0, 31);
            final SendWorkRequest write = new SendWorkRequest().opcode(SendOpcode.RDMA_WRITE_WITH_IMM).immediateData(0x1234_5678)
                .flags(SendFlags.SIGNALED).remote(target.address(), target.rkey());
            write.sgl().add(source, 0, 20_000);
            pair.clientQp.postSend(write);
            final Wc received = Completions.awaitOne(pair.serverCq);
            assertEquals(WcStatus.SUCCESS, received.status());
            assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, received.opcode());
            assertEquals(31, received.wrId());
            assertTrue(received.hasImmediate());
            assertEquals(0x1234_5678, received.immediate());
            assertEquals(20_000, received.byteLength());
            assertArrayEquals(bytes(source.segment(), 0, 20_000), bytes(target.segment(), 0, 20_000));
            assertEquals(WcStatus.SUCCESS, Completions.awaitOne(pair.clientCq).status());
        }
    }

    @ParameterizedTest(name = "{0} {1} bytes")
    @MethodSource("org.rdmablock.verbs.conformance.Fixtures#readSizes")
    void rdmaReadFetchesRemoteMemory(final ProviderFixture fixture, final int size) throws Exception {
        try (ConnectedPair pair = new ConnectedPair(fixture, QueuePairType.RC)) {
            final MemoryRegion remote = pair.server.register(pattern(pair.server, size + 64, 7), ALL);
            final MemoryRegion local = pair.client.register(size + 64, AccessFlags.LOCAL_WRITE);
            final SendWorkRequest read = new SendWorkRequest().wrId(3).opcode(SendOpcode.RDMA_READ).flags(SendFlags.SIGNALED)
                .remote(remote.address() + 64, remote.rkey());
            read.sgl().add(local, 32, size);
            pair.clientQp.postSend(read);
            final Wc done = Completions.awaitOne(pair.clientCq);
            assertEquals(WcStatus.SUCCESS, done.status());
            assertEquals(WcOpcode.RDMA_READ, done.opcode());
            assertEquals(size, done.byteLength());
            assertArrayEquals(bytes(remote.segment(), 64, size), bytes(local.segment(), 32, size));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.rdmablock.verbs.conformance.Fixtures#providers")
    void atomicsReturnTheOriginalValueAndUpdateRemoteMemory(final ProviderFixture fixture) throws Exception {
        try (ConnectedPair pair = new ConnectedPair(fixture, QueuePairType.RC)) {
            final MemoryRegion remote = pair.server.register(64, ALL);
            remote.segment().set(ValueLayout.JAVA_LONG, 8, 100L);
            final MemoryRegion result = pair.client.register(64, AccessFlags.LOCAL_WRITE);
            final SendWorkRequest faa = new SendWorkRequest().wrId(1).opcode(SendOpcode.ATOMIC_FETCH_AND_ADD)
                .flags(SendFlags.SIGNALED).remote(remote.address() + 8, remote.rkey()).atomic(23, 0);
            faa.sgl().add(result, 0, 8);
            final SendWorkRequest casHit = new SendWorkRequest().wrId(2).opcode(SendOpcode.ATOMIC_CMP_AND_SWP)
                .flags(SendFlags.SIGNALED).remote(remote.address() + 8, remote.rkey()).atomic(123, 500);
            casHit.sgl().add(result, 8, 8);
            final SendWorkRequest casMiss = new SendWorkRequest().wrId(3).opcode(SendOpcode.ATOMIC_CMP_AND_SWP)
                .flags(SendFlags.SIGNALED).remote(remote.address() + 8, remote.rkey()).atomic(123, 999);
            casMiss.sgl().add(result, 16, 8);
            pair.clientQp.postSend(faa.next(casHit.next(casMiss)));
            final List<Wc> done = Completions.await(pair.clientCq, 3, ConnectedPair.TIMEOUT);
            assertEquals(List.of(1L, 2L, 3L), done.stream().map(Wc::wrId).toList());
            assertEquals(WcOpcode.FETCH_ADD, done.get(0).opcode());
            assertEquals(WcOpcode.COMP_SWAP, done.get(1).opcode());
            assertEquals(100L, result.segment().get(ValueLayout.JAVA_LONG, 0));
            assertEquals(123L, result.segment().get(ValueLayout.JAVA_LONG, 8));
            assertEquals(500L, result.segment().get(ValueLayout.JAVA_LONG, 16));
            assertEquals(500L, remote.segment().get(ValueLayout.JAVA_LONG, 8));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.rdmablock.verbs.conformance.Fixtures#providers")
    void atomicsFromConcurrentRequestersAreAtomic(final ProviderFixture fixture) throws Exception {
        final int requesters = 4;
        final int adds = 500;
        try (ConnectedPair first = new ConnectedPair(fixture, QueuePairType.RC)) {
            final MemoryRegion counter = first.server.register(8, ALL);
            final List<ConnectedPair> pairs = new ArrayList<>();
            pairs.add(first);
            try {
                for (int i = 1; i < requesters; i++) {
                    pairs.add(new ConnectedPair(fixture, QueuePairType.RC));
                }
                // every requester adds to the first server's counter: the others' servers only carry the QPs
                final List<CompletableFuture<long[]>> runs = new ArrayList<>();
                for (final ConnectedPair pair : pairs) {
                    runs.add(CompletableFuture.supplyAsync(() -> hammer(pair, first == pair ? counter : null, counter, adds)));
                }
                final List<Long> seen = new ArrayList<>();
                for (final CompletableFuture<long[]> run : runs) {
                    for (final long value : run.get(30, TimeUnit.SECONDS)) {
                        seen.add(value);
                    }
                }
                assertEquals((long) requesters * adds, counter.segment().get(ValueLayout.JAVA_LONG, 0));
                assertEquals(requesters * adds, seen.stream().distinct().count(), "every fetch-and-add saw a distinct value");
            } finally {
                for (int i = 1; i < pairs.size(); i++) {
                    pairs.get(i).close();
                }
            }
        }
    }

    /** Runs {@code adds} fetch-and-adds of 1 against {@code counter}, through a QP whose server owns it or not. */
    private static long[] hammer(final ConnectedPair pair, final MemoryRegion own, final MemoryRegion counter, final int adds) {
        // A counter in another host's memory is reachable only through that host's QP; pairs other than the first
        // address the first server's counter through a window of their own server bound to the same memory.
        final MemoryRegion target = own != null ? own : pair.server.register(counter.segment(), ALL);
        final MemoryRegion result = pair.client.register(8L * adds, AccessFlags.LOCAL_WRITE);
        final SendWorkRequest faa = new SendWorkRequest().opcode(SendOpcode.ATOMIC_FETCH_AND_ADD).flags(SendFlags.SIGNALED);
        final long[] values = new long[adds];
        for (int i = 0; i < adds; i++) {
            faa.wrId(i).remote(target.address(), target.rkey()).atomic(1, 0);
            faa.sgl().clear().add(result, 8L * i, 8);
            pair.clientQp.postSend(faa);
            final Completions.Wc done = Completions.awaitOne(pair.clientCq);
            if (done.status() != WcStatus.SUCCESS) {
                throw new AssertionError("atomic failed: " + done);
            }
            values[i] = result.segment().get(ValueLayout.JAVA_LONG, 8L * i);
        }
        return values;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.rdmablock.verbs.conformance.Fixtures#providers")
    void unsignaledWorkCompletesSilentlyAndOrderIsKept(final ProviderFixture fixture) throws Exception {
        try (ConnectedPair pair = new ConnectedPair(fixture, QueuePairType.RC)) {
            final MemoryRegion source = pair.client.register(pattern(pair.client, 64 * 100, 8), AccessFlags.LOCAL_WRITE);
            final MemoryRegion target = pair.server.register(64 * 100, ALL);
            final SendWorkRequest write = new SendWorkRequest().opcode(SendOpcode.RDMA_WRITE);
            for (int i = 0; i < 100; i++) {
                write.wrId(i).flags(i == 99 ? SendFlags.SIGNALED : 0).remote(target.address() + 64L * i, target.rkey());
                write.sgl().clear().add(source, 64L * i, 64);
                pair.clientQp.postSend(write);
            }
            final Wc last = Completions.awaitOne(pair.clientCq);
            assertEquals(99, last.wrId());
            assertArrayEquals(bytes(source.segment(), 0, 6400), bytes(target.segment(), 0, 6400));
            assertEquals(0, Completions.drain(pair.clientCq, java.time.Duration.ofMillis(50)).size());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.rdmablock.verbs.conformance.Fixtures#providers")
    void privateDataTravelsWithConnectAndAccept(final ProviderFixture fixture) throws Exception {
        final byte[] request = new byte[56];
        final byte[] reply = new byte[52];
        new Random(9).nextBytes(request);
        new Random(10).nextBytes(reply);
        try (ConnectedPair pair = new ConnectedPair(fixture,
            ConnectedPair.Side.of(QueuePairType.RC).withParameters(ConnectionParameters.of(request)),
            ConnectedPair.Side.of(QueuePairType.RC).withParameters(ConnectionParameters.of(reply)))) {
            assertStartsWith(request, pair.serverId.privateData());
            assertStartsWith(reply, pair.acceptData);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.rdmablock.verbs.conformance.Fixtures#providers")
    void rdmaWriteGathersAndRdmaReadScattersSeveralElements(final ProviderFixture fixture) throws Exception {
        // sizes straddle the soft provider's 8 KiB copy limit and its 64 KiB FPDU payload
        final int[] pieces = {1000, 70_000, 5000, 16_384};
        final int total = java.util.Arrays.stream(pieces).sum();
        final QueuePairCapabilities caps = new QueuePairCapabilities(16, 16, 4, 4, 64);
        try (ConnectedPair pair = new ConnectedPair(fixture, ConnectedPair.Side.of(QueuePairType.RC).withCaps(caps),
            ConnectedPair.Side.of(QueuePairType.RC).withCaps(caps))) {
            final MemoryRegion a = pair.client.register(pattern(pair.client, 100_000, 21), AccessFlags.LOCAL_WRITE);
            final MemoryRegion b = pair.client.register(pattern(pair.client, 100_000, 22), AccessFlags.LOCAL_WRITE);
            final MemoryRegion remote = pair.server.register(total + 4096, ALL);
            // gather: pieces alternate between two regions, at odd offsets
            final SendWorkRequest write = new SendWorkRequest(4).opcode(SendOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                .remote(remote.address() + 100, remote.rkey());
            final byte[] expected = new byte[total];
            int at = 0;
            for (int i = 0; i < pieces.length; i++) {
                final MemoryRegion from = i % 2 == 0 ? a : b;
                final long offset = 7L + 3 * i;
                write.sgl().add(from, offset, pieces[i]);
                System.arraycopy(bytes(from.segment(), offset, pieces[i]), 0, expected, at, pieces[i]);
                at += pieces[i];
            }
            pair.clientQp.postSend(write);
            assertEquals(WcStatus.SUCCESS, Completions.awaitOne(pair.clientCq).status());
            assertArrayEquals(expected, bytes(remote.segment(), 100, total), "WRITE gathered in order");

            // scatter: READ the same bytes back into four separate places of a fresh region
            final MemoryRegion sink = pair.client.register(total + 4 * 512, AccessFlags.LOCAL_WRITE);
            final SendWorkRequest read = new SendWorkRequest(4).opcode(SendOpcode.RDMA_READ).flags(SendFlags.SIGNALED)
                .remote(remote.address() + 100, remote.rkey());
            long place = 0;
            for (final int piece : pieces) {
                read.sgl().add(sink, place, piece);
                place += piece + 512;
            }
            pair.clientQp.postSend(read);
            final Wc done = Completions.awaitOne(pair.clientCq);
            assertEquals(WcStatus.SUCCESS, done.status());
            assertEquals(WcOpcode.RDMA_READ, done.opcode());
            place = 0;
            at = 0;
            for (final int piece : pieces) {
                assertArrayEquals(java.util.Arrays.copyOfRange(expected, at, at + piece), bytes(sink.segment(), place, piece),
                    "READ piece at " + at);
                assertArrayEquals(new byte[512], bytes(sink.segment(), place + piece, 512), "nothing between the pieces");
                at += piece;
                place += piece + 512;
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.rdmablock.verbs.conformance.Fixtures#providers")
    void severalQueuePairsCompleteOnOneSharedCompletionQueue(final ProviderFixture fixture) throws Exception {
        final int clients = 6; // more than the soft provider's direct-progress threshold: its readiness path
        try (Host server = new Host(fixture)) {
            final CompletionQueue shared = server.cq(256);
            final MemoryRegion inbox = server.register(clients * 4096L, ALL);
            final List<Host> hosts = new ArrayList<>();
            final List<ConnectedPair> pairs = new ArrayList<>();
            try {
                for (int i = 0; i < clients; i++) {
                    final Host client = new Host(fixture);
                    hosts.add(client);
                    pairs.add(new ConnectedPair(fixture, client, server, ConnectedPair.Side.of(QueuePairType.RC),
                        ConnectedPair.Side.of(QueuePairType.RC), null, shared, false));
                }
                final java.util.Map<Integer, Integer> clientOfQp = new java.util.HashMap<>();
                for (int i = 0; i < clients; i++) {
                    final ConnectedPair pair = pairs.get(i);
                    clientOfQp.put(pair.serverQp.qpNum(), i);
                    postReceive(pair.serverQp, inbox, i * 4096L, 1024, 1000 + i);
                }
                // every client SENDs its number and WRITEs a pattern into its own part of the server's region
                final List<byte[]> written = new ArrayList<>();
                for (int i = 0; i < clients; i++) {
                    final ConnectedPair pair = pairs.get(i);
                    final MemoryRegion source = pair.client.register(pattern(pair.client, 2048, 30 + i), AccessFlags.LOCAL_WRITE);
                    source.segment().set(ValueLayout.JAVA_INT, 0, i);
                    written.add(bytes(source.segment(), 0, 2048));
                    final SendWorkRequest write = new SendWorkRequest().opcode(SendOpcode.RDMA_WRITE)
                        .remote(inbox.address() + i * 4096L + 2048, inbox.rkey());
                    write.sgl().add(source, 0, 2048);
                    final SendWorkRequest send = new SendWorkRequest().wrId(i).opcode(SendOpcode.SEND).flags(SendFlags.SIGNALED);
                    send.sgl().add(source, 0, 4);
                    pair.clientQp.postSend(write.next(send));
                }
                final List<Wc> received = Completions.await(shared, clients, ConnectedPair.TIMEOUT);
                final java.util.Set<Integer> seen = new java.util.HashSet<>();
                for (final Wc wc : received) {
                    assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
                    assertEquals(WcOpcode.RECV, wc.opcode());
                    final int client = clientOfQp.get(wc.qpNum());
                    assertEquals(1000 + client, wc.wrId(), "the completion names the QP that received it");
                    assertEquals(client, inbox.segment().get(ValueLayout.JAVA_INT, client * 4096L));
                    assertArrayEquals(written.get(client), bytes(inbox.segment(), client * 4096L + 2048, 2048),
                        "the WRITE before the SEND landed first");
                    seen.add(client);
                }
                assertEquals(clients, seen.size(), "one receive per QP");
                for (final ConnectedPair pair : pairs) {
                    assertEquals(WcStatus.SUCCESS, Completions.awaitOne(pair.clientCq).status());
                }
                // and the other way: sends from every server QP complete on the shared CQ
                for (int i = 0; i < clients; i++) {
                    final ConnectedPair pair = pairs.get(i);
                    final MemoryRegion sink = pair.client.register(64, AccessFlags.LOCAL_WRITE);
                    postReceive(pair.clientQp, sink, 0, 64, 0);
                    final SendWorkRequest reply = new SendWorkRequest().wrId(2000 + i).opcode(SendOpcode.SEND).flags(SendFlags.SIGNALED);
                    reply.sgl().add(inbox, i * 4096L, 16);
                    pair.serverQp.postSend(reply);
                }
                final List<Wc> sent = Completions.await(shared, clients, ConnectedPair.TIMEOUT);
                assertEquals(clients, sent.stream().filter(wc -> wc.status() == WcStatus.SUCCESS && wc.opcode() == WcOpcode.SEND)
                    .map(wc -> clientOfQp.get(wc.qpNum())).distinct().count());
            } finally {
                pairs.forEach(ConnectedPair::close);
                hosts.forEach(Host::close);
            }
        }
    }
}

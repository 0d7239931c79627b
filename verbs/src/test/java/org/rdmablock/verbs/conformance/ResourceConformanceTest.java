package org.rdmablock.verbs.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.rdmablock.verbs.conformance.DataTransferConformanceTest.ALL;
import static org.rdmablock.verbs.conformance.DataTransferConformanceTest.bytes;
import static org.rdmablock.verbs.conformance.DataTransferConformanceTest.pattern;
import static org.rdmablock.verbs.conformance.DataTransferConformanceTest.postReceive;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.rdmablock.verbs.AccessFlags;
import org.rdmablock.verbs.AddressHandle;
import org.rdmablock.verbs.AddressHandleAttributes;
import org.rdmablock.verbs.AsyncEvent;
import org.rdmablock.verbs.Await;
import org.rdmablock.verbs.CompletionChannel;
import org.rdmablock.verbs.CompletionQueue;
import org.rdmablock.verbs.DisconnectReason;
import org.rdmablock.verbs.Gid;
import org.rdmablock.verbs.MemoryRegion;
import org.rdmablock.verbs.MemoryWindow;
import org.rdmablock.verbs.PortAttributes;
import org.rdmablock.verbs.QueuePair;
import org.rdmablock.verbs.QueuePairAttributes;
import org.rdmablock.verbs.QueuePairCapabilities;
import org.rdmablock.verbs.QueuePairInitAttributes;
import org.rdmablock.verbs.QueuePairState;
import org.rdmablock.verbs.QueuePairType;
import org.rdmablock.verbs.SendFlags;
import org.rdmablock.verbs.SendOpcode;
import org.rdmablock.verbs.SendWorkRequest;
import org.rdmablock.verbs.SharedReceiveQueue;
import org.rdmablock.verbs.VerbsException;
import org.rdmablock.verbs.WcOpcode;
import org.rdmablock.verbs.WcStatus;
import org.rdmablock.verbs.WorkCompletions;
import org.rdmablock.verbs.conformance.Completions.Wc;

/** Memory keys, memory windows, shared receive queues, completion channels, async events and UD. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ResourceConformanceTest {
    /**
     * Where a thread in {@link CompletionChannel#awaitEvent} blocks: the soft provider in a monitor's timed wait, the
     * native one in {@code poll(2)} on the channel's and the wake-up's descriptors.
     */
    private static final Set<String> CHANNEL_WAITS = Set.of("poll");

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.rdmablock.verbs.conformance.Fixtures#providers")
    void registeringTheSameMemoryTwiceGivesDifferentKeysAndADeregisteredKeyStopsWorking(final ProviderFixture fixture) throws Exception {
        try (ConnectedPair pair = new ConnectedPair(fixture, QueuePairType.RC)) {
            final MemorySegment memory = pair.server.allocate(4096);
            final MemoryRegion first = pair.server.pd.registerMemory(memory, ALL);
            final MemoryRegion second = pair.server.register(memory, ALL);
            assertNotEquals(first.rkey(), second.rkey());
            assertNotEquals(first.lkey(), second.lkey());
            assertEquals(first.address(), second.address());
            final int stale = first.rkey();
            first.close();
            final MemoryRegion local = pair.client.register(pattern(pair.client, 64, 20), AccessFlags.LOCAL_WRITE);
            final SendWorkRequest write = new SendWorkRequest().opcode(SendOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                .remote(memory.address(), second.rkey());
            write.sgl().add(local, 0, 64);
            pair.clientQp.postSend(write);
            assertEquals(WcStatus.SUCCESS, Completions.awaitOne(pair.clientCq).status());
            write.remote(memory.address(), stale);
            pair.clientQp.postSend(write);
            assertEquals(WcStatus.REM_ACCESS_ERR, Completions.awaitOne(pair.clientCq).status());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.rdmablock.verbs.conformance.Fixtures#providers")
    void memoryWindowGrantsItsRangeUntilInvalidated(final ProviderFixture fixture) throws Exception {
        try (ConnectedPair pair = new ConnectedPair(fixture, QueuePairType.RC)) {
            final MemoryRegion region = pair.server.register(8192, ALL | AccessFlags.MW_BIND);
            final MemoryWindow window = pair.server.track(pair.server.pd.allocateMemoryWindow());
            final int boundKey = window.nextRkey();
            final SendWorkRequest bind = new SendWorkRequest().wrId(1).opcode(SendOpcode.BIND_MW).flags(SendFlags.SIGNALED)
                .bind(window, region, region.address() + 1024, 1024, AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ);
            pair.serverQp.postSend(bind);
            final Wc bound = Completions.awaitOne(pair.serverCq);
            assertEquals(WcStatus.SUCCESS, bound.status());
            assertEquals(WcOpcode.BIND_MW, bound.opcode());
            assertEquals(boundKey, window.rkey());

            final MemoryRegion local = pair.client.register(pattern(pair.client, 512, 21), AccessFlags.LOCAL_WRITE);
            final SendWorkRequest write = new SendWorkRequest().wrId(2).opcode(SendOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                .remote(region.address() + 1024 + 256, window.rkey());
            write.sgl().add(local, 0, 512);
            pair.clientQp.postSend(write);
            assertEquals(WcStatus.SUCCESS, Completions.awaitOne(pair.clientCq).status());
            assertArrayEquals(bytes(local.segment(), 0, 512), bytes(region.segment(), 1024 + 256, 512));

            pair.serverQp.postSend(new SendWorkRequest().wrId(3).opcode(SendOpcode.LOCAL_INV).invalidateRkey(window.rkey())
                .flags(SendFlags.SIGNALED));
            final Wc invalidated = Completions.awaitOne(pair.serverCq);
            assertEquals(WcStatus.SUCCESS, invalidated.status());
            assertEquals(WcOpcode.LOCAL_INV, invalidated.opcode());
            // an access through an invalidated window is refused by its rkey before rxe takes the window: no leak there
            pair.clientQp.postSend(write);
            assertEquals(WcStatus.REM_ACCESS_ERR, Completions.awaitOne(pair.clientCq).status());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.rdmablock.verbs.conformance.Fixtures#providers")
    @org.junit.jupiter.api.Timeout(value = 300, unit = java.util.concurrent.TimeUnit.SECONDS) // the stall is 50 s per object
    void declaredWindowErrorLeakStillStallsTheTeardown(final ProviderFixture fixture) throws Exception {
        // the window error paths above are skipped where this bug is declared; this proves, each run, that it is
        // there. The proof stalls the teardown about 50 s, so the harness runs it alone in a JVM of its own beside
        // the suite (the stall sleeps in the kernel) with -Drdmablock.conformance.proveWindowLeak=true.
        assumeTrue(fixture.has(ProviderFixture.RXE_WINDOW_ERROR_LEAK) && Boolean.getBoolean("rdmablock.conformance.proveWindowLeak"),
            "only where " + ProviderFixture.RXE_WINDOW_ERROR_LEAK + " is declared, in the harness's JVM for the proof");
        final ConnectedPair pair = new ConnectedPair(fixture, QueuePairType.RC);
        long teardown;
        try {
            // a WRITE through a window that grants READ only: the rights check fails inside the window (an access
            // through an invalidated window does not leak: rxe refuses the rkey before taking the reference)
            writeThroughAReadOnlyWindowIsRefused(pair, 4096);
        } finally {
            final long start = System.nanoTime();
            pair.close();
            teardown = System.nanoTime() - start;
        }
        assertTrue(teardown >= WINDOW_LEAK_STALL_NANOS, ProviderFixture.RXE_WINDOW_ERROR_LEAK + " no longer reproduces: the teardown "
            + "after a refused window access took " + teardown / 1_000_000 + " ms: remove it from the harness's known issues");
    }

    /** Teardown after a refused access through a window takes at least this long where the rxe leak is present. */
    private static final long WINDOW_LEAK_STALL_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(5);

    /** A WRITE through a window over a {@code regionSize}-byte region that grants REMOTE_READ only completes REM_ACCESS_ERR. */
    private static void writeThroughAReadOnlyWindowIsRefused(final ConnectedPair pair, final long regionSize) {
        final MemoryRegion region = pair.server.register(regionSize, ALL | AccessFlags.MW_BIND);
        final MemoryWindow window = boundWindow(pair, region, 1024, AccessFlags.REMOTE_READ);
        final MemoryRegion local = pair.client.register(64, AccessFlags.LOCAL_WRITE);
        final SendWorkRequest write = new SendWorkRequest().opcode(SendOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
            .remote(region.address(), window.rkey());
        write.sgl().add(local, 0, 64);
        pair.clientQp.postSend(write);
        assertEquals(WcStatus.REM_ACCESS_ERR, Completions.awaitOne(pair.clientCq).status(), "the window grants REMOTE_READ only");
    }

    /** A window over the first {@code length} bytes of {@code region}, bound through the server's QP. */
    private static MemoryWindow boundWindow(final ConnectedPair pair, final MemoryRegion region, final long length, final int rights) {
        final MemoryWindow window = pair.server.track(pair.server.pd.allocateMemoryWindow());
        pair.serverQp.postSend(new SendWorkRequest().opcode(SendOpcode.BIND_MW).flags(SendFlags.SIGNALED)
            .bind(window, region, region.address(), length, rights));
        assertEquals(WcStatus.SUCCESS, Completions.awaitOne(pair.serverCq).status());
        return window;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.rdmablock.verbs.conformance.Fixtures#providers")
    void memoryWindowRejectsAccessOutsideItsRangeAndRights(final ProviderFixture fixture) throws Exception {
        assumeFalse(fixture.has(ProviderFixture.RXE_WINDOW_ERROR_LEAK), ProviderFixture.RXE_WINDOW_ERROR_LEAK);
        try (ConnectedPair pair = new ConnectedPair(fixture, QueuePairType.RC)) {
            writeThroughAReadOnlyWindowIsRefused(pair, 8192);
        }
        try (ConnectedPair pair = new ConnectedPair(fixture, QueuePairType.RC)) {
            final MemoryRegion region = pair.server.register(8192, ALL | AccessFlags.MW_BIND);
            final MemoryWindow window = boundWindow(pair, region, 1024, AccessFlags.REMOTE_READ);
            final MemoryRegion local = pair.client.register(64, AccessFlags.LOCAL_WRITE);
            final SendWorkRequest read = new SendWorkRequest().opcode(SendOpcode.RDMA_READ).flags(SendFlags.SIGNALED)
                .remote(region.address() + 1000, window.rkey());
            read.sgl().add(local, 0, 64);
            pair.clientQp.postSend(read); // 1000..1064 leaves the 1024-byte window
            assertEquals(WcStatus.REM_ACCESS_ERR, Completions.awaitOne(pair.clientCq).status());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.rdmablock.verbs.conformance.Fixtures#providers")
    void sendWithInvalidateInvalidatesTheWindowAtTheReceiver(final ProviderFixture fixture) throws Exception {
        try (ConnectedPair pair = new ConnectedPair(fixture, QueuePairType.RC)) {
            final MemoryRegion region = pair.server.register(4096, ALL | AccessFlags.MW_BIND);
            final MemoryWindow window = boundWindow(pair, region, 4096, AccessFlags.REMOTE_WRITE);
            postReceive(pair.serverQp, region, 2048, 64, 50);
            pair.clientQp.postSend(new SendWorkRequest().opcode(SendOpcode.SEND_WITH_INV).invalidateRkey(window.rkey())
                .flags(SendFlags.SIGNALED));
            final Wc received = Completions.awaitOne(pair.serverCq);
            assertEquals(WcStatus.SUCCESS, received.status());
            if (fixture.has(ProviderFixture.RXE_KERNEL_WC_FLAGS)) {
                // the known bug, proven each run: the kernel's IB_WC_WITH_INVALIDATE (bit 2) arrives unconverted
                assertEquals(1 << 2, received.flags() & (1 << 2 | WorkCompletions.FLAG_WITH_INV), ProviderFixture.RXE_KERNEL_WC_FLAGS
                    + " no longer reproduces (flags " + received.flags() + "): remove it from the harness's known issues");
            } else {
                assertTrue((received.flags() & WorkCompletions.FLAG_WITH_INV) != 0, "flags " + received.flags());
            }
            assertEquals(window.rkey(), received.invalidatedRkey());
            assertEquals(WcStatus.SUCCESS, Completions.awaitOne(pair.clientCq).status());
            // an access through an invalidated window is refused by its rkey before rxe takes the window: no leak there
            final MemoryRegion local = pair.client.register(64, AccessFlags.LOCAL_WRITE);
            final SendWorkRequest write = new SendWorkRequest().opcode(SendOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                .remote(region.address(), window.rkey());
            write.sgl().add(local, 0, 64);
            pair.clientQp.postSend(write);
            assertEquals(WcStatus.REM_ACCESS_ERR, Completions.awaitOne(pair.clientCq).status());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.rdmablock.verbs.conformance.Fixtures#providers")
    void sharedReceiveQueueFeedsSeveralQueuePairsAndSignalsItsLimit(final ProviderFixture fixture) throws Exception {
        try (Host server = new Host(fixture); Host clientA = new Host(fixture); Host clientB = new Host(fixture)) {
            final SharedReceiveQueue srq = server.track(server.pd.createSharedReceiveQueue(16, 1));
            final MemoryRegion sink = server.register(16 * 64, AccessFlags.LOCAL_WRITE);
            final var side = ConnectedPair.Side.of(QueuePairType.RC);
            try (ConnectedPair a = new ConnectedPair(fixture, clientA, server, side, side, srq, false);
                 ConnectedPair b = new ConnectedPair(fixture, clientB, server, side, side, srq, false)) {
                for (int i = 0; i < 6; i++) {
                    final var recv = new org.rdmablock.verbs.ReceiveWorkRequest().wrId(i);
                    recv.sgl().add(sink, 64L * i, 64);
                    srq.postReceive(recv);
                }
                srq.armLimit(3);
                assertThrows(VerbsException.class, () -> a.serverQp.postReceive(new org.rdmablock.verbs.ReceiveWorkRequest()));
                for (final ConnectedPair pair : List.of(a, b, a, b)) {
                    pair.clientQp.postSend(new SendWorkRequest().opcode(SendOpcode.SEND).flags(SendFlags.SIGNALED));
                    assertEquals(WcStatus.SUCCESS, Completions.awaitOne(pair.clientCq).status());
                }
                final List<Wc> onA = Completions.await(a.serverCq, 2, ConnectedPair.TIMEOUT);
                final List<Wc> onB = Completions.await(b.serverCq, 2, ConnectedPair.TIMEOUT);
                assertEquals(List.of(0L, 1L, 2L, 3L), java.util.stream.Stream.concat(onA.stream(), onB.stream()).map(Wc::wrId).sorted().toList());
                assertTrue(onA.stream().allMatch(wc -> wc.qpNum() == a.serverQp.qpNum()));
                final AsyncEvent limit = server.awaitEvent(AsyncEvent.Type.SRQ_LIMIT_REACHED, ConnectedPair.TIMEOUT);
                assertSame(srq, limit.srq());
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.rdmablock.verbs.conformance.Fixtures#providers")
    void completionChannelWakesAWaiterOncePerArming(final ProviderFixture fixture) throws Exception {
        try (ConnectedPair pair = new ConnectedPair(fixture, QueuePairType.RC)) {
            final CompletionChannel channel = pair.server.track(pair.server.context.createCompletionChannel());
            final CompletionQueue cq = pair.server.track(pair.server.context.createCompletionQueue(16, channel));
            final QueuePair qp = pair.server.track(pair.server.pd.createQueuePair(QueuePairInitAttributes.of(QueuePairType.UD, cq)));
            qp.modify(new QueuePairAttributes().state(QueuePairState.INIT).qkey(3).portNum(1).pkeyIndex(0));
            final MemoryRegion mr = pair.server.register(4096, AccessFlags.LOCAL_WRITE);
            postReceive(qp, mr, 0, 64, 1);
            postReceive(qp, mr, 64, 64, 2);
            assertNull(channel.awaitEvent(Duration.ofMillis(50)), "an unarmed CQ raises no event");
            cq.requestNotify(false);
            qp.modify(QueuePairState.ERR); // two flush completions, one event
            assertSame(cq, channel.awaitEvent(ConnectedPair.TIMEOUT));
            assertEquals(2, Completions.await(cq, 2, ConnectedPair.TIMEOUT).size());
            assertNull(channel.awaitEvent(Duration.ofMillis(50)), "one event per arming");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.rdmablock.verbs.conformance.Fixtures#providers")
    void wakeupReleasesAThreadBlockedOnTheChannelOncePerCall(final ProviderFixture fixture) throws Exception {
        try (Host host = new Host(fixture)) {
            final CompletionChannel channel = host.context.createCompletionChannel();
            channel.wakeup(); // pending: the next wait returns at once
            assertNull(channel.awaitEvent(Duration.ofSeconds(30)));
            final CompletableFuture<Long> woken = new CompletableFuture<>();
            final Thread waiter = Thread.ofPlatform().start(() -> {
                try {
                    final CompletionQueue cq = channel.awaitEvent(Duration.ofSeconds(30));
                    woken.complete(cq == null ? System.nanoTime() : -1L);
                } catch (final Throwable e) {
                    woken.completeExceptionally(e);
                }
            });
            Await.atMost("the waiter blocks in awaitEvent", ConnectedPair.TIMEOUT)
                .until(() -> woken.isDone() || Await.blockedIn(waiter, "awaitEvent", CHANNEL_WAITS));
            assertTrue(!woken.isDone() && waiter.isAlive(), "the waiter waits until woken");
            final long wokeAt = System.nanoTime();
            channel.wakeup();
            final long returnedAt = woken.get(10, TimeUnit.SECONDS);
            assertTrue(returnedAt > 0, "the waiter returned null");
            assertTrue(returnedAt - wokeAt < TimeUnit.SECONDS.toNanos(2), "woke after " + (returnedAt - wokeAt) / 1_000_000 + " ms");
            // each wakeup counts once, then waits time out again
            channel.wakeup();
            channel.wakeup();
            final long start = System.nanoTime();
            assertNull(channel.awaitEvent(Duration.ofSeconds(30)));
            assertNull(channel.awaitEvent(Duration.ofSeconds(30)));
            assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(5), "two pending wakeups return at once");
            final long third = System.nanoTime();
            assertNull(channel.awaitEvent(Duration.ofMillis(200)));
            assertTrue(System.nanoTime() - third >= TimeUnit.MILLISECONDS.toNanos(150), "no third wakeup was pending");
            // closing releases a waiter; a closed channel refuses to wait
            final CompletableFuture<CompletionQueue> last = new CompletableFuture<>();
            final Thread lastWaiter = Thread.ofPlatform().start(() -> {
                try {
                    last.complete(channel.awaitEvent(Duration.ofSeconds(30)));
                } catch (final Throwable e) {
                    last.completeExceptionally(e);
                }
            });
            Await.atMost("the last waiter blocks in awaitEvent", ConnectedPair.TIMEOUT)
                .until(() -> last.isDone() || Await.blockedIn(lastWaiter, "awaitEvent", CHANNEL_WAITS));
            assertFalse(last.isDone(), "the last waiter waits until the channel closes");
            channel.close();
            assertNull(last.get(10, TimeUnit.SECONDS));
            assertEquals(VerbsException.EINVAL, assertThrows(VerbsException.class, () -> channel.awaitEvent(Duration.ofMillis(10))).errno());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.rdmablock.verbs.conformance.Fixtures#providers")
    void portEventsReachTheAsyncHandler(final ProviderFixture fixture) throws Exception {
        assumeTrue(fixture.portEvents() != null, "this fixture cannot change port state");
        try (Host host = new Host(fixture)) {
            assertEquals(PortAttributes.State.ACTIVE, host.context.queryPort(1).state());
            fixture.portEvents().set(host.provider, PortAttributes.State.DOWN);
            assertEquals(1, host.awaitEvent(AsyncEvent.Type.PORT_ERR, ConnectedPair.TIMEOUT).port());
            assertEquals(PortAttributes.State.DOWN, host.context.queryPort(1).state());
            fixture.portEvents().set(host.provider, PortAttributes.State.ACTIVE);
            host.awaitEvent(AsyncEvent.Type.PORT_ACTIVE, ConnectedPair.TIMEOUT);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.rdmablock.verbs.conformance.Fixtures#providers")
    void deviceAndPortQueriesReportUsableLimits(final ProviderFixture fixture) throws Exception {
        try (Host host = new Host(fixture)) {
            final org.rdmablock.verbs.DeviceAttributes device = host.context.queryDevice();
            assertTrue(device.maxQp() >= 16 && device.maxQpWr() >= 128 && device.maxSge() >= 1, device.toString());
            assertTrue(device.maxCqe() >= 1024 && device.maxMr() >= 16 && device.maxPd() >= 1, device.toString());
            assertTrue(device.maxQpRdAtom() >= 1 && device.maxQpInitRdAtom() >= 1, device.toString());
            assertTrue(device.maxSgeRd() >= 1 && device.maxSgeRd() <= device.maxSge(), device.toString());
            assertTrue(device.physicalPortCount() >= 1, device.toString());
            final PortAttributes port = host.context.queryPort(1);
            assertEquals(PortAttributes.State.ACTIVE, port.state());
            assertTrue(port.activeMtu() >= 256 && port.activeMtu() <= port.maxMtu(), port.toString());
            assertTrue(port.gidTableLen() > fixture.udGidIndex(), port.toString());
            assertEquals(16, host.context.queryGid(1, fixture.udGidIndex()).toBytes().length);
            assertThrows(VerbsException.class, () -> host.context.queryPort(99));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.rdmablock.verbs.conformance.Fixtures#providers")
    void aReadScattersIntoAsManyElementsAsMaxSgeRdAllows(final ProviderFixture fixture) throws Exception {
        final int elements;
        try (Host probe = new Host(fixture)) {
            elements = Math.min(16, probe.context.queryDevice().maxSgeRd());
        }
        final QueuePairCapabilities caps = new QueuePairCapabilities(16, 16, elements, 1, 0);
        try (ConnectedPair pair = new ConnectedPair(fixture, ConnectedPair.Side.of(QueuePairType.RC).withCaps(caps),
            ConnectedPair.Side.of(QueuePairType.RC))) {
            final int piece = 64;
            final MemoryRegion remote = pair.server.register(pattern(pair.server, piece * elements, 41), ALL);
            final MemoryRegion local = pair.client.register(2L * piece * elements, AccessFlags.LOCAL_WRITE);
            final SendWorkRequest read = new SendWorkRequest(elements).opcode(SendOpcode.RDMA_READ).flags(SendFlags.SIGNALED)
                .remote(remote.address(), remote.rkey());
            for (int i = 0; i < elements; i++) {
                read.sgl().add(local, 2L * piece * i, piece); // every other 64-byte slot: a real scatter
            }
            pair.clientQp.postSend(read);
            assertEquals(WcStatus.SUCCESS, Completions.awaitOne(pair.clientCq).status());
            for (int i = 0; i < elements; i++) {
                assertArrayEquals(bytes(remote.segment(), (long) piece * i, piece), bytes(local.segment(), 2L * piece * i, piece), "element " + i);
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.rdmablock.verbs.conformance.Fixtures#providers")
    void deviceThatGoesAwayRaisesDeviceFatalAndEndsItsConnectionsAsRemoved(final ProviderFixture fixture) throws Exception {
        assumeTrue(fixture.name().equals("soft"), "only a soft device can be removed by the test");
        final ConnectedPair pair = new ConnectedPair(fixture, QueuePairType.RC);
        try {
            final CompletableFuture<DisconnectReason> seenByHandler = new CompletableFuture<>();
            pair.serverId.onDisconnect(id -> seenByHandler.complete(id.disconnectReason()));
            pair.server.provider.close(); // the soft device goes away with its provider
            // events are delivered on the device's event thread, so the event may follow close() by a moment;
            // awaitEvent fails the test when none comes
            pair.server.awaitEvent(AsyncEvent.Type.DEVICE_FATAL, Duration.ofSeconds(10));
            assertEquals(DisconnectReason.DEVICE_REMOVED, seenByHandler.get(10, TimeUnit.SECONDS));
            assertEquals(DisconnectReason.DEVICE_REMOVED, pair.serverId.disconnectReason());
            // the peer sees its connection reset (the device vanished without a goodbye), not a device of its own go away
            assertTrue(pair.clientId.awaitDisconnect(ConnectedPair.TIMEOUT));
            assertEquals(DisconnectReason.CONNECTION_LOST, pair.clientId.disconnectReason());
        } finally {
            pair.clientId.close();
            pair.client.close();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.rdmablock.verbs.conformance.Fixtures#providers")
    void unreliableDatagramsCarryAGrhAndTheSourceQp(final ProviderFixture fixture) throws Exception {
        try (Host a = new Host(fixture); Host b = new Host(fixture)) {
            final CompletionQueue cqA = a.cq(16);
            final CompletionQueue cqB = b.cq(16);
            final QueuePair qpA = a.track(a.pd.createQueuePair(QueuePairInitAttributes.of(QueuePairType.UD, cqA)));
            final QueuePair qpB = b.track(b.pd.createQueuePair(QueuePairInitAttributes.of(QueuePairType.UD, cqB)));
            for (final QueuePair qp : List.of(qpA, qpB)) {
                qp.modify(new QueuePairAttributes().state(QueuePairState.INIT).qkey(0x11111111).portNum(1).pkeyIndex(0));
                qp.modify(QueuePairState.RTR);
                qp.modify(new QueuePairAttributes().state(QueuePairState.RTS).sqPsn(0));
            }
            final MemoryRegion sink = b.register(4096, AccessFlags.LOCAL_WRITE);
            postReceive(qpB, sink, 0, 40 + 1000, 9);
            final Gid gidB = b.context.queryGid(1, fixture.udGidIndex());
            final AddressHandle ah = a.track(a.pd.createAddressHandle(AddressHandleAttributes.global(gidB, fixture.udGidIndex())));
            final MemoryRegion source = a.register(pattern(a, 1000, 22), AccessFlags.LOCAL_WRITE);
            final SendWorkRequest send = new SendWorkRequest().opcode(SendOpcode.SEND_WITH_IMM).immediateData(77)
                .flags(SendFlags.SIGNALED).datagram(ah, qpB.qpNum(), 0x11111111);
            send.sgl().add(source, 0, 1000);
            qpA.postSend(send);
            assertEquals(WcStatus.SUCCESS, Completions.awaitOne(cqA).status());
            final Wc received = Completions.awaitOne(cqB);
            assertEquals(WcStatus.SUCCESS, received.status());
            assertEquals(40 + 1000, received.byteLength());
            assertEquals(qpA.qpNum(), received.sourceQp());
            assertTrue((received.flags() & WorkCompletions.FLAG_GRH) != 0);
            assertEquals(77, received.immediate());
            assertArrayEquals(bytes(source.segment(), 0, 1000), bytes(sink.segment(), 40, 1000));
            // the GRH area ends with the destination address: the last 4 bytes of the destination GID (IPv4-mapped),
            // whether it holds a GRH or, for RoCE v2 over IPv4, an IPv4 header in its last 20 bytes
            assertArrayEquals(java.util.Arrays.copyOfRange(gidB.toBytes(), 12, 16), bytes(sink.segment(), 36, 4),
                "the GRH area's destination address");

            send.datagram(ah, qpB.qpNum(), 0x22222222); // wrong Q_Key: dropped
            postReceive(qpB, sink, 2048, 1040, 10);
            qpA.postSend(send);
            assertEquals(WcStatus.SUCCESS, Completions.awaitOne(cqA).status());
            assertEquals(0, Completions.drain(cqB, Duration.ofMillis(100)).size());
        }
    }
}

package org.rdmablock.verbs.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.rdmablock.verbs.conformance.DataTransferConformanceTest.ALL;
import static org.rdmablock.verbs.conformance.DataTransferConformanceTest.bytes;
import static org.rdmablock.verbs.conformance.DataTransferConformanceTest.pattern;
import static org.rdmablock.verbs.conformance.DataTransferConformanceTest.postReceive;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.rdmablock.verbs.AccessFlags;
import org.rdmablock.verbs.AsyncEvent;
import org.rdmablock.verbs.Await;
import org.rdmablock.verbs.ConnectionParameters;
import org.rdmablock.verbs.MemoryRegion;
import org.rdmablock.verbs.QueuePairAttributes;
import org.rdmablock.verbs.QueuePairState;
import org.rdmablock.verbs.QueuePairType;
import org.rdmablock.verbs.ReceiveWorkRequest;
import org.rdmablock.verbs.SendFlags;
import org.rdmablock.verbs.SendOpcode;
import org.rdmablock.verbs.SendWorkRequest;
import org.rdmablock.verbs.VerbsException;
import org.rdmablock.verbs.WcStatus;
import org.rdmablock.verbs.conformance.Completions.Wc;

/** The errors a NIC reports, as completion statuses, and what follows them: QP in ERR, flushes, async events. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ErrorConformanceTest {
    /** How a remote access goes wrong. */
    enum Violation {
        BAD_RKEY, OUT_OF_BOUNDS, MISSING_RIGHT
    }

    static Stream<Arguments> violations() {
        return Fixtures.providers().flatMap(f -> Stream.of(Violation.values()).flatMap(v ->
            Stream.of(SendOpcode.RDMA_WRITE, SendOpcode.RDMA_READ, SendOpcode.ATOMIC_FETCH_AND_ADD).map(op -> Arguments.of(f, v, op))));
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("violations")
    void remoteAccessViolationCompletesWithRemoteAccessErrorAndTouchesNothing(final ProviderFixture fixture,
            final Violation violation, final SendOpcode opcode) throws Exception {
        try (ConnectedPair pair = new ConnectedPair(fixture, QueuePairType.RC)) {
            final int right = switch (opcode) {
                case RDMA_WRITE -> AccessFlags.REMOTE_WRITE;
                case RDMA_READ -> AccessFlags.REMOTE_READ;
                default -> AccessFlags.REMOTE_ATOMIC;
            };
            final int access = violation == Violation.MISSING_RIGHT ? ALL & ~right : ALL;
            final MemoryRegion remote = pair.server.register(pattern(pair.server, 4096, 11), access);
            final byte[] before = bytes(remote.segment(), 0, 4096);
            final MemoryRegion local = pair.client.register(pattern(pair.client, 4096, 12), AccessFlags.LOCAL_WRITE);
            final int size = opcode.isAtomic() ? 8 : 1024;
            final long address = violation == Violation.OUT_OF_BOUNDS ? remote.address() + 4096 - size + 8 : remote.address();
            final int rkey = violation == Violation.BAD_RKEY ? remote.rkey() ^ 0x55 : remote.rkey();
            final SendWorkRequest wr = new SendWorkRequest().wrId(42).opcode(opcode).flags(SendFlags.SIGNALED)
                .remote(address, rkey).atomic(1, 0);
            wr.sgl().add(local, 0, size);
            pair.clientQp.postSend(wr);

            final Wc done = Completions.awaitOne(pair.clientCq);
            assertEquals(42, done.wrId());
            assertEquals(WcStatus.REM_ACCESS_ERR, done.status());
            awaitState(pair.clientQp, QueuePairState.ERR);
            assertArrayEquals(before, bytes(remote.segment(), 0, 4096), "remote memory must be untouched");
            awaitState(pair.serverQp, QueuePairState.ERR); // the responder's QP fails too (soft also raises QP_ACCESS_ERR)

            pair.clientQp.postSend(new SendWorkRequest().wrId(43).opcode(SendOpcode.SEND).flags(SendFlags.SIGNALED));
            final Wc flushed = Completions.awaitOne(pair.clientCq);
            assertEquals(43, flushed.wrId());
            assertEquals(WcStatus.WR_FLUSH_ERR, flushed.status());
        }
    }

    /** LOC_PROT_ERR (the IB meaning); rxe reports a bad lkey in a gather or scatter list as LOC_QP_OP_ERR. */
    static void assertLocalProtectionError(final WcStatus status) {
        assertTrue(status == WcStatus.LOC_PROT_ERR || status == WcStatus.LOC_QP_OP_ERR, "a local protection error, not " + status);
    }

    static void awaitState(final org.rdmablock.verbs.QueuePair qp, final QueuePairState state) {
        Await.atMost("the QP in " + state, ConnectedPair.TIMEOUT).until(() -> qp.state() == state);
        assertEquals(state, qp.state());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.rdmablock.verbs.conformance.Fixtures#providers")
    void workBeforeAFailedRequestCompletesAndWorkAfterItFlushes(final ProviderFixture fixture) throws Exception {
        try (ConnectedPair pair = new ConnectedPair(fixture, QueuePairType.RC)) {
            final MemoryRegion remote = pair.server.register(4096, ALL);
            final MemoryRegion local = pair.client.register(pattern(pair.client, 4096, 13), AccessFlags.LOCAL_WRITE);
            final SendWorkRequest good = new SendWorkRequest().wrId(1).opcode(SendOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                .remote(remote.address(), remote.rkey());
            good.sgl().add(local, 0, 100);
            final SendWorkRequest bad = new SendWorkRequest().wrId(2).opcode(SendOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                .remote(remote.address(), remote.rkey() + 256);
            bad.sgl().add(local, 0, 100);
            final SendWorkRequest after = new SendWorkRequest().wrId(3).opcode(SendOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                .remote(remote.address() + 200, remote.rkey());
            after.sgl().add(local, 200, 100);
            pair.clientQp.postSend(good.next(bad.next(after)));
            final List<Wc> done = Completions.await(pair.clientCq, 3, ConnectedPair.TIMEOUT);
            assertEquals(List.of(1L, 2L, 3L), done.stream().map(Wc::wrId).toList());
            assertEquals(WcStatus.SUCCESS, done.get(0).status());
            assertEquals(WcStatus.REM_ACCESS_ERR, done.get(1).status());
            assertEquals(WcStatus.WR_FLUSH_ERR, done.get(2).status());
            assertArrayEquals(bytes(local.segment(), 0, 100), bytes(remote.segment(), 0, 100));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.rdmablock.verbs.conformance.Fixtures#providers")
    void badLkeyIsALocalProtectionError(final ProviderFixture fixture) throws Exception {
        try (ConnectedPair pair = new ConnectedPair(fixture, QueuePairType.RC)) {
            final MemoryRegion local = pair.client.register(4096, AccessFlags.LOCAL_WRITE);
            final SendWorkRequest send = new SendWorkRequest().wrId(7).opcode(SendOpcode.SEND).flags(SendFlags.SIGNALED);
            send.sgl().add(local.address(), 64, local.lkey() ^ 0x33);
            pair.clientQp.postSend(send);
            final Wc done = Completions.awaitOne(pair.clientCq);
            assertLocalProtectionError(done.status());
            awaitState(pair.clientQp, QueuePairState.ERR);

            // a READ into memory without LOCAL_WRITE is a local protection error too
            try (ConnectedPair second = new ConnectedPair(fixture, QueuePairType.RC)) {
                final MemoryRegion remote = second.server.register(4096, ALL);
                final MemoryRegion readOnly = second.client.register(4096, 0);
                final SendWorkRequest read = new SendWorkRequest().wrId(8).opcode(SendOpcode.RDMA_READ).flags(SendFlags.SIGNALED)
                    .remote(remote.address(), remote.rkey());
                read.sgl().add(readOnly, 0, 64);
                second.clientQp.postSend(read);
                assertLocalProtectionError(Completions.awaitOne(second.clientCq).status());
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.rdmablock.verbs.conformance.Fixtures#providers")
    void sendWithoutPostedReceiveExhaustsRnrRetries(final ProviderFixture fixture) throws Exception {
        final ConnectionParameters fewRetries = ConnectionParameters.of(new byte[0]).withRnrRetryCount(1);
        try (ConnectedPair pair = new ConnectedPair(fixture,
            ConnectedPair.Side.of(QueuePairType.RC).withParameters(fewRetries),
            ConnectedPair.Side.of(QueuePairType.RC).withParameters(fewRetries))) {
            shortRnrTimer(pair.serverQp);
            pair.clientQp.postSend(new SendWorkRequest().wrId(5).opcode(SendOpcode.SEND).flags(SendFlags.SIGNALED));
            final Wc done = Completions.awaitOne(pair.clientCq);
            assertEquals(5, done.wrId());
            assertEquals(WcStatus.RNR_RETRY_EXC_ERR, done.status());
        }
    }

    /**
     * Shortens a connected responder's RNR NAK timer to 0.01 ms (RTS -> RTS, the transition where IB lets
     * min_rnr_timer change): rdma_cm leaves it at 0, which means 655 ms per RNR NAK.
     */
    static void shortRnrTimer(final org.rdmablock.verbs.QueuePair qp) {
        qp.modify(new QueuePairAttributes().state(QueuePairState.RTS).minRnrTimer(1));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.rdmablock.verbs.conformance.Fixtures#providers")
    void sendThatWaitsForAReceiveGoesOnWhenOneIsPosted(final ProviderFixture fixture) throws Exception {
        try (ConnectedPair pair = new ConnectedPair(fixture, QueuePairType.RC)) {
            final MemoryRegion sink = pair.server.register(64, AccessFlags.LOCAL_WRITE);
            final MemoryRegion source = pair.client.register(pattern(pair.client, 64, 14), AccessFlags.LOCAL_WRITE);
            final SendWorkRequest send = new SendWorkRequest().wrId(5).opcode(SendOpcode.SEND).flags(SendFlags.SIGNALED);
            send.sgl().add(source, 0, 64);
            pair.clientQp.postSend(send);
            assertEquals(0, Completions.drain(pair.clientCq, Duration.ofMillis(100)).size(), "RNR retry forever: the send waits");
            postReceive(pair.serverQp, sink, 0, 64, 9);
            assertEquals(WcStatus.SUCCESS, Completions.awaitOne(pair.serverCq).status());
            assertEquals(WcStatus.SUCCESS, Completions.awaitOne(pair.clientCq).status());
            assertArrayEquals(bytes(source.segment(), 0, 64), bytes(sink.segment(), 0, 64));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.rdmablock.verbs.conformance.Fixtures#providers")
    void sendsThatKeepFindingNoReceiveAllArriveInOrder(final ProviderFixture fixture) throws Exception {
        final int messages = 300;
        try (ConnectedPair pair = new ConnectedPair(fixture, QueuePairType.RC)) {
            shortRnrTimer(pair.serverQp);
            final MemoryRegion sink = pair.server.register(8, AccessFlags.LOCAL_WRITE);
            final MemoryRegion source = pair.client.register(8L * messages, AccessFlags.LOCAL_WRITE);
            final java.util.concurrent.CompletableFuture<Void> sender = java.util.concurrent.CompletableFuture.runAsync(() -> {
                final SendWorkRequest send = new SendWorkRequest().opcode(SendOpcode.SEND);
                final var wc = new org.rdmablock.verbs.WorkCompletions(16);
                for (int i = 0; i < messages; i++) {
                    source.segment().set(java.lang.foreign.ValueLayout.JAVA_INT, 8L * i, i);
                    send.wrId(i).flags(i % 16 == 15 ? SendFlags.SIGNALED : 0).sgl().clear().add(source, 8L * i, 4);
                    while (true) {
                        try {
                            pair.clientQp.postSend(send);
                            break;
                        } catch (final VerbsException full) {
                            pair.clientCq.poll(wc); // send queue full: reap and retry
                        }
                    }
                    pair.clientCq.poll(wc);
                }
            });
            // one receive at a time, posted only after the previous message landed: most SENDs find none posted
            for (int i = 0; i < messages; i++) {
                postReceive(pair.serverQp, sink, 0, 8, i);
                final Wc received = Completions.awaitOne(pair.serverCq);
                assertEquals(WcStatus.SUCCESS, received.status());
                assertEquals(i, sink.segment().get(java.lang.foreign.ValueLayout.JAVA_INT, 0), "message " + i + " in order");
            }
            sender.get(30, TimeUnit.SECONDS);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.rdmablock.verbs.conformance.Fixtures#providers")
    void receiveBufferTooSmallIsLocalLengthErrorThereAndRemoteInvalidRequestHere(final ProviderFixture fixture) throws Exception {
        try (ConnectedPair pair = new ConnectedPair(fixture, QueuePairType.RC)) {
            final MemoryRegion sink = pair.server.register(64, AccessFlags.LOCAL_WRITE);
            final MemoryRegion source = pair.client.register(1024, AccessFlags.LOCAL_WRITE);
            postReceive(pair.serverQp, sink, 0, 16, 1);
            final SendWorkRequest send = new SendWorkRequest().wrId(2).opcode(SendOpcode.SEND).flags(SendFlags.SIGNALED);
            send.sgl().add(source, 0, 1024);
            pair.clientQp.postSend(send);
            // IB: LOC_LEN_ERR at the responder, REM_INV_REQ_ERR at the requester; rxe reports LOC_QP_OP_ERR and REM_OP_ERR
            final WcStatus responder = Completions.awaitOne(pair.serverCq).status();
            assertTrue(responder == WcStatus.LOC_LEN_ERR || responder == WcStatus.LOC_QP_OP_ERR, responder.toString());
            final WcStatus requester = Completions.awaitOne(pair.clientCq).status();
            assertTrue(requester == WcStatus.REM_INV_REQ_ERR || requester == WcStatus.REM_OP_ERR, requester.toString());
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("org.rdmablock.verbs.conformance.Fixtures#connectedTransports")
    void movingToErrFlushesEveryOutstandingRequest(final ProviderFixture fixture, final QueuePairType type) throws Exception {
        try (ConnectedPair pair = new ConnectedPair(fixture, type)) {
            final MemoryRegion sink = pair.server.register(4096, AccessFlags.LOCAL_WRITE);
            for (int i = 0; i < 3; i++) {
                postReceive(pair.serverQp, sink, 64L * i, 64, 100 + i);
            }
            pair.serverQp.modify(QueuePairState.ERR);
            assertEquals(QueuePairState.ERR, pair.serverQp.state());
            final List<Wc> flushed = Completions.await(pair.serverCq, 3, ConnectedPair.TIMEOUT);
            assertEquals(List.of(100L, 101L, 102L), flushed.stream().map(Wc::wrId).toList());
            assertTrue(flushed.stream().allMatch(wc -> wc.status() == WcStatus.WR_FLUSH_ERR));

            postReceive(pair.serverQp, sink, 0, 64, 200);
            pair.serverQp.postSend(new SendWorkRequest().wrId(201).opcode(SendOpcode.SEND)); // unsignaled still completes
            if (fixture.has(ProviderFixture.RXE_NO_FLUSH_AFTER_ERR)) {
                // the known bug, proven each run: the send flushes, the receive never does; a kernel that flushes it
                // fails here, and the issue comes off the harness's list
                final List<Wc> late = Completions.await(pair.serverCq, 1, ConnectedPair.TIMEOUT);
                late.addAll(Completions.drain(pair.serverCq, java.time.Duration.ofMillis(500)));
                assertEquals(List.of(201L), late.stream().map(Wc::wrId).toList(), ProviderFixture.RXE_NO_FLUSH_AFTER_ERR
                    + " no longer reproduces (the late receive was flushed): remove it from the harness's known issues");
                assertEquals(WcStatus.WR_FLUSH_ERR, late.getFirst().status());
                return;
            }
            final List<Wc> late = Completions.await(pair.serverCq, 2, ConnectedPair.TIMEOUT);
            assertEquals(List.of(200L, 201L), late.stream().map(Wc::wrId).sorted().toList());
            assertTrue(late.stream().allMatch(wc -> wc.status() == WcStatus.WR_FLUSH_ERR));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.rdmablock.verbs.conformance.Fixtures#providers")
    void postingInAStateThatForbidsItFailsAndTransitionsFollowTheStateMachine(final ProviderFixture fixture) throws Exception {
        try (Host host = new Host(fixture)) {
            final var cq = host.cq(16);
            final var qp = host.track(host.pd.createQueuePair(org.rdmablock.verbs.QueuePairInitAttributes.of(QueuePairType.UD, cq)));
            final MemoryRegion mr = host.register(4096, AccessFlags.LOCAL_WRITE);
            final ReceiveWorkRequest recv = new ReceiveWorkRequest().wrId(1);
            recv.sgl().add(mr, 0, 4096);
            final SendWorkRequest send = new SendWorkRequest().opcode(SendOpcode.SEND);
            assertEquals(QueuePairState.RESET, qp.state());
            assertEquals(VerbsException.EINVAL, assertThrows(VerbsException.class, () -> qp.postReceive(recv)).errno());
            assertThrows(VerbsException.class, () -> qp.postSend(send));
            assertThrows(VerbsException.class, () -> qp.modify(QueuePairState.RTS));
            assertThrows(VerbsException.class, () -> qp.modify(new QueuePairAttributes().state(QueuePairState.INIT)),
                "RESET -> INIT of a UD QP needs a Q_Key");
            qp.modify(new QueuePairAttributes().state(QueuePairState.INIT).qkey(0x1111).portNum(1).pkeyIndex(0));
            qp.postReceive(recv);
            assertThrows(VerbsException.class, () -> qp.postSend(send));
            qp.modify(QueuePairState.RTR);
            assertThrows(VerbsException.class, () -> qp.postSend(send));
            assertThrows(VerbsException.class, () -> qp.modify(QueuePairState.INIT));
            qp.modify(new QueuePairAttributes().state(QueuePairState.RTS).sqPsn(0));
            assertEquals(QueuePairState.RTS, qp.state());
            qp.modify(QueuePairState.RESET);
            assertEquals(QueuePairState.RESET, qp.state());
            assertEquals(0, Completions.drain(cq, Duration.ofMillis(20)).size(), "RESET drops work without completions");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.rdmablock.verbs.conformance.Fixtures#providers")
    void completionQueueOverrunIsReportedNotSilentlyLost(final ProviderFixture fixture) throws Exception {
        try (ConnectedPair pair = new ConnectedPair(fixture, QueuePairType.RC)) {
            final var smallCq = pair.server.cq(2);
            final MemoryRegion mr = pair.server.register(4096, ALL);
            final var qp = pair.server.track(pair.server.pd.createQueuePair(org.rdmablock.verbs.QueuePairInitAttributes.of(QueuePairType.UD, smallCq)));
            qp.modify(new QueuePairAttributes().state(QueuePairState.INIT).qkey(7).portNum(1).pkeyIndex(0));
            for (int i = 0; i < 4; i++) {
                postReceive(qp, mr, 0, 64, i);
            }
            qp.modify(QueuePairState.ERR); // four flush completions into a CQ of two
            assertEquals(smallCq, pair.server.awaitEvent(AsyncEvent.Type.CQ_ERR, ConnectedPair.TIMEOUT).cq());
            final var wc = new org.rdmablock.verbs.WorkCompletions(8);
            assertEquals(VerbsException.EIO, assertThrows(VerbsException.class, () -> smallCq.poll(wc)).errno());
        }
    }
}

package org.rdmablock.verbs.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.rdmablock.verbs.conformance.DataTransferConformanceTest.ALL;
import static org.rdmablock.verbs.conformance.DataTransferConformanceTest.bytes;
import static org.rdmablock.verbs.conformance.DataTransferConformanceTest.postReceive;

import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.rdmablock.verbs.AccessFlags;
import org.rdmablock.verbs.MemoryRegion;
import org.rdmablock.verbs.PostFailedException;
import org.rdmablock.verbs.QueuePairCapabilities;
import org.rdmablock.verbs.QueuePairType;
import org.rdmablock.verbs.ReceiveWorkRequest;
import org.rdmablock.verbs.SendFlags;
import org.rdmablock.verbs.SendOpcode;
import org.rdmablock.verbs.SendWorkRequest;
import org.rdmablock.verbs.VerbsException;
import org.rdmablock.verbs.WcOpcode;
import org.rdmablock.verbs.WcStatus;
import org.rdmablock.verbs.WorkCompletions;
import org.rdmablock.verbs.conformance.Completions.Wc;

/** The posting contract: what a refused chain leaves behind, and posts and polls from several threads at once. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PostingConformanceTest {

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.rdmablock.verbs.conformance.Fixtures#providers")
    void aChainTheSendQueueCannotHoldIsRefusedAndSaysWhatWasPosted(final ProviderFixture fixture) throws Exception {
        final QueuePairCapabilities caps = new QueuePairCapabilities(16, 16, 1, 1, 0);
        try (ConnectedPair pair = new ConnectedPair(fixture, ConnectedPair.Side.of(QueuePairType.RC).withCaps(caps),
            ConnectedPair.Side.of(QueuePairType.RC).withCaps(caps))) {
            final int room = pair.clientQp.capabilities().maxSendWr();
            final int length = room + 40; // longer than one native batch of 32, too
            final MemoryRegion source = pair.client.register(8L * length, AccessFlags.LOCAL_WRITE);
            final MemoryRegion target = pair.server.register(8L * length, ALL);
            for (int i = 0; i < length; i++) {
                source.segment().set(ValueLayout.JAVA_LONG, 8L * i, 0x0101_0101_0101_0101L * ((i % 255) + 1));
            }
            final SendWorkRequest[] chain = new SendWorkRequest[length];
            for (int i = 0; i < length; i++) {
                chain[i] = new SendWorkRequest().wrId(i).opcode(SendOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                    .remote(target.address() + 8L * i, target.rkey());
                chain[i].sgl().add(source, 8L * i, 8);
                if (i > 0) {
                    chain[i - 1].next(chain[i]);
                }
            }
            final PostFailedException refused = assertThrows(PostFailedException.class, () -> pair.clientQp.postSend(chain[0]));
            assertEquals(VerbsException.ENOMEM, refused.errno(), refused.getMessage());
            final int posted = refused.posted();
            if (fixture.name().equals("soft")) {
                assertEquals(0, posted, "the soft provider refuses a chain whole");
            }
            // a device may hold more than the capacity it granted (rxe granted 16 and took 31): only a prefix, short of the chain
            assertTrue(posted >= 0 && posted < length, "posted " + posted + " of a chain of " + length);
            // exactly the posted head completes, in order, and only its data arrives
            final List<Wc> done = posted == 0 ? List.of() : Completions.await(pair.clientCq, posted, ConnectedPair.TIMEOUT);
            for (int i = 0; i < posted; i++) {
                assertEquals(i, done.get(i).wrId());
                assertEquals(WcStatus.SUCCESS, done.get(i).status());
            }
            assertEquals(0, Completions.drain(pair.clientCq, Duration.ofMillis(300)).size(), "nothing beyond the posted head");
            assertArrayEquals(bytes(source.segment(), 0, 8 * posted), bytes(target.segment(), 0, 8 * posted));
            assertArrayEquals(new byte[8 * (length - posted)], bytes(target.segment(), 8L * posted, 8 * (length - posted)),
                "the refused requests wrote nothing");
            // the QP is fine: the unposted tail, cut to what fits, goes through
            final int tail = Math.min(room, length - posted);
            chain[posted + tail - 1].next(null);
            pair.clientQp.postSend(chain[posted]);
            assertEquals(tail, Completions.await(pair.clientCq, tail, ConnectedPair.TIMEOUT).stream()
                .filter(wc -> wc.status() == WcStatus.SUCCESS).count());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.rdmablock.verbs.conformance.Fixtures#providers")
    void severalThreadsPostToOneQueuePairWhileAnotherPolls(final ProviderFixture fixture) throws Exception {
        final int threads = 4;
        final int perThread = fixture.name().equals("soft") ? 1000 : 300; // rxe under emulation is slow
        final int window = 8; // sends in flight per posting thread: 4 x 8 fits the 128-entry queues
        try (ConnectedPair pair = new ConnectedPair(fixture, QueuePairType.RC)) {
            final MemoryRegion sink = pair.server.register(128 * 64L, AccessFlags.LOCAL_WRITE);
            for (int slot = 0; slot < 64; slot++) {
                postReceive(pair.serverQp, sink, slot * 64L, 64, slot);
            }
            final AtomicIntegerArray completed = new AtomicIntegerArray(threads);
            final ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
            // the client's poller: counts each posting thread's completions (the thread is in the wr_id). Its loops,
            // and the posters' below, bound their time by hand: they are the work (polling, posting), not a wait
            final Thread poller = Thread.ofPlatform().name("poller").start(() -> {
                final WorkCompletions wc = new WorkCompletions(16);
                int total = 0;
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
                while (total < threads * perThread && System.nanoTime() < deadline && failures.isEmpty()) {
                    final int n = pair.clientCq.poll(wc);
                    for (int i = 0; i < n; i++) {
                        if (!wc.isSuccess(i)) {
                            failures.add(new AssertionError(wc.toString(i)));
                        }
                        completed.incrementAndGet((int) (wc.wrId(i) >>> 32));
                    }
                    total += n;
                    if (n == 0) {
                        Thread.onSpinWait();
                    }
                }
            });
            final List<Thread> posters = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                final int me = t;
                posters.add(Thread.ofPlatform().name("poster-" + t).start(() -> {
                    try {
                        // a buffer per message in flight: a SEND's bytes are read when it is transmitted, not posted
                        final MemoryRegion source = pair.client.register(8L * window, AccessFlags.LOCAL_WRITE);
                        final SendWorkRequest send = new SendWorkRequest().opcode(SendOpcode.SEND).flags(SendFlags.SIGNALED);
                        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
                        for (int i = 0; i < perThread && failures.isEmpty(); i++) {
                            while (i - completed.get(me) >= window) {
                                if (System.nanoTime() > deadline) {
                                    throw new AssertionError("poster " + me + " starved at " + i);
                                }
                                Thread.onSpinWait();
                            }
                            final long slot = 8L * (i % window); // its previous message has completed
                            source.segment().set(ValueLayout.JAVA_INT, slot, me);
                            source.segment().set(ValueLayout.JAVA_INT, slot + 4, i);
                            send.sgl().clear().add(source, slot, 8);
                            pair.clientQp.postSend(send.wrId((long) me << 32 | i));
                        }
                    } catch (final Throwable e) {
                        failures.add(e);
                    }
                }));
            }
            // the server: every message arrives once, and each poster's messages in its posting order
            final int[] next = new int[threads];
            final WorkCompletions wc = new WorkCompletions(16);
            final ReceiveWorkRequest again = new ReceiveWorkRequest();
            int received = 0;
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            while (received < threads * perThread && failures.isEmpty()) {
                assertTrue(System.nanoTime() < deadline, "received " + received + " of " + threads * perThread);
                final int n = pair.serverCq.poll(wc);
                for (int i = 0; i < n; i++) {
                    assertEquals(WcStatus.SUCCESS, wc.status(i), wc.toString(i));
                    assertEquals(WcOpcode.RECV, wc.opcode(i));
                    final long slot = wc.wrId(i);
                    final int from = sink.segment().get(ValueLayout.JAVA_INT, slot * 64);
                    final int sequence = sink.segment().get(ValueLayout.JAVA_INT, slot * 64 + 4);
                    assertEquals(next[from], sequence, "poster " + from + "'s messages arrive in its order");
                    next[from]++;
                    again.wrId(slot).sgl().clear().add(sink, slot * 64, 64);
                    pair.serverQp.postReceive(again);
                }
                received += n;
            }
            for (final Thread poster : posters) {
                poster.join(TimeUnit.SECONDS.toMillis(30));
            }
            poller.join(TimeUnit.SECONDS.toMillis(30));
            assertTrue(failures.isEmpty(), () -> "failures: " + failures);
            for (int t = 0; t < threads; t++) {
                assertEquals(perThread, next[t], "poster " + t);
                assertEquals(perThread, completed.get(t), "completions of poster " + t);
            }
        }
    }
}

package org.rdmablock.target.fakes;

import org.rdmablock.protocol.srp.SrpInformationUnit;
import org.rdmablock.protocol.srp.SrpResponse;
import org.rdmablock.target.core.WorkRequestIds;
import org.rdmablock.verbs.AddressHandle;
import org.rdmablock.verbs.AddressHandleAttributes;
import org.rdmablock.verbs.CompletionQueue;
import org.rdmablock.verbs.DeviceContext;
import org.rdmablock.verbs.MemoryRegion;
import org.rdmablock.verbs.MemoryWindow;
import org.rdmablock.verbs.ProtectionDomain;
import org.rdmablock.verbs.QueuePair;
import org.rdmablock.verbs.QueuePairAttributes;
import org.rdmablock.verbs.QueuePairCapabilities;
import org.rdmablock.verbs.QueuePairInitAttributes;
import org.rdmablock.verbs.QueuePairState;
import org.rdmablock.verbs.QueuePairType;
import org.rdmablock.verbs.ReceiveWorkRequest;
import org.rdmablock.verbs.SendOpcode;
import org.rdmablock.verbs.SendWorkRequest;
import org.rdmablock.verbs.SharedReceiveQueue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Verbs that move nothing, for driving the {@link org.rdmablock.target.core.CommandPipeline} without a transport: a protection domain whose
 * regions are the memory handed to it, and queue pairs that count what is posted. A signaled RDMA READ or SEND
 * puts its completion on a {@link Completions} ring, as a CQ would, for the test's poller to publish; a posted
 * receive puts its index on the QP's {@link Receives} ring, for the test's "initiator" to send an IU into. Posting
 * and polling allocate nothing.
 */
public final class FakeVerbs {
    private static final ValueLayout.OfLong TAG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.nativeOrder());

    /** How a protocol's response says which request it answers and whether it succeeded. */
    public interface Responses {
        /** The tag of the response at {@code at} of {@code segment}: the request's, as the harness numbered it. */
        long tag(MemorySegment segment, long at);

        /** Whether the response reports success. */
        boolean good(MemorySegment segment, long at);
    }

    /** SRP_RSP: the tag (as the harness wrote it, native order) and a GOOD status. */
    public static final Responses SRP = new Responses() {
        @Override
        public long tag(final MemorySegment segment, final long at) {
            return segment.get(TAG, at + SrpInformationUnit.TAG_OFFSET);
        }

        @Override
        public boolean good(final MemorySegment segment, final long at) {
            return segment.get(ValueLayout.JAVA_BYTE, at + SrpResponse.STATUS_OFFSET) == 0;
        }
    };

    private FakeVerbs() {
    }

    /**
     * A protection domain that registers by remembering; lkey = rkey = the region's index. Makes nothing else: the
     * pipeline only registers memory.
     */
    public record Domain(Region[] regions, AtomicInteger registered, DeviceContext context) implements ProtectionDomain {
        public Domain() {
            this(new Region[1024], new AtomicInteger(), null);
        }

        @Override
        public MemoryRegion registerMemory(final MemorySegment memory, final int access) {
            final int key = registered.getAndIncrement();
            regions[key] = new Region(this, memory, memory.address(), memory.byteSize(), key, key, access);
            return regions[key];
        }

        /** The region with key {@code key} (any thread: regions are made before the pipeline runs). */
        public Region region(final int key) {
            return regions[key];
        }

        @Override
        public MemoryWindow allocateMemoryWindow() {
            throw unsupported();
        }

        @Override
        public QueuePair createQueuePair(final QueuePairInitAttributes attributes) {
            throw unsupported();
        }

        @Override
        public SharedReceiveQueue createSharedReceiveQueue(final int maxWr, final int maxSge) {
            throw unsupported();
        }

        @Override
        public AddressHandle createAddressHandle(final AddressHandleAttributes attributes) {
            throw unsupported();
        }

        @Override
        public void close() {
        }
    }

    private static UnsupportedOperationException unsupported() {
        return new UnsupportedOperationException("the fake verbs only register memory and post");
    }

    /** Registered memory that is just the segment. */
    public record Region(Domain protectionDomain, MemorySegment segment, long address, long length, int lkey, int rkey, int access)
            implements MemoryRegion {
        @Override
        public void close() {
        }
    }

    /**
     * A bounded multi-producer, single-consumer ring of completions (Vyukov's sequence-per-cell queue): the intake
     * thread (RDMA READs) and the backend threads (responses) offer, the test's poller polls. Each completion is
     * a work request id, the tag of the response (-1 for a READ), the nanoseconds from the IU's injection to the
     * response's post (-1 when its status is not GOOD) and the number of work requests the chain posted.
     */
    public static final class Completions {
        private final long[] ids;
        private final long[] tags;
        private final long[] values;
        private final int[] posts;
        private final AtomicLongArray sequences;
        private final AtomicLong tail = new AtomicLong();
        private final int mask;
        private long head;
        // what the last poll took
        public long id;
        public long tag;
        public long value;
        public int chainLength;

        public Completions(final int capacity) {
            final int size = Integer.highestOneBit(Math.max(2, capacity - 1)) << 1;
            ids = new long[size];
            tags = new long[size];
            values = new long[size];
            posts = new int[size];
            sequences = new AtomicLongArray(size);
            for (int i = 0; i < size; i++) {
                sequences.set(i, i);
            }
            mask = size - 1;
        }

        public void offer(final long wrId, final long responseTag, final long nanos, final int chain) {
            long at;
            while (true) {
                at = tail.get();
                final long sequence = sequences.get((int) at & mask);
                if (sequence == at && tail.compareAndSet(at, at + 1)) {
                    break;
                }
                if (sequence < at) {
                    Thread.onSpinWait(); // full: the poller is behind
                }
            }
            final int cell = (int) at & mask;
            ids[cell] = wrId;
            tags[cell] = responseTag;
            values[cell] = nanos;
            posts[cell] = chain;
            sequences.lazySet(cell, at + 1);
        }

        /** Takes the oldest completion into {@link #id}, {@link #tag}, {@link #value}, {@link #chainLength}; false when none. */
        public boolean poll() {
            final int cell = (int) head & mask;
            if (sequences.get(cell) != head + 1) {
                return false;
            }
            id = ids[cell];
            tag = tags[cell];
            value = values[cell];
            chainLength = posts[cell];
            sequences.lazySet(cell, head + mask + 1);
            head++;
            return true;
        }
    }

    /** Receive indexes posted and not yet consumed, in posting order: one producer (the intake), one consumer. */
    public static final class Receives {
        private final int[] indexes;
        private final int mask;
        private final AtomicLong tail = new AtomicLong();
        private long head;

        public Receives(final int capacity) {
            indexes = new int[Integer.highestOneBit(Math.max(2, capacity - 1)) << 1];
            mask = indexes.length - 1;
        }

        public void add(final int index) {
            final long at = tail.get();
            indexes[(int) at & mask] = index;
            tail.lazySet(at + 1);
        }

        /** The oldest posted receive index, or -1. */
        public int take() {
            if (head == tail.get()) {
                return -1;
            }
            return indexes[(int) head++ & mask];
        }
    }

    /** What a {@link Pair} was asked to post: calls to postSend, and a refusal the test may arm. */
    public static final class Posts {
        /** Calls to {@code postSend} (chains posted, whatever their length). */
        public final AtomicLong calls = new AtomicLong();
        /**
         * When 0 or more: the next post of a longer chain accepts this many requests at its head and refuses the rest
         * (as a device whose send queue filled part way); then -1 again.
         */
        public volatile int refuseAfter = -1;
        /** The length of the chain that refusal cut. */
        public volatile int refusedChainLength;
    }

    /**
     * A QP that sends nothing. {@code injectedAt} maps an IU's tag to its injection time, so that the SEND of the
     * response records the latency from injection to response post.
     */
    public record Pair(Domain protectionDomain, int qpNum, Completions completions, Receives receives, long[] injectedAt,
                Posts posts, Responses responses, QueuePairType type, QueuePairState state, QueuePairCapabilities capabilities,
                CompletionQueue sendCompletionQueue, CompletionQueue receiveCompletionQueue,
                SharedReceiveQueue sharedReceiveQueue) implements QueuePair {
        /** A pair whose responses are SRP's. */
        public Pair(final Domain pd, final int qpn, final Completions completions, final int receiveCount, final long[] injectedAt) {
            this(pd, qpn, completions, receiveCount, injectedAt, SRP);
        }

        public Pair(final Domain pd, final int qpn, final Completions completions, final int receiveCount, final long[] injectedAt,
                    final Responses responses) {
            this(pd, qpn, completions, new Receives(receiveCount), injectedAt, new Posts(), responses, QueuePairType.RC,
                    QueuePairState.RTS, null, null, null, null);
        }

        @Override
        public void postSend(final SendWorkRequest chain) {
            posts.calls.incrementAndGet();
            final int accept = posts.refuseAfter;
            if (accept >= 0 && lengthOf(chain) > accept) {
                posts.refuseAfter = -1;
                posts.refusedChainLength = lengthOf(chain);
                if (accept > 0) {
                    // the accepted head completes as posted: cut the chain after it, and mend it after
                    SendWorkRequest last = chain;
                    for (int i = 1; i < accept; i++) {
                        last = last.next();
                    }
                    final SendWorkRequest rest = last.next();
                    last.next(null);
                    try {
                        complete(chain);
                    } finally {
                        last.next(rest);
                    }
                }
                throw new org.rdmablock.verbs.PostFailedException(org.rdmablock.verbs.VerbsException.ENOMEM,
                        "refused by the test", accept);
            }
            complete(chain);
        }

        private static int lengthOf(final SendWorkRequest chain) {
            int length = 0;
            for (SendWorkRequest wr = chain; wr != null; wr = wr.next()) {
                length++;
            }
            return length;
        }

        /** Completes each signaled request of {@code chain}, as if it had gone. */
        private void complete(final SendWorkRequest chain) {
            int length = 0;
            for (SendWorkRequest wr = chain; wr != null; wr = wr.next()) {
                length++;
                if (!wr.isSignaled()) {
                    continue;
                }
                if (wr.opcode() == SendOpcode.SEND) {
                    final Region response = protectionDomain.region(wr.sgl().lkey(0));
                    final long at = wr.sgl().address(0) - response.address();
                    final long tag = responses.tag(response.segment(), at);
                    final boolean good = responses.good(response.segment(), at);
                    completions.offer(wr.wrId(), tag, good ? System.nanoTime() - injectedAt[(int) tag] : -1, length);
                } else {
                    completions.offer(wr.wrId(), -1, 0, length);
                }
                length = 0;
            }
        }

        @Override
        public void postReceive(final ReceiveWorkRequest wr) {
            for (ReceiveWorkRequest r = wr; r != null; r = r.next()) {
                receives.add(WorkRequestIds.index(r.wrId()));
            }
        }

        @Override
        public void modify(final QueuePairAttributes attributes) {
            throw unsupported();
        }

        @Override
        public void close() {
        }
    }
}

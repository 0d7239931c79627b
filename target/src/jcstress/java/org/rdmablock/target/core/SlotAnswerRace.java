package org.rdmablock.target.core;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;
import org.rdmablock.protocol.scsi.ScsiCommand;
import org.rdmablock.target.config.InitiatorPortId;
import org.rdmablock.target.metrics.TargetStatistics;
import org.rdmablock.verbs.MemoryRegion;
import org.rdmablock.verbs.ProtectionDomain;
import org.rdmablock.verbs.QueuePair;
import org.rdmablock.verbs.SendWorkRequest;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.reflect.Proxy;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * The command slot's phase CAS: a backend thread completing a command and the intake stage's command timeout race for
 * it ({@link CommandSlot#completed} against {@link CommandSlot#answerTimedOut}), and exactly one response must go,
 * through the poster of the thread that won; the loser's part comes back to the intake stage (the backend call's return,
 * through {@link ReturnedSlots}) or does nothing (a timeout that found the command answered).
 */
@JCStressTest
@Outcome(id = "1, 0, 0", expect = ACCEPTABLE, desc = "the backend answered; the timeout found it answered")
@Outcome(id = "0, 1, 1", expect = ACCEPTABLE, desc = "the timeout answered; the backend's return went back unsent")
@Outcome(expect = FORBIDDEN, desc = "two responses, none, or a slot that never comes back")
@State
public class SlotAnswerRace {
    private static final Arena ARENA = Arena.ofShared();
    private static final ProtectionDomain DOMAIN = domain();
    private static final MemoryRegion RESPONSES = DOMAIN.registerMemory(ARENA.allocate(CommandSlot.RESPONSE_BYTES), 0);
    private static final MemoryRegion DESCRIPTORS = DOMAIN.registerMemory(ARENA.allocate(CommandSlot.DESCRIPTOR_BYTES), 0);
    /** The slot only reads its channel's id. */
    private static final Channel CHANNEL = new Channel(0, null, queuePair(), new InitiatorPortId(0, 1), null, null, 1, null,
            1, 64, new TargetStatistics().channelJoined(new InitiatorPortId(0, 1)));
    /** Every response is 36 bytes; what it says does not matter here. */
    private static final ResponseEncoder ENCODER = new ResponseEncoder() {
        @Override
        public int commandResponse(final CommandSlot slot, final ScsiCommand done) {
            return 36;
        }

        @Override
        public int timeoutResponse(final CommandSlot slot) {
            return 36;
        }
    };

    private final CountingPoster backendPosts = new CountingPoster();
    private final CountingPoster intakePosts = new CountingPoster();
    private final ReturnedSlots returned = new ReturnedSlots();
    private final CommandSlot slot = new CommandSlot(0, returned, RESPONSES, DESCRIPTORS);

    static {
        CHANNEL.respondsWith(new ResponseEncoder[]{ENCODER});
    }

    public SlotAnswerRace() {
        slot.begin(CHANNEL, 1, 0);
        slot.postsThrough(backendPosts); // as the intake stage hands it to a backend thread
        slot.handToBackend(0);
    }

    @Actor
    public void backend() {
        slot.completed(slot.command());
    }

    @Actor
    public void timeout() {
        slot.answerTimedOut(intakePosts);
    }

    @Arbiter
    public void arbiter(final III_Result r) {
        r.r1 = backendPosts.posted;
        r.r2 = intakePosts.posted;
        r.r3 = returned.poll() == slot ? 1 : 0;
    }

    /** Counts the chains posted through it (by one thread at a time: the arbiter reads it after both). */
    private static final class CountingPoster implements SendPoster {
        private int posted;

        @Override
        public void post(final CommandSlot slot, final SendWorkRequest chain) {
            posted++;
        }

        @Override
        public int flush() {
            return 0;
        }
    }

    /** A protection domain that registers memory by remembering the segment; nothing else is called. */
    private static ProtectionDomain domain() {
        return (ProtectionDomain) Proxy.newProxyInstance(SlotAnswerRace.class.getClassLoader(),
                new Class<?>[] {ProtectionDomain.class}, (pd, method, args) -> switch (method.getName()) {
                    case "registerMemory" -> region((MemorySegment) args[0]);
                    case "close" -> null;
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    private static MemoryRegion region(final MemorySegment memory) {
        return (MemoryRegion) Proxy.newProxyInstance(SlotAnswerRace.class.getClassLoader(),
                new Class<?>[] {MemoryRegion.class}, (region, method, args) -> switch (method.getName()) {
                    case "segment" -> memory;
                    case "address" -> memory.address();
                    case "length" -> memory.byteSize();
                    case "lkey", "rkey", "access" -> 0;
                    case "close" -> null;
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    /** A queue pair whose only use is the protection domain its channel's receive buffers are registered in. */
    private static QueuePair queuePair() {
        return (QueuePair) Proxy.newProxyInstance(SlotAnswerRace.class.getClassLoader(),
                new Class<?>[] {QueuePair.class}, (qp, method, args) -> switch (method.getName()) {
                    case "protectionDomain" -> DOMAIN;
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }
}

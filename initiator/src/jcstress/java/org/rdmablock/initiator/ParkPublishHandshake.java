package org.rdmablock.initiator;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;
import org.rdmablock.verbs.CompletionChannel;
import org.rdmablock.verbs.CompletionQueue;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * The initiator's park/publish handshake (a Dekker pair): a submitter publishes a request into the
 * {@link SubmissionRing} and wakes the agent if it sleeps ({@link AgentWakeup#wakeIfParked}); the agent says it is
 * going to sleep ({@link AgentWakeup#parking}) and then looks at the ring once more ({@link RequestScheduler#hasWaiting}).
 * At least one of them must see the other: the agent the request, or the submitter the agent going to sleep; if
 * neither did, the request would wait out the agent's whole sleep.
 */
@JCStressTest
@Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "the agent saw the request before it slept; no wakeup needed")
@Outcome(id = "0, 1", expect = ACCEPTABLE, desc = "the agent saw nothing; the submitter woke it")
@Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "both saw each other (a spare wakeup)")
@Outcome(id = "0, 0", expect = FORBIDDEN, desc = "a lost wakeup: the request waits out the agent's sleep")
@State
public class ParkPublishHandshake {
    private final AtomicInteger wakeups = new AtomicInteger();
    private final AgentWakeup wakeup = new AgentWakeup(new CountingEvents(wakeups), null);
    private final SubmissionRing ring = new SubmissionRing(4, wakeup);
    private final RequestScheduler scheduler = new RequestScheduler(ring.ring(), false, false);
    private int agentSaw;

    @Actor
    public void submitter() {
        ring.publish(ring.claim());
    }

    @Actor
    public void agent() {
        wakeup.parking();
        agentSaw = scheduler.hasWaiting() ? 1 : 0;
    }

    @Arbiter
    public void arbiter(final II_Result r) {
        r.r1 = agentSaw;
        r.r2 = wakeups.get();
    }

    /** An event channel that only counts its wakeups. */
    private record CountingEvents(AtomicInteger wakeups) implements CompletionChannel {
        @Override
        public CompletionQueue awaitEvent(final Duration timeout) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void wakeup() {
            wakeups.incrementAndGet();
        }

        @Override
        public void close() {
        }
    }
}

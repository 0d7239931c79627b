package org.rdmablock.target;

import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;

import java.time.Duration;

/**
 * The target tests' one way to wait for a condition: Awaitility, set up alike everywhere. The condition is evaluated
 * on the waiting thread (some conditions drive a queue that only that thread may touch, and a polling thread of
 * Awaitility's own would show in the thread counts ResourceLeakTest compares), at once and then every {@link #POLL}.
 * An exception another thread does not catch stays that thread's, as without a wait: the wait does not install
 * itself as the JVM's default handler, which waits on several threads at once (the sessions' initiators) would race on.
 */
public final class Waiting {
    /** How often a condition is looked at. */
    public static final Duration POLL = Duration.ofMillis(2);

    private Waiting() {
    }

    /** Awaitility waiting at most {@code atMost} for {@code what} (named in the failure). */
    public static ConditionFactory waitUpTo(final Duration atMost, final String what) {
        return Awaitility.await(what)
                .atMost(atMost)
                .pollInSameThread()
                .pollDelay(Duration.ZERO)
                .pollInterval(POLL)
                .dontCatchUncaughtExceptions();
    }
}

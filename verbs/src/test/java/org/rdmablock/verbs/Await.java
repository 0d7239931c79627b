package org.rdmablock.verbs;

import java.time.Duration;
import java.util.Set;

import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;

/**
 * How the verbs tests wait for something: Awaitility, set up once for them. The condition is evaluated on the
 * waiting thread (it often polls a completion queue, and the soft provider makes progress on the thread that
 * polls), at once and then every millisecond, for at most the time given; a timeout fails the test with the
 * condition's description. Other threads' uncaught exceptions are left to their own tests.
 */
public final class Await {
    /** Time between two evaluations of a condition that does not hold yet. */
    public static final Duration POLL_INTERVAL = Duration.ofMillis(1);

    private Await() {
    }

    /**
     * A wait for {@code what}, for at most {@code timeout}; continue with {@code until(...)}, or {@code during(...)}
     * for a condition that must hold for a while.
     */
    public static ConditionFactory atMost(final String what, final Duration timeout) {
        return Awaitility.await(what)
            .atMost(timeout)
            .pollInSameThread()
            .pollDelay(Duration.ZERO)
            .pollInterval(POLL_INTERVAL)
            .dontCatchUncaughtExceptions();
    }

    /** The JDK's blocking calls, as they show at the top of a waiting thread's stack. */
    private static final Set<String> WAITS = Set.of("wait", "wait0", "park", "parkNanos", "sleep", "sleep0", "sleepNanos");

    /**
     * Whether {@code thread} is blocked inside a method named {@code method}: waiting or parked in a call it made (a
     * monitor's timed wait, a lock), or in one of {@code nativeCalls} made from it (a thread in a downcall such as
     * {@code poll(2)} is RUNNABLE for the JVM, so name it).
     */
    public static boolean blockedIn(final Thread thread, final String method, final Set<String> nativeCalls) {
        final StackTraceElement[] stack = thread.getStackTrace();
        final Thread.State state = thread.getState();
        for (int i = 0; i < stack.length; i++) {
            if (stack[i].getMethodName().equals(method)) {
                for (int above = 0; above < i; above++) {
                    final String call = stack[above].getMethodName();
                    if (WAITS.contains(call)) {
                        return state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING;
                    }
                    if (nativeCalls.contains(call)) {
                        return state == Thread.State.RUNNABLE;
                    }
                }
                return false;
            }
        }
        return false;
    }
}

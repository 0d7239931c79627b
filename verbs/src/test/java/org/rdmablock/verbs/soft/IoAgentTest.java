package org.rdmablock.verbs.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The I/O agent on its Agrona runner: a daemon thread of the agent's name that runs the tasks handed to it, lives
 * through a failing task and an interrupt, and stops when closed, from another thread or from its own.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class IoAgentTest {
    private static final long WAIT_SECONDS = 10;

    /** The agent's thread, as a task sees it. */
    private static Thread agentThread(final IoAgent agent) throws Exception {
        final CompletableFuture<Thread> thread = new CompletableFuture<>();
        agent.execute(() -> thread.complete(Thread.currentThread()));
        return thread.get(WAIT_SECONDS, TimeUnit.SECONDS);
    }

    @ParameterizedTest(name = "spins {0}")
    @ValueSource(ints = {0, 2000})
    void tasksRunOnADaemonThreadNamedAfterTheAgent(final int spins) throws Exception {
        final IoAgent agent = new IoAgent("test-io-0", spins);
        try {
            final Thread thread = agentThread(agent);
            assertEquals("test-io-0", thread.getName(), "thread name (tests and docs look agents up by it)");
            assertTrue(thread.isDaemon(), "daemon");
            assertEquals(thread.threadId(), agent.threadId());
            assertFalse(agent.isAgentThread(), "the test thread is not the agent's");
            // a task that arrives while the agent blocks in its selector wakes it
            for (int i = 0; i < 100; i++) {
                assertEquals(thread, agentThread(agent), "task " + i);
            }
        } finally {
            agent.close();
        }
    }

    @Test
    void aFailingTaskDoesNotStopTheAgent() throws Exception {
        final IoAgent agent = new IoAgent("test-io-failing", 0);
        try {
            agent.execute(() -> {
                throw new IllegalStateException("an endpoint bug (expected by the test)");
            });
            agent.execute(() -> {
                throw new AssertionError("an Error in an endpoint (expected by the test)");
            });
            assertTrue(agentThread(agent).isAlive(), "the agent ran the task after the failing ones");
        } finally {
            agent.close();
        }
    }

    /**
     * Agrona's runner stops its loop, silently, when it finds its thread interrupted after an idle cycle: an agent
     * stopped that way left a connection's disconnect unread (a login and logout loop hung one run in four).
     */
    @ParameterizedTest(name = "spins {0}")
    @ValueSource(ints = {0, 2000})
    void anInterruptDoesNotStopTheAgent(final int spins) throws Exception {
        final IoAgent agent = new IoAgent("test-io-interrupted", spins);
        try {
            final Thread thread = agentThread(agent);
            agent.execute(() -> Thread.currentThread().interrupt()); // from a task on the agent's own thread
            assertEquals(thread, agentThread(agent), "the agent ran a task after an interrupt from a task");
            for (int i = 0; i < 20; i++) {
                thread.interrupt(); // from outside, whether the agent blocks in its selector or is between cycles
                assertEquals(thread, agentThread(agent), "the agent ran a task after outside interrupt " + i);
            }
            assertTrue(thread.isAlive(), "the agent's thread lives");
        } finally {
            agent.close();
        }
    }

    @Test
    void closeFromAnotherThreadWakesTheBlockedAgentAndStopsIt() throws Exception {
        final IoAgent agent = new IoAgent("test-io-close", 0);
        final Thread thread = agentThread(agent);
        final long start = System.nanoTime();
        agent.close();
        final long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertFalse(thread.isAlive(), "the agent's thread ended with close");
        assertTrue(millis < 5000, "close took " + millis + " ms: the blocked select was not woken, the runner timed out");
    }

    @Test
    void closeFromTheAgentsOwnThreadEndsItsLoop() throws Exception {
        final IoAgent agent = new IoAgent("test-io-self-close", 0);
        final Thread thread = agentThread(agent);
        agent.execute(agent::close);
        thread.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
        assertFalse(thread.isAlive(), "the agent closed from its own thread went on running");
    }
}

package org.rdmablock.target.srp;

/**
 * {@link SessionsTest} again with {@code backend_threads = 0}: task management (ABORT TASK, LUN RESET, ...) against
 * commands held in LUN 0's backend, credits, logouts and lost channels, with the poller thread running the intake and each command.
 */
class InlineSessionsTest extends SessionsTest {
    @Override
    int backendThreads() {
        return 0;
    }
}

package org.rdmablock.target.srp;

import org.rdmablock.target.config.PipelineConfig;

/**
 * {@link SessionsTest} again with {@code completions = "event"} and {@code backend_threads = 0}, as the QEMU harness
 * serves ib_srp: the poller arms the CQ and sleeps on its completion channel between completions, so each test also
 * checks that no completion is missed across the arming (a missed one hangs the test's command).
 */
class EventCompletionsSessionsTest extends SessionsTest {
    @Override
    int backendThreads() {
        return 0;
    }

    @Override
    PipelineConfig.CompletionMode completions() {
        return PipelineConfig.CompletionMode.EVENT;
    }
}

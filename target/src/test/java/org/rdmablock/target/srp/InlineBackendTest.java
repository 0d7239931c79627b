package org.rdmablock.target.srp;

/**
 * {@link ScsiCommandsTest} again with {@code backend_threads = 0}: the intake thread runs every command itself
 * (there is no backend stage to hand it to, so a command the intake did not run would never be answered).
 */
class InlineBackendTest extends ScsiCommandsTest {
    @Override
    int backendThreads() {
        return 0;
    }
}

package org.rdmablock.target.backend;

import org.rdmablock.target.config.LunConfig.BackendKind;

/** The backend contract for native memory (an anonymous mapping; unmap gives pages back). */
class MemoryBackendTest extends BackendContractTest {
    @Override
    BackendKind kind() {
        return BackendKind.MEMORY;
    }
}

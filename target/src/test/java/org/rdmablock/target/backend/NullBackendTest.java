package org.rdmablock.target.backend;

import org.rdmablock.target.config.LunConfig.BackendKind;

/** The backend contract for the null backend: everything completes, and every read returns zeroes. */
class NullBackendTest extends BackendContractTest {
    @Override
    BackendKind kind() {
        return BackendKind.NULL;
    }
}

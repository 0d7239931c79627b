package org.rdmablock.target.backend;

import org.rdmablock.target.config.LunConfig.BackendKind;

/**
 * The backend contract for RocksDB: with 512-byte blocks it covers the read-modify-write of partial 4 KiB groups
 * (writes, unmaps, and eight threads writing neighbouring blocks of the same groups).
 */
class RocksDbBackendTest extends BackendContractTest {
    @Override
    BackendKind kind() {
        return BackendKind.ROCKSDB;
    }
}

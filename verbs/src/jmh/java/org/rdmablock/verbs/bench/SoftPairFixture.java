package org.rdmablock.verbs.bench;

import org.rdmablock.verbs.AccessFlags;
import org.rdmablock.verbs.CompletionQueue;
import org.rdmablock.verbs.MemoryRegion;
import org.rdmablock.verbs.QueuePairType;
import org.rdmablock.verbs.SendFlags;
import org.rdmablock.verbs.SendOpcode;
import org.rdmablock.verbs.SendWorkRequest;
import org.rdmablock.verbs.WorkCompletions;
import org.rdmablock.verbs.conformance.ConnectedPair;
import org.rdmablock.verbs.conformance.ProviderFixture;

/**
 * What the verbs benchmarks share: a connected soft RC pair with a registered source region on the client and a
 * remotely accessible target region on the server, signaled requests from one to the other, and the spin on a CQ
 * until a completion arrives.
 */
final class SoftPairFixture implements AutoCloseable {
    final ConnectedPair pair;
    final MemoryRegion local;
    final MemoryRegion remote;

    /** Connects the pair and registers {@code size} bytes on each side. */
    SoftPairFixture(final int size) throws Exception {
        pair = new ConnectedPair(ProviderFixture.soft(), QueuePairType.RC);
        local = pair.client.register(size, AccessFlags.LOCAL_WRITE);
        remote = pair.server.register(size, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_WRITE);
    }

    /** A signaled {@code opcode} of the first {@code length} bytes of the local region to the remote one. */
    SendWorkRequest request(final SendOpcode opcode, final int length) {
        final SendWorkRequest request = new SendWorkRequest().opcode(opcode).flags(SendFlags.SIGNALED)
            .remote(remote.address(), remote.rkey());
        request.sgl().add(local, 0, length);
        return request;
    }

    /** Polls {@code cq} into {@code wc} until it returns a completion; throws unless that completion succeeded. */
    static int awaitOne(final CompletionQueue cq, final WorkCompletions wc) {
        int n;
        while ((n = cq.poll(wc, 1)) == 0) {
            Thread.onSpinWait();
        }
        if (!wc.isSuccess(0)) { // a flushed QP completes fast: never time one
            throw new IllegalStateException("operation failed: " + wc.toString(0));
        }
        return n;
    }

    @Override
    public void close() {
        pair.close();
    }
}

package org.rdmablock.verbs.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.rdmablock.verbs.conformance.DataTransferConformanceTest.ALL;
import static org.rdmablock.verbs.conformance.DataTransferConformanceTest.bytes;
import static org.rdmablock.verbs.conformance.DataTransferConformanceTest.pattern;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.rdmablock.verbs.AccessFlags;
import org.rdmablock.verbs.MemoryRegion;
import org.rdmablock.verbs.QueuePairType;
import org.rdmablock.verbs.SendFlags;
import org.rdmablock.verbs.SendOpcode;
import org.rdmablock.verbs.SendWorkRequest;
import org.rdmablock.verbs.WcStatus;
import org.rdmablock.verbs.conformance.Completions.Wc;

/** What work in flight becomes when the connection ends under it: it may fail, it may never falsely succeed. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DisconnectConformanceTest {

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.rdmablock.verbs.conformance.Fixtures#providers")
    void aWriteFollowedAtOnceByADisconnectEitherArrivesWholeOrFails(final ProviderFixture fixture) throws Exception {
        final int rounds = fixture.name().equals("soft") ? 12 : 4;
        int succeeded = 0;
        for (int round = 0; round < rounds; round++) {
            final int size = 4096 << (round % 7); // 4 KiB .. 256 KiB: one FPDU to several, copied and uncopied
            try (ConnectedPair pair = new ConnectedPair(fixture, QueuePairType.RC)) {
                final MemoryRegion source = pair.client.register(pattern(pair.client, size, 50 + round), AccessFlags.LOCAL_WRITE);
                final MemoryRegion target = pair.server.register(size, ALL);
                final SendWorkRequest write = new SendWorkRequest().opcode(SendOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                    .remote(target.address(), target.rkey());
                write.sgl().add(source, 0, size);
                pair.clientQp.postSend(write);
                pair.clientId.disconnect();
                final Wc done = Completions.awaitOne(pair.clientCq);
                if (done.status() == WcStatus.SUCCESS) {
                    // success means the peer has the data: it must be there now, whole
                    assertArrayEquals(bytes(source.segment(), 0, size), bytes(target.segment(), 0, size),
                        "round " + round + ": a WRITE that completed successfully must have arrived whole");
                    succeeded++;
                } else {
                    assertTrue(done.status() == WcStatus.WR_FLUSH_ERR || done.status() == WcStatus.RETRY_EXC_ERR,
                        "round " + round + ": " + done);
                }
            }
        }
        System.out.printf("%s: %d of %d WRITEs before a disconnect completed successfully (the rest failed)%n",
            fixture.name(), succeeded, rounds);
    }
}

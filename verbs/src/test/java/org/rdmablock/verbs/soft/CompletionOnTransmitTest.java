package org.rdmablock.verbs.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rdmablock.verbs.ConnectionParameters;
import org.rdmablock.verbs.MemoryRegion;
import org.rdmablock.verbs.QueuePairInitAttributes;
import org.rdmablock.verbs.SendFlags;
import org.rdmablock.verbs.SendOpcode;
import org.rdmablock.verbs.SendWorkRequest;
import org.rdmablock.verbs.WcStatus;
import org.rdmablock.verbs.WorkCompletions;
import org.rdmablock.verbs.soft.wire.RdmapOpcode;
import org.rdmablock.verbs.soft.wire.ReadRequest;

/**
 * An RC QP made to complete on transmit ({@link QueuePairInitAttributes#completesOnTransmit}) sends no zero-length
 * confirmation READ: a signaled SEND completes with the peer silent (Linux siw answers such a READ from a stale SGE:
 * docs/benchmarks/siw-interop.md); a READ still completes on its response, and a SEND posted after it completes after it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CompletionOnTransmitTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    /** How long the peer listens for a READ that must not come. */
    private static final Duration QUIET = Duration.ofMillis(300);

    private static ScriptedConnection connection() throws Exception {
        return new ScriptedConnection(new SoftProvider(), ConnectionParameters.of(new byte[0]), qp -> { }, 4, false,
                QueuePairInitAttributes::withCompletionOnTransmit);
    }

    @Test
    void aSignaledSendCompletesWithoutAConfirmationRead() throws Exception {
        try (ScriptedConnection c = connection()) {
            final MemoryRegion buffer = c.register(16);
            final SendWorkRequest send = new SendWorkRequest().wrId(1).opcode(SendOpcode.SEND).flags(SendFlags.SIGNALED);
            send.sgl().add(buffer, 0, 16);
            c.qp.postSend(send);
            c.peer.await(RdmapOpcode.SEND, TIMEOUT);
            final WorkCompletions wc = new WorkCompletions(4);
            assertEquals(1, c.awaitCompletion(wc), "the SEND completes, the peer having answered nothing");
            assertEquals(WcStatus.SUCCESS, wc.status(0), wc.toString(0));
            assertEquals(1, wc.wrId(0));
            final WirePeer.Received after = c.peer.next(QUIET);
            assertNull(after, "no confirmation READ: opcode " + (after == null ? -1 : after.opcode()));
        }
    }

    @Test
    void aSendAfterAReadCompletesOnlyAfterTheReadsResponse() throws Exception {
        try (ScriptedConnection c = connection()) {
            final MemoryRegion buffer = c.register(64);
            final SendWorkRequest read = new SendWorkRequest().wrId(1).opcode(SendOpcode.RDMA_READ).flags(SendFlags.SIGNALED)
                    .remote(0x1000, 0x77);
            read.sgl().add(buffer, 0, 8);
            c.qp.postSend(read);
            final ReadRequest request = c.peer.await(RdmapOpcode.READ_REQUEST, TIMEOUT).readRequest();
            final SendWorkRequest send = new SendWorkRequest().wrId(2).opcode(SendOpcode.SEND).flags(SendFlags.SIGNALED);
            send.sgl().add(buffer, 32, 16);
            c.qp.postSend(send);
            c.peer.await(RdmapOpcode.SEND, TIMEOUT);
            final WorkCompletions wc = new WorkCompletions(4);
            assertEquals(0, c.cq.poll(wc, 4), "nothing completes before the READ's response");

            c.peer.sendReadResponse(request.sinkStag(), request.sinkOffset(), new byte[8]);
            for (long expected = 1; expected <= 2; expected++) {
                assertEquals(1, c.awaitCompletion(wc), "completion " + expected);
                assertEquals(WcStatus.SUCCESS, wc.status(0), wc.toString(0));
                assertEquals(expected, wc.wrId(0), "in posting order");
            }
        }
    }
}

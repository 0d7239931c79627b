package org.rdmablock.verbs.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rdmablock.verbs.ConnectionParameters;
import org.rdmablock.verbs.MemoryRegion;
import org.rdmablock.verbs.SendFlags;
import org.rdmablock.verbs.SendOpcode;
import org.rdmablock.verbs.SendWorkRequest;
import org.rdmablock.verbs.WcStatus;
import org.rdmablock.verbs.WorkCompletions;
import org.rdmablock.verbs.soft.wire.RdmapOpcode;
import org.rdmablock.verbs.soft.wire.ReadRequest;

/**
 * The confirmation reads count against the peer's IRD like any READ: with ORD 1 (the peer grants IRD 1), a second
 * signaled SEND waits for the first confirmation's response before its own confirmation goes out. Sending it at
 * once put two reads before a peer that takes one, which terminates the connection (soft peers did: a target
 * answering at queue depth 64 lost its channel, "terminate 0/2/0x7", IRD exceeded).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ConfirmationReadDepthTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    /** How long the peer listens for a read that must not come. */
    private static final Duration QUIET = Duration.ofMillis(300);

    @Test
    void confirmationReadsStayWithinThePeersIrd() throws Exception {
        try (ScriptedConnection c = new ScriptedConnection(ConnectionParameters.of(new byte[0]), qp -> { }, 1)) {
            final MemoryRegion buffer = c.register(16);
            final SendWorkRequest first = new SendWorkRequest().wrId(1).opcode(SendOpcode.SEND).flags(SendFlags.SIGNALED);
            first.sgl().add(buffer, 0, 16);
            c.qp.postSend(first);
            c.peer.await(RdmapOpcode.SEND, TIMEOUT);
            final ReadRequest probe = c.peer.await(RdmapOpcode.READ_REQUEST, TIMEOUT).readRequest();

            final SendWorkRequest second = new SendWorkRequest().wrId(2).opcode(SendOpcode.SEND).flags(SendFlags.SIGNALED);
            second.sgl().add(buffer, 0, 16);
            c.qp.postSend(second);
            c.peer.await(RdmapOpcode.SEND, TIMEOUT);
            final WirePeer.Received early = c.peer.next(QUIET);
            assertNull(early, "a second read while the peer's only IRD slot is taken: opcode " + (early == null ? -1 : early.opcode()));

            c.peer.sendReadResponse(probe.sinkStag(), probe.sinkOffset(), new byte[0]);
            final ReadRequest next = c.peer.await(RdmapOpcode.READ_REQUEST, TIMEOUT).readRequest();
            c.peer.sendReadResponse(next.sinkStag(), next.sinkOffset(), new byte[0]);
            final WorkCompletions wc = new WorkCompletions(4);
            for (long expected = 1; expected <= 2; expected++) {
                assertEquals(1, c.awaitCompletion(wc), "completion of SEND " + expected);
                assertEquals(WcStatus.SUCCESS, wc.status(0), wc.toString(0));
                assertEquals(expected, wc.wrId(0));
            }
        }
    }
}

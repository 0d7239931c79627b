package org.rdmablock.verbs.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rdmablock.verbs.ConnectionParameters;
import org.rdmablock.verbs.MemoryRegion;
import org.rdmablock.verbs.QueuePairState;
import org.rdmablock.verbs.SendFlags;
import org.rdmablock.verbs.SendOpcode;
import org.rdmablock.verbs.SendWorkRequest;
import org.rdmablock.verbs.WcStatus;
import org.rdmablock.verbs.WorkCompletions;
import org.rdmablock.verbs.soft.wire.RdmapOpcode;
import org.rdmablock.verbs.soft.wire.ReadRequest;

/**
 * Behaviour of Linux's siw that the soft provider must survive, replayed byte for byte by a {@link WirePeer}.
 *
 * <p>siw (Linux 6.1, drivers/infiniband/sw/siw) answers a READ Request at once when its transmitter is idle, and
 * otherwise parks it in its inbound read queue. {@code siw_activate_tx} later starts the response from that entry,
 * but for a zero-length request it sets {@code num_sge = 0} and leaves {@code sge[0]} as the previous work request
 * left it; {@code siw_qp_sq_proc_tx} then forces {@code num_sge = 1} for every READ response, so the response
 * carries the previous request's bytes (rping's 16-byte buffer advertisement, in the QEMU interop runs). The soft
 * provider's confirmation reads are zero-length READs; taking that payload as a protocol violation terminated the
 * connection whenever the read met a busy siw transmitter (captured in deploy/qemu/interop-loop.sh runs: a
 * 30-byte ULPDU answering the zero-length READ, then our Terminate DDP/tagged/invalid STag, siw's dmesg
 * "got TERMINATE. layer 1, type 1, code 0").
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SiwQuirksTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private static ScriptedConnection connect() throws Exception {
        return new ScriptedConnection(ConnectionParameters.of(new byte[0]), qp -> { }, 1);
    }

    @Test
    void aZeroLengthReadAnsweredWithThePreviousRequestsBytesStillConfirmsTheSend() throws Exception {
        try (ScriptedConnection c = connect()) {
            final MemoryRegion buffer = c.register(16);
            final WorkCompletions wc = new WorkCompletions(4);
            for (int round = 0; round < 3; round++) {
                final SendWorkRequest send = new SendWorkRequest().wrId(round).opcode(SendOpcode.SEND).flags(SendFlags.SIGNALED);
                send.sgl().add(buffer, 0, 16);
                c.qp.postSend(send);
                final WirePeer.Received sent = c.peer.await(RdmapOpcode.SEND, TIMEOUT);
                assertEquals(16, sent.payloadLength());
                final WirePeer.Received probe = c.peer.await(RdmapOpcode.READ_REQUEST, TIMEOUT);
                final ReadRequest read = probe.readRequest();
                assertEquals(0, read.size(), "the confirmation read is zero-length");
                // siw's stale answer: the 16 bytes of the request it transmitted before, to the read's sink
                c.peer.sendReadResponse(read.sinkStag(), read.sinkOffset(), "0123456789abcdef".getBytes());
                assertEquals(1, c.awaitCompletion(wc), "round " + round);
                assertEquals(WcStatus.SUCCESS, wc.status(0), wc.toString(0));
                assertEquals(round, wc.wrId(0));
                assertEquals(QueuePairState.RTS, c.qp.state());
            }
        }
    }

    @Test
    void aReadResponseLongerThanARealReadStillTerminates() throws Exception {
        // the tolerance is for the confirmation read's sink only: a real READ's sink is memory, its bounds hold
        try (ScriptedConnection c = connect()) {
            final MemoryRegion sink = c.register(16);
            final SendWorkRequest read = new SendWorkRequest().wrId(7).opcode(SendOpcode.RDMA_READ).flags(SendFlags.SIGNALED)
                .remote(0x1000, 0x100);
            read.sgl().add(sink, 0, 8);
            c.qp.postSend(read);
            final ReadRequest request = c.peer.await(RdmapOpcode.READ_REQUEST, TIMEOUT).readRequest();
            assertEquals(8, request.size());
            c.peer.sendReadResponse(request.sinkStag(), request.sinkOffset(), new byte[16]);
            final WorkCompletions wc = new WorkCompletions(4);
            assertEquals(1, c.awaitCompletion(wc));
            assertTrue(wc.status(0) != WcStatus.SUCCESS, wc.toString(0));
            assertEquals(RdmapOpcode.TERMINATE, c.peer.await(RdmapOpcode.TERMINATE, TIMEOUT).opcode());
        }
    }
}

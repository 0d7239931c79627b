package org.rdmablock.verbs.soft;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.rdmablock.verbs.Await;
import org.rdmablock.verbs.ConnectionParameters;
import org.rdmablock.verbs.MemoryRegion;
import org.rdmablock.verbs.QueuePairState;
import org.rdmablock.verbs.SendFlags;
import org.rdmablock.verbs.SendOpcode;
import org.rdmablock.verbs.SendWorkRequest;
import org.rdmablock.verbs.WcStatus;
import org.rdmablock.verbs.WorkCompletions;

/**
 * Registered memory that faults when read: a mapped file cut short under its registration (the target serves a file
 * LUN's cached READs from such a mapping). Sending from it raises SIGBUS, which the JVM turns into an
 * {@link InternalError} in the copying thread; the QP must fail with an error completion, and the thread that posted
 * (the target's poller) must not get the error.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MappedFileFaultTest {
    private static final int SIZE = 64 * 1024;

    @TempDir
    Path dir;

    @Test
    void aSendFromAMappingCutShortFailsTheQueuePairNotThePoster() throws Exception {
        final Path file = dir.resolve("lun.img");
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                StandardOpenOption.WRITE); Arena arena = Arena.ofShared();
             ScriptedConnection c = new ScriptedConnection(new ConnectionParameters(new byte[0], 4, 4, 3, 7), qp -> { }, 4)) {
            channel.write(ByteBuffer.allocate(SIZE), 0);
            final MemorySegment mapping = channel.map(FileChannel.MapMode.READ_ONLY, 0, SIZE, arena);
            final MemoryRegion region = c.pd.registerMemory(mapping, 0);
            channel.truncate(0); // every mapped page now lies beyond the end of the file

            final SendWorkRequest write = new SendWorkRequest().wrId(7).opcode(SendOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                .remote(0x1000, 0x1234);
            write.sgl().add(region, 0, SIZE);
            assertDoesNotThrow(() -> c.qp.postSend(write), "the fault stays in the provider");

            final WorkCompletions wc = new WorkCompletions(4);
            final int n = Await.atMost("the WRITE's completion", ScriptedConnection.TIMEOUT).until(() -> c.cq.poll(wc, 4), count -> count > 0);
            assertEquals(1, n, "the WRITE completes");
            assertEquals(7, wc.wrId(0));
            assertNotEquals(WcStatus.SUCCESS, wc.status(0), "with an error: " + wc.toString(0));
            assertTrue(c.qp.state() == QueuePairState.ERR, "and the QP is in ERR, not " + c.qp.state());
        }
    }
}

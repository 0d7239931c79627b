package org.rdmablock.tools.mount;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rdmablock.initiator.InitiatorConfig;
import org.rdmablock.initiator.SrpInitiator;
import org.rdmablock.tools.session.EmbeddedTarget;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link LunFile}'s direct pieces: a large whole-block read or write registers libfuse's buffer (here a direct buffer
 * standing in for it) for that one transfer, and the bytes land where a copying file (no registrar) finds them; small,
 * partial or heap pieces still go through the slot.
 */
class LunFileDirectTest {
    private static final int MIB = 1 << 20;

    @Test
    @Timeout(120)
    void largeWholeBlockPiecesMoveStraightBetweenTheBufferAndTheTarget() throws Exception {
        try (EmbeddedTarget target = EmbeddedTarget.start("memory", 16L << 20, null, "soft");
             SrpInitiator initiator = SrpInitiator.connect(InitiatorConfig.of("soft", EmbeddedTarget.ADDRESS,
                     target.address().getPort()).withTargetPortId(target.idExt(), target.idExt()))) {
            assertTrue(initiator.registrationIsCheap(), "the soft provider registers without pinning");
            final List<MemorySegment> registered = new ArrayList<>();
            final SlotPool slots = new SlotPool(2, initiator::allocateBuffer);
            final LunFile direct = new LunFile(initiator.lun(0), slots, 5, memory -> {
                registered.add(memory);
                return initiator.registerMemory(memory);
            });
            final LunFile copying = new LunFile(initiator.lun(0), slots, 5);

            final byte[] data = new byte[MIB];
            new Random(3).nextBytes(data);
            final ByteBuffer fuseBuffer = ByteBuffer.allocateDirect(2 * MIB);
            fuseBuffer.put(0, data);
            assertEquals(MIB, direct.write(fuseBuffer, MIB, 4L * MIB, false));
            assertEquals(1, registered.size(), "the 1 MiB write went straight from the buffer");
            assertEquals(MemorySegment.ofBuffer(fuseBuffer).address(), registered.get(0).address());
            assertEquals(MIB, registered.get(0).byteSize());

            final ByteBuffer copied = ByteBuffer.allocateDirect(MIB);
            assertEquals(MIB, copying.read(copied, MIB, 4L * MIB));
            assertArrayEquals(data, bytes(copied, 0, MIB), "the LUN holds the write's bytes");

            final ByteBuffer back = ByteBuffer.allocateDirect(MIB);
            assertEquals(MIB, direct.read(back, MIB, 4L * MIB));
            assertEquals(2, registered.size(), "the 1 MiB read went straight into the buffer");
            assertArrayEquals(data, bytes(back, 0, MIB), "the target wrote the LUN's bytes into the buffer");

            // small, unaligned and heap pieces copy through the slot
            assertEquals(4096, direct.read(back, 4096, 4L * MIB));
            assertEquals(MIB - 4096, direct.read(back, MIB - 4096, 4L * MIB + 100));
            assertArrayEquals(Arrays.copyOfRange(data, 100, 100 + MIB - 4096), bytes(back, 0, MIB - 4096));
            final ByteBuffer heap = ByteBuffer.allocate(MIB);
            assertEquals(MIB, direct.read(heap, MIB, 4L * MIB));
            assertArrayEquals(data, bytes(heap, 0, MIB));
            assertEquals(2, registered.size(), "nothing else was registered");
        }
    }

    private static byte[] bytes(final ByteBuffer buffer, final int from, final int length) {
        final byte[] out = new byte[length];
        buffer.get(from, out);
        return out;
    }
}

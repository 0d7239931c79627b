package org.rdmablock.tools.mount;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rdmablock.initiator.InitiatorConfig;
import org.rdmablock.initiator.SrpInitiator;
import org.rdmablock.tools.session.EmbeddedTarget;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The mount's own part of an I/O allocates nothing: {@link LunFile} reads and writes (aligned 4 KiB, unaligned with
 * read-modify-write, 1 MiB) on this thread, as a FUSE worker thread makes them, through its registered slot. What
 * jfuse allocates per call before it reaches us (the path's String, a ByteBuffer, a FileInfo) is not counted here.
 */
class LunFileAllocationTest {
    private static final int WARMUP = 5_000;
    private static final int OPERATIONS = 20_000;
    private static final int WINDOWS = 3;
    /** Below one allocation per 300 operations: a window of 20 000 allocating under 1000 bytes passes. */
    private static final double MAX_BYTES_PER_OPERATION = 0.05;

    @Test
    @Timeout(180)
    void readsAndWritesAllocateNothingOnTheCallingThread() throws Exception {
        try (EmbeddedTarget target = EmbeddedTarget.start("memory", 64L << 20, null, "soft");
             SrpInitiator initiator = SrpInitiator.connect(InitiatorConfig.of("soft", EmbeddedTarget.ADDRESS, target.address().getPort())
                     .withTargetPortId(target.idExt(), target.idExt()).withBounceBytes(4096))) {
            final SlotPool slots = new SlotPool(2, initiator::allocateBuffer);
            final LunFile file = new LunFile(initiator.lun(0), slots, 5);
            final ByteBuffer fuseBuffer = ByteBuffer.allocateDirect(1 << 20); // libfuse's buffer stands in
            run(file, fuseBuffer, WARMUP); // JIT, the slot's claim, the ThreadLocal's entry
            final com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            final long self = Thread.currentThread().threadId();
            // A window may hold a one-off allocation (a deoptimisation on a loaded machine rematerialises objects, a
            // branch first taken there links its call site): the first clean window passes. An allocation per
            // operation, even 16 bytes, shows in every window (320 000 bytes), so three chances do not hide it.
            final long[] windows = new long[WINDOWS];
            for (int w = 0; w < WINDOWS; w++) {
                final long before = threads.getThreadAllocatedBytes(self);
                run(file, fuseBuffer, OPERATIONS);
                windows[w] = threads.getThreadAllocatedBytes(self) - before;
                if ((double) windows[w] / OPERATIONS < MAX_BYTES_PER_OPERATION) {
                    return;
                }
            }
            fail("every window of " + OPERATIONS + " operations allocated: " + Arrays.toString(windows) + " bytes (at most "
                    + MAX_BYTES_PER_OPERATION * OPERATIONS + " in one passes)");
        }
    }

    /** Mixed operations; each must move all its bytes. */
    private static void run(final LunFile file, final ByteBuffer buffer, final int operations) {
        for (int i = 0; i < operations; i++) {
            final long at = (i * 7919L % 8000) * 4096;
            final int rc = switch (i % 5) {
                case 0 -> file.read(buffer, 4096, at);
                case 1 -> file.write(buffer, 4096, at, false);
                case 2 -> file.write(buffer, 1000, at + 100, false); // read-modify-write of two blocks
                case 3 -> file.read(buffer, 1000, at + 700);
                default -> i % 50 == 4 ? file.write(buffer, 1 << 20, (i % 32) << 20, false) : file.read(buffer, 4096, at);
            };
            final int expected = switch (i % 5) {
                case 2, 3 -> 1000;
                default -> i % 50 == 4 ? 1 << 20 : 4096;
            };
            if (rc != expected) { // the message only on failure: building it would allocate
                assertEquals(expected, rc, "operation " + i);
            }
        }
    }
}

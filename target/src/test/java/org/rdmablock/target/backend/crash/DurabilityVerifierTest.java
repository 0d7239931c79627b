package org.rdmablock.target.backend.crash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Collections;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The verifier accepts exactly what a crash may leave: the acknowledged version, or an in-flight write's (whole or
 * mixed sector by sector with the acknowledged one), or zeroes where nothing was acknowledged; it reports an older
 * version, zeroes after an acknowledgement, a version nobody issued and a corrupt sector. Checked on a device in memory
 * whose blocks the test sets by hand.
 */
class DurabilityVerifierTest {
    private static final int BLOCK = 4096;
    private final WriteSchedule schedule = new WriteSchedule(77, 2, 8, BLOCK);
    private final Arena arena = Arena.ofConfined();
    private final MemorySegment device = arena.allocate((long) schedule.blocks() * BLOCK);
    private final BlockReader reader = (block, buffer) -> MemorySegment.copy(device, block * BLOCK, buffer, 0, BLOCK);

    @AfterEach
    void free() {
        arena.close();
    }

    /** Writer 0 wrote seqs 0..last, as the writer would (each to its block), and acknowledged them all. */
    private AcknowledgedWrites writeAndAcknowledge(int writer, long last) {
        AcknowledgedWrites acks = new AcknowledgedWrites(schedule.writers());
        for (long seq = 0; seq <= last; seq++) {
            write(writer, seq);
            acks.record(AcknowledgedWrites.line(writer, seq));
        }
        return acks;
    }

    private long write(int writer, long seq) {
        long block = schedule.blockOf(writer, seq);
        schedule.fill(device, block * BLOCK, block, seq);
        return block;
    }

    @Test
    void whatTheWriterLeftPassesAndTheCountsSaySo() {
        AcknowledgedWrites acks = writeAndAcknowledge(0, 20);
        DurabilityVerifier.Result result = DurabilityVerifier.verify(schedule, acks, 1, reader);
        assertTrue(result.ok(), result.problems().toString());
        assertEquals(8, result.blocks());
        assertEquals(4, result.acknowledgedBlocks(), "writer 0 owns 4 of 8 blocks and 21 writes reach them all");
        assertEquals(0, result.newerThanAcknowledged());
    }

    @Test
    void anInFlightWriteMayLandWholeOrTornWithTheAcknowledgedVersion() {
        AcknowledgedWrites acks = writeAndAcknowledge(0, 20);
        long block = schedule.blockOf(0, 21);
        MemorySegment acknowledgedVersion = arena.allocate(BLOCK);
        MemorySegment.copy(device, block * BLOCK, acknowledgedVersion, 0, BLOCK);
        write(0, 21);
        DurabilityVerifier.Result landed = DurabilityVerifier.verify(schedule, acks, 1, reader);
        assertTrue(landed.ok(), landed.problems().toString());
        assertEquals(1, landed.newerThanAcknowledged());

        MemorySegment.copy(acknowledgedVersion, 0, device, block * BLOCK, BLOCK / 2); // first half old, second half new
        DurabilityVerifier.Result torn = DurabilityVerifier.verify(schedule, acks, 1, reader);
        assertTrue(torn.ok(), torn.problems().toString());
        assertEquals(1, torn.tornByUnacknowledged());

        DurabilityVerifier.Result notInFlight = DurabilityVerifier.verify(schedule, acks, 0, reader);
        assertFalse(notInFlight.ok(), "with no write in flight, a torn block is a loss");
    }

    @Test
    void anOlderVersionThanTheAcknowledgedOneIsALoss() {
        AcknowledgedWrites acks = writeAndAcknowledge(0, 20);
        long block = schedule.blockOf(0, 20);
        long older = 19;
        while (schedule.blockOf(0, older) != block) {
            older--;
        }
        schedule.fill(device, block * BLOCK, block, older);
        DurabilityVerifier.Result result = DurabilityVerifier.verify(schedule, acks, 1, reader);
        assertEquals(List.of("block " + block + " (writer 0): acknowledged seq 20, holds sectors ["
                + String.join(", ", Collections.nCopies(BLOCK / WriteSchedule.SECTOR_BYTES, "seq " + older)) + "]"), result.problems());
    }

    @Test
    void zeroesAfterAnAcknowledgementAreALossAndBeforeOneAreNot() {
        AcknowledgedWrites acks = writeAndAcknowledge(0, 20);
        long block = schedule.blockOf(0, 20);
        device.asSlice(block * BLOCK, BLOCK).fill((byte) 0);
        DurabilityVerifier.Result result = DurabilityVerifier.verify(schedule, acks, 1, reader);
        assertEquals(1, result.problems().size(), result.problems().toString());
        assertTrue(result.problems().getFirst().contains("holds sectors [zeroes"), result.problems().toString());
        // writer 1 acknowledged nothing: its blocks are zeroes and that is right
        assertTrue(result.problems().stream().noneMatch(p -> p.contains("(writer 1)")));
    }

    @Test
    void aVersionNobodyIssuedAndACorruptSectorAreReported() {
        AcknowledgedWrites acks = writeAndAcknowledge(0, 20);
        long block = schedule.blockOf(0, 20);
        schedule.fill(device, block * BLOCK, block, 500); // from the future: never issued
        assertFalse(DurabilityVerifier.verify(schedule, acks, 1, reader).ok());

        schedule.fill(device, block * BLOCK, block, 20);
        device.set(java.lang.foreign.ValueLayout.JAVA_BYTE, block * BLOCK + 1000, (byte) 1); // one flipped byte
        DurabilityVerifier.Result result = DurabilityVerifier.verify(schedule, acks, 1, reader);
        assertEquals(1, result.problems().size());
        assertTrue(result.problems().getFirst().contains("corrupt"), result.problems().toString());
    }

    @Test
    void acknowledgementsOutOfOrderMeanABrokenWriter() {
        AcknowledgedWrites acks = new AcknowledgedWrites(2);
        assertTrue(acks.record(AcknowledgedWrites.line(1, 0)));
        assertFalse(acks.record("Unable to load shared library"), "other output is not an acknowledgement");
        assertThrows(IllegalStateException.class, () -> acks.record(AcknowledgedWrites.line(1, 2)));
    }
}

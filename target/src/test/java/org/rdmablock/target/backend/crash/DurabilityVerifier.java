package org.rdmablock.target.backend.crash;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Checks, after a crash, that every acknowledged write survived: each block must hold the version of its last
 * acknowledged write, or of a later write that was issued but not yet acknowledged when the writer died (it may have
 * landed), never an older one and never zeroes once a write to it was acknowledged. A block that mixes versions sector by
 * sector is accepted only where an unacknowledged write to it was in flight (a write that did not complete may leave
 * its blocks half written), and only as a mix of that write and the acknowledged version. Runs on the calling thread.
 */
public final class DurabilityVerifier {
    private DurabilityVerifier() {
    }

    /**
     * What the check found.
     *
     * @param blocks                blocks read
     * @param acknowledgedBlocks    blocks with at least one acknowledged write
     * @param newerThanAcknowledged blocks holding the version of an unacknowledged write that landed whole
     * @param tornByUnacknowledged  blocks mixing the acknowledged version with an unacknowledged write's
     * @param problems              one line per block that lost an acknowledged write or holds what nobody wrote
     */
    public record Result(int blocks, int acknowledgedBlocks, int newerThanAcknowledged, int tornByUnacknowledged,
                         List<String> problems) {
        public boolean ok() {
            return problems.isEmpty();
        }
    }

    /**
     * Reads every block of {@code schedule} through {@code reader} and checks it against {@code acks}.
     *
     * @param maxInFlight writes each writer may have issued past its last acknowledged one (1 for a writer that waits
     *                    for each write before the next)
     */
    public static Result verify(WriteSchedule schedule, AcknowledgedWrites acks, int maxInFlight, BlockReader reader) {
        int blocks = schedule.blocks();
        long[] acknowledged = new long[blocks];
        Arrays.fill(acknowledged, WriteSchedule.NEVER_WRITTEN);
        List<List<Long>> inFlight = new ArrayList<>();
        for (int b = 0; b < blocks; b++) {
            inFlight.add(new ArrayList<>());
        }
        for (int w = 0; w < schedule.writers(); w++) {
            long last = acks.lastAcknowledged(w);
            for (long seq = 0; seq <= last; seq++) {
                acknowledged[(int) schedule.blockOf(w, seq)] = seq;
            }
            for (long seq = last + 1; seq <= last + maxInFlight; seq++) {
                inFlight.get((int) schedule.blockOf(w, seq)).add(seq);
            }
        }
        int acknowledgedBlocks = 0;
        int newer = 0;
        int torn = 0;
        List<String> problems = new ArrayList<>();
        int sectors = schedule.blockSize() / WriteSchedule.SECTOR_BYTES;
        long[] versions = new long[sectors];
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buffer = arena.allocate(schedule.blockSize(), 4096);
            for (int block = 0; block < blocks; block++) {
                buffer.fill((byte) 0x5A);
                reader.read(block, buffer);
                for (int s = 0; s < sectors; s++) {
                    versions[s] = schedule.sectorVersion(buffer, 0, block, s);
                }
                long acked = acknowledged[block];
                List<Long> pending = inFlight.get(block);
                if (acked != WriteSchedule.NEVER_WRITTEN) {
                    acknowledgedBlocks++;
                }
                boolean whole = Arrays.stream(versions).allMatch(v -> v == versions[0]);
                if (whole && versions[0] == acked) {
                    continue;
                }
                if (whole && pending.contains(versions[0])) {
                    newer++;
                    continue;
                }
                boolean mixOfAckedAndPending = !pending.isEmpty()
                        && Arrays.stream(versions).allMatch(v -> v == acked || pending.contains(v));
                if (!whole && mixOfAckedAndPending) {
                    torn++;
                    continue;
                }
                problems.add("block " + block + " (writer " + schedule.writerOf(block) + "): acknowledged "
                        + (acked == WriteSchedule.NEVER_WRITTEN ? "nothing" : "seq " + acked)
                        + (pending.isEmpty() ? "" : ", in flight " + pending) + ", holds " + describe(versions));
            }
        }
        return new Result(blocks, acknowledgedBlocks, newer, torn, problems);
    }

    private static String describe(long[] versions) {
        StringBuilder text = new StringBuilder("sectors [");
        for (int s = 0; s < versions.length; s++) {
            text.append(s == 0 ? "" : ", ").append(versions[s] == WriteSchedule.NEVER_WRITTEN ? "zeroes"
                    : versions[s] == WriteSchedule.CORRUPT ? "corrupt" : "seq " + versions[s]);
        }
        return text.append(']').toString();
    }
}

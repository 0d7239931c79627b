package org.rdmablock.protocol.fuzz;

import org.junit.jupiter.api.Test;
import org.rdmablock.protocol.srp.SrpDecodeError;
import org.rdmablock.protocol.srp.SrpIuDecoder;

import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/**
 * Every prefix of every SRP seed, under several negotiated immediate-data offsets: the boundary cases a
 * random fuzzer rarely hits (an IU cut inside a descriptor or just before its immediate data). Each
 * prefix sits in a segment of exactly its size, so a read past it throws and fails the test.
 */
class SeedTruncationTest {
    @Test
    void everyPrefixOfEverySeedDecodesOrFailsCleanly() {
        int decoded = 0;
        for (SeedCorpus.Seed seed : SeedCorpus.srp()) {
            byte[] bytes = seed.bytes();
            for (int immediateDataOffset : new int[]{0, 52, SeedCorpusWriter.IMMEDIATE_DATA_OFFSET, 200, 65535}) {
                SrpIuDecoder decoder = new SrpIuDecoder().immediateDataOffset(immediateDataOffset);
                for (int length = 0; length <= bytes.length; length++) {
                    MemorySegment exact = MemorySegment.ofArray(bytes).asSlice(0, length);
                    SrpDecodeError error = decoder.decode(exact, 0, length);
                    if (error == SrpDecodeError.NONE) {
                        decoded++;
                        assertNotEquals(-1, decoder.opcode());
                    }
                }
            }
        }
        // Each seed decodes at full length at least under the offset it was written for.
        assertEquals(true, decoded >= SeedCorpus.srp().size());
    }
}

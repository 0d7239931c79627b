package org.rdmablock.protocol.fuzz;

import org.junit.jupiter.api.Test;
import org.rdmablock.protocol.scsi.CdbDecoder;
import org.rdmablock.protocol.srp.SrpDecodeError;
import org.rdmablock.protocol.srp.SrpIuDecoder;

import java.lang.foreign.MemorySegment;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The committed corpus is what the writer produces, and every seed is a valid IU or CDB. */
class SeedCorpusTest {
    @Test
    void committedCorpusMatchesTheWriter() {
        Map<String, byte[]> srp = SeedCorpusWriter.srpSeeds();
        Map<String, byte[]> cdb = SeedCorpusWriter.cdbSeeds();
        assertEquals(srp.size(), SeedCorpus.srp().size());
        assertEquals(cdb.size(), SeedCorpus.cdb().size());
        for (SeedCorpus.Seed seed : SeedCorpus.srp()) {
            assertArrayEquals(srp.get(seed.name().replace(".hex", "")), seed.bytes(), seed.name());
        }
        for (SeedCorpus.Seed seed : SeedCorpus.cdb()) {
            assertArrayEquals(cdb.get(seed.name().replace(".hex", "")), seed.bytes(), seed.name());
        }
    }

    @Test
    void everySrpSeedDecodes() {
        SrpIuDecoder decoder = new SrpIuDecoder().immediateDataOffset(SeedCorpusWriter.IMMEDIATE_DATA_OFFSET);
        assertTrue(SeedCorpus.srp().size() >= 20);
        for (SeedCorpus.Seed seed : SeedCorpus.srp()) {
            assertEquals(SrpDecodeError.NONE, decoder.decode(MemorySegment.ofArray(seed.bytes()), 0, seed.bytes().length), seed.name());
        }
    }

    @Test
    void everyCdbSeedDecodes() {
        CdbDecoder decoder = new CdbDecoder();
        assertTrue(SeedCorpus.cdb().size() >= 30);
        for (SeedCorpus.Seed seed : SeedCorpus.cdb()) {
            assertTrue(decoder.decode(MemorySegment.ofArray(seed.bytes()), 0, seed.bytes().length),
                    () -> seed.name() + ": " + decoder.error());
        }
    }
}

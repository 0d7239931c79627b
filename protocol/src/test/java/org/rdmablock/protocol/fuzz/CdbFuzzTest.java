package org.rdmablock.protocol.fuzz;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.rdmablock.protocol.scsi.CdbDecoder;
import org.rdmablock.protocol.scsi.InMemoryBackend;
import org.rdmablock.protocol.scsi.LogicalUnit;
import org.rdmablock.protocol.scsi.LogicalUnitConfig;
import org.rdmablock.protocol.scsi.ResidualKind;
import org.rdmablock.protocol.scsi.ScsiCommand;
import org.rdmablock.protocol.scsi.ScsiStatus;
import org.rdmablock.protocol.scsi.SenseCode;
import org.rdmablock.protocol.scsi.SenseData;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Fuzzes the CDB decoder and the whole LUN engine: any CDB, with any data-out bytes and any offered
 * lengths, completes exactly once with GOOD or CHECK CONDITION and well-formed sense, never throws,
 * and never reports more data-in than was offered.
 */
class CdbFuzzTest {
    private static final int BUFFER = 1 << 17;
    private final InMemoryBackend backend = new InMemoryBackend(1 << 20);
    private final LogicalUnit unit = new LogicalUnit(LogicalUnitConfig.builder().serialNumber("FUZZ").thinProvisioning(true)
            .maxTransferBytes(1 << 16).maxWriteSameBlocks(256).build(), backend);
    private final MemorySegment buffer = Arena.ofAuto().allocate(BUFFER);
    private final ScsiCommand cmd = new ScsiCommand();
    private int completions;

    CdbFuzzTest() {
        cmd.setCompletion(c -> completions++);
    }

    @Property
    void decoderAcceptsOrNamesTheError(@ForAll @Size(max = 40) byte[] cdb, @ForAll @IntRange(max = 8) int prefix) {
        byte[] backing = new byte[prefix + cdb.length];
        System.arraycopy(cdb, 0, backing, prefix, cdb.length);
        CdbDecoder decoder = new CdbDecoder();
        if (decoder.decode(MemorySegment.ofArray(backing).asSlice(prefix), 0, cdb.length)) {
            assertNotNull(decoder.kind());
            assertNull(decoder.error());
            assertTrue(decoder.cdbLength() <= cdb.length);
        } else {
            assertNull(decoder.kind());
            assertTrue(decoder.error() == SenseCode.INVALID_COMMAND_OPERATION_CODE || decoder.error() == SenseCode.INVALID_FIELD_IN_CDB);
            assertTrue(decoder.errorField() < Math.max(1, cdb.length));
        }
    }

    @Property
    void engineCompletesRandomCdbs(@ForAll @Size(min = 1, max = 32) byte[] cdb, @ForAll @Size(max = 512) byte[] dataOut,
                                   @ForAll @IntRange(max = BUFFER) int expectedIn) {
        execute(cdb, dataOut, expectedIn);
    }

    @Property
    void engineCompletesMutatedCdbs(@ForAll("mutatedCdbs") byte[] cdb, @ForAll("parameterData") byte[] dataOut,
                                    @ForAll @IntRange(max = 70_000) int expectedIn) {
        if (cdb.length > 0 && cdb.length <= ScsiCommand.MAX_CDB_LENGTH) {
            execute(cdb, dataOut, expectedIn);
        }
    }

    @Provide
    Arbitrary<byte[]> mutatedCdbs() {
        return Mutations.mutated(SeedCorpus.cdb());
    }

    /** Data-out that sometimes looks like a parameter list: UNMAP and MODE SELECT headers with random tails. */
    @Provide
    Arbitrary<byte[]> parameterData() {
        Arbitrary<byte[]> random = Arbitraries.bytes().array(byte[].class).ofMaxSize(4096);
        Arbitrary<byte[]> unmapList = Arbitraries.longs().between(0, 4096).list().ofMinSize(2).ofMaxSize(8).map(values -> {
            int count = values.size() / 2;
            java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(8 + 16 * count);
            b.putShort(0, (short) (6 + 16 * count)).putShort(2, (short) (16 * count));
            for (int i = 0; i < count; i++) {
                b.putLong(8 + 16 * i, values.get(2 * i)).putInt(16 + 16 * i, (int) (long) values.get(2 * i + 1));
            }
            return b.array();
        });
        return Arbitraries.oneOf(random, unmapList);
    }

    private void execute(byte[] cdb, byte[] dataOut, int expectedIn) {
        MemorySegment.copy(dataOut, 0, buffer, ValueLayout.JAVA_BYTE, 0, dataOut.length);
        int before = completions;
        cmd.setCdb(cdb).setDataBuffer(buffer, 0, BUFFER).setExpectedLengths(dataOut.length, expectedIn);
        unit.execute(cmd);
        assertEquals(before + 1, completions, "exactly one completion");
        int status = cmd.status();
        assertTrue(status == ScsiStatus.GOOD || status == ScsiStatus.CHECK_CONDITION, "status " + status);
        assertTrue(cmd.dataInLength() <= expectedIn);
        if (status == ScsiStatus.CHECK_CONDITION) {
            int key = SenseData.senseKey(cmd.senseData(), 0, cmd.senseLength());
            assertTrue(key > 0 && key <= 0xB, "sense key " + key);
            assertEquals(0, cmd.dataInLength());
        } else {
            assertEquals(0, cmd.senseLength());
            long unused = expectedIn - cmd.dataInLength();
            assertEquals(cmd.dataInResidualKind() == ResidualKind.UNDERFLOW ? unused : 0, cmd.dataInResidualKind() == ResidualKind.UNDERFLOW ? cmd.dataInResidual() : unused);
        }
    }
}

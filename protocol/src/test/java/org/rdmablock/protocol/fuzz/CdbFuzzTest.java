package org.rdmablock.protocol.fuzz;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.rdmablock.protocol.scsi.CdbDecoder;
import org.rdmablock.protocol.scsi.CommandKind;
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
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Fuzzes the CDB decoder and the whole LUN engine: any CDB, with any data-out bytes and any offered
 * lengths, completes exactly once with GOOD or CHECK CONDITION and well-formed sense, never throws,
 * never reports more data-in than was offered, and never asks its backend for a range outside the device
 * or the data buffer ({@link SparseBackend} checks).
 *
 * <p>Each engine input gets a fresh {@link LogicalUnit}, backend and {@link ScsiCommand}, in a unit shape
 * (block size, provisioning, caching, read-only, sense format) drawn with the input, and a zeroed data
 * buffer: an iteration depends on nothing that ran before it, so a failure replays alone from the seed and
 * iteration number the report prints.
 */
class CdbFuzzTest {
    private static final int BUFFER = 1 << 17;
    /** A sparse device: large enough for the seeds' LBAs, and free until written. */
    private static final long DEVICE_BYTES = 16L << 20;
    private static final Mutations SEEDS = Mutations.cdb();
    /** Engine iterations in CI: each builds a unit and runs a command, several times the cost of a decode. */
    private static final long ENGINE_CI_ITERATIONS = 20_000;
    private final MemorySegment buffer = Arena.ofAuto().allocate(BUFFER);

    /** How the fresh unit of one engine input is configured. */
    record UnitShape(int blockSize, boolean thinProvisioning, boolean writeCache, boolean readOnly, boolean descriptorSense,
                     boolean unmapReadsZeroes) {
        static UnitShape random(Random r) {
            return new UnitShape(r.nextBoolean() ? 512 : 4096, r.nextInt(4) != 0, r.nextInt(4) != 0, r.nextInt(8) == 0,
                    r.nextInt(4) == 0, r.nextInt(4) != 0);
        }

        LogicalUnitConfig config() {
            return CONFIGS.computeIfAbsent(this, s -> LogicalUnitConfig.builder().serialNumber("FUZZ").blockSize(s.blockSize)
                    .thinProvisioning(s.thinProvisioning).writeCacheEnabled(s.writeCache).readOnly(s.readOnly)
                    .descriptorSense(s.descriptorSense).maxTransferBytes(1 << 16).maxWriteSameBlocks(256).build());
        }
    }

    /** Built once per shape: building a config (the NAA identifier from the serial) is not what is fuzzed. */
    private static final Map<UnitShape, LogicalUnitConfig> CONFIGS = new ConcurrentHashMap<>();

    /** A CDB placed {@code prefix} bytes into its backing array. */
    record DecoderInput(byte[] cdb, int prefix) {
        Stream<DecoderInput> shrink() {
            return Stream.concat(Shrinkers.bytes(cdb).map(c -> new DecoderInput(c, prefix)),
                    Shrinkers.toward(prefix, 0).mapToObj(p -> new DecoderInput(cdb, p)));
        }
    }

    /**
     * A command for a fresh engine: its CDB, the data-out bytes in the buffer, the data-in length offered and
     * the shape of the unit that executes it.
     */
    record EngineInput(byte[] cdb, byte[] dataOut, int expectedIn, UnitShape unit) {
        Stream<EngineInput> shrink() {
            return Stream.of(
                    Shrinkers.bytes(cdb).filter(c -> c.length > 0).map(c -> new EngineInput(c, dataOut, expectedIn, unit)),
                    Shrinkers.bytes(dataOut).map(d -> new EngineInput(cdb, d, expectedIn, unit)),
                    Shrinkers.toward(expectedIn, 0).mapToObj(e -> new EngineInput(cdb, dataOut, e, unit))).flatMap(x -> x);
        }
    }

    @Test
    void decoderAcceptsOrNamesTheError(TestInfo test) {
        FuzzRunner.forTest(test, "CdbDecoder").run(r -> new DecoderInput(Generators.bytes(r, 40), Generators.intBetween(r, 0, 8)),
                DecoderInput::shrink, CdbFuzzTest::decode);
    }

    @Test
    void decoderOnMutatedCdbs(TestInfo test) {
        FuzzRunner.forTest(test, "CdbDecoder").run(r -> new DecoderInput(SEEDS.next(r), Generators.intBetween(r, 0, 8)),
                DecoderInput::shrink, CdbFuzzTest::decode);
    }

    @Test
    void engineCompletesRandomCdbs(TestInfo test) {
        FuzzRunner.forTest(test, "LogicalUnit", ENGINE_CI_ITERATIONS).run(
                r -> new EngineInput(Generators.bytes(r, 1, 32), Generators.bytes(r, 512), Generators.intBetween(r, 0, BUFFER),
                        UnitShape.random(r)),
                EngineInput::shrink, this::execute);
    }

    @Test
    void engineCompletesMutatedCdbs(TestInfo test) {
        FuzzRunner.forTest(test, "LogicalUnit", ENGINE_CI_ITERATIONS).run(
                r -> {
                    byte[] cdb = SEEDS.next(r);
                    UnitShape unit = UnitShape.random(r);
                    return new EngineInput(cdb, dataOutFor(r, cdb, unit), Generators.intBetween(r, 0, 70_000), unit);
                },
                EngineInput::shrink, input -> {
                    if (input.cdb().length > 0 && input.cdb().length <= ScsiCommand.MAX_CDB_LENGTH) {
                        execute(input);
                    }
                });
    }

    private static void decode(DecoderInput input) {
        byte[] cdb = input.cdb();
        byte[] backing = new byte[input.prefix() + cdb.length];
        System.arraycopy(cdb, 0, backing, input.prefix(), cdb.length);
        CdbDecoder decoder = new CdbDecoder();
        if (decoder.decode(MemorySegment.ofArray(backing).asSlice(input.prefix()), 0, cdb.length)) {
            assertNotNull(decoder.kind(), "kind of an accepted CDB");
            assertNull(decoder.error(), "error of an accepted CDB");
            assertTrue(decoder.cdbLength() <= cdb.length, "CDB length within the bytes");
        } else {
            assertNull(decoder.kind(), "kind of a refused CDB");
            assertTrue(decoder.error() == SenseCode.INVALID_COMMAND_OPERATION_CODE || decoder.error() == SenseCode.INVALID_FIELD_IN_CDB,
                    () -> "error " + decoder.error());
            assertTrue(decoder.errorField() < Math.max(1, cdb.length), () -> "field pointer " + decoder.errorField());
        }
    }

    /**
     * Half the time, data-out of the length the CDB asks for (a WRITE's blocks, WRITE SAME's one block, the
     * parameter list of UNMAP or MODE SELECT, with {@link #parameterData}'s header on it), sometimes a byte
     * short or long: random lengths rarely match a write's, which then stops at the length check and never
     * reaches the backend. {@link #parameterData} otherwise.
     */
    private static byte[] dataOutFor(Random r, byte[] cdb, UnitShape unit) {
        CdbDecoder d = new CdbDecoder();
        if (r.nextBoolean() && cdb.length > 0 && cdb.length <= ScsiCommand.MAX_CDB_LENGTH
                && d.decode(MemorySegment.ofArray(cdb), 0, cdb.length)) {
            long needed = switch (d.kind()) {
                case WRITE -> d.transferLength() * unit.blockSize();
                case WRITE_SAME -> unit.blockSize();
                case UNMAP, MODE_SELECT -> d.parameterListLength();
                default -> -1;
            };
            long length = needed < 0 ? -1 : needed + new int[]{0, 0, 0, -1, 1}[r.nextInt(5)];
            if (length >= 0 && length <= BUFFER) {
                byte[] data = Generators.bytes(r, (int) length, (int) length);
                if (d.kind() == CommandKind.UNMAP || d.kind() == CommandKind.MODE_SELECT) {
                    byte[] head = parameterData(r);
                    System.arraycopy(head, 0, data, 0, Math.min(head.length, data.length));
                }
                return data;
            }
        }
        return parameterData(r);
    }

    /**
     * Data-out that often looks like a parameter list: an UNMAP list of 1 to 4 descriptors, or a MODE
     * SELECT(6)/(10) header and the caching or control page, then random bytes (up to 4096) otherwise.
     */
    private static byte[] parameterData(Random r) {
        switch (r.nextInt(4)) {
            case 0 -> {
                int count = 1 + r.nextInt(4);
                ByteBuffer b = ByteBuffer.allocate(8 + 16 * count);
                b.putShort(0, (short) (6 + 16 * count)).putShort(2, (short) (16 * count));
                for (int i = 0; i < count; i++) {
                    b.putLong(8 + 16 * i, Generators.intBetween(r, 0, 4096)).putInt(16 + 16 * i, Generators.intBetween(r, 0, 4096));
                }
                return b.array();
            }
            case 1 -> {
                boolean ten = r.nextBoolean();
                boolean caching = r.nextBoolean();
                int header = ten ? 8 : 4;
                int pageLength = caching ? 0x12 : 0x0A;
                byte[] b = new byte[header + 2 + pageLength];
                byte[] body = Generators.bytes(r, pageLength, pageLength);
                System.arraycopy(body, 0, b, header + 2, pageLength);
                b[header] = (byte) (caching ? 0x08 : 0x0A);
                b[header + 1] = (byte) pageLength;
                return b;
            }
            default -> {
                return Generators.bytes(r, 4096);
            }
        }
    }

    private void execute(EngineInput input) {
        // Everything the command can touch is new or zeroed: the iteration replays alone.
        SparseBackend backend = new SparseBackend(DEVICE_BYTES, input.unit().blockSize(), input.unit().unmapReadsZeroes());
        LogicalUnit unit = new LogicalUnit(input.unit().config(), backend);
        ScsiCommand cmd = new ScsiCommand();
        int[] completions = {0};
        cmd.setCompletion(c -> completions[0]++);
        byte[] dataOut = input.dataOut();
        int expectedIn = input.expectedIn();
        buffer.fill((byte) 0);
        MemorySegment.copy(dataOut, 0, buffer, ValueLayout.JAVA_BYTE, 0, dataOut.length);
        cmd.setCdb(input.cdb()).setDataBuffer(buffer, 0, BUFFER).setExpectedLengths(dataOut.length, expectedIn);
        unit.execute(cmd);
        assertEquals(1, completions[0], "exactly one completion");
        int status = cmd.status();
        assertTrue(status == ScsiStatus.GOOD || status == ScsiStatus.CHECK_CONDITION, "status " + status);
        assertTrue(cmd.dataInLength() <= expectedIn, "data-in within the offer");
        if (status == ScsiStatus.CHECK_CONDITION) {
            int key = SenseData.senseKey(cmd.senseData(), 0, cmd.senseLength());
            assertTrue(key > 0 && key <= 0xB, "sense key " + key);
            assertEquals(0, cmd.dataInLength(), "no data-in with CHECK CONDITION");
        } else {
            assertEquals(0, cmd.senseLength(), "no sense with GOOD");
            long unused = expectedIn - cmd.dataInLength();
            assertEquals(cmd.dataInResidualKind() == ResidualKind.UNDERFLOW ? unused : 0, cmd.dataInResidualKind() == ResidualKind.UNDERFLOW ? cmd.dataInResidual() : unused, "data-in residual");
        }
    }
}

package org.rdmablock.protocol.scsi;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Runs CDBs against a logical unit over an {@link InMemoryBackend} and checks each completes exactly once. */
final class LunHarness {
    static final int BUFFER = 1 << 20;

    final InMemoryBackend backend;
    final LogicalUnit unit;
    final ScsiCommand cmd = new ScsiCommand();
    final MemorySegment buffer = Arena.ofAuto().allocate(BUFFER, 4096);
    private int completions;

    LunHarness(LogicalUnitConfig config, long sizeBytes) {
        backend = new InMemoryBackend(sizeBytes);
        unit = new LogicalUnit(config, backend);
        cmd.setCompletion(c -> completions++);
    }

    /** Over a backend of the test's own ({@link #backend} is null then). */
    LunHarness(LogicalUnitConfig config, BlockBackend own) {
        backend = null;
        unit = new LogicalUnit(config, own);
        cmd.setCompletion(c -> completions++);
    }

    static LunHarness of(int blockSize) {
        return new LunHarness(config(blockSize).build(), 64L * 4096 * 16);
    }

    static LogicalUnitConfig.Builder config(int blockSize) {
        return LogicalUnitConfig.builder().blockSize(blockSize).serialNumber("SN0001").thinProvisioning(true);
    }

    /** Executes with no data-out and room for {@code expectedIn} data-in bytes. */
    ScsiCommand run(byte[] cdb, int expectedIn) {
        return run(cdb, new byte[0], expectedIn);
    }

    /** Executes with {@code dataOut} offered as data-out and {@code expectedIn} bytes of data-in room. */
    ScsiCommand run(byte[] cdb, byte[] dataOut, int expectedIn) {
        MemorySegment.copy(dataOut, 0, buffer, ValueLayout.JAVA_BYTE, 0, dataOut.length);
        return runWithBuffer(cdb, dataOut.length, expectedIn);
    }

    ScsiCommand runWithBuffer(byte[] cdb, long dataOutLength, long expectedIn) {
        int before = completions;
        cmd.setCdb(cdb).setDataBuffer(buffer, 0, BUFFER).setExpectedLengths(dataOutLength, expectedIn);
        unit.execute(cmd);
        assertEquals(before + 1, completions, "exactly one completion");
        return cmd;
    }

    /** Executes with a data buffer of only {@code capacity} bytes (all of them offered as data-out). */
    ScsiCommand runWithBufferCapacity(byte[] cdb, int capacity) {
        int before = completions;
        cmd.setCdb(cdb).setDataBuffer(buffer, 0, capacity).setExpectedLengths(capacity, 0);
        unit.execute(cmd);
        assertEquals(before + 1, completions, "exactly one completion");
        return cmd;
    }

    byte[] dataIn() {
        return buffer.asSlice(0, cmd.dataInLength()).toArray(ValueLayout.JAVA_BYTE);
    }

    int dataInByte(int index) {
        return Byte.toUnsignedInt(buffer.get(ValueLayout.JAVA_BYTE, index));
    }

    static void assertGood(ScsiCommand cmd) {
        assertEquals(ScsiStatus.GOOD, cmd.status(), () -> "status; sense key " + senseKey(cmd) + " asc " + asc(cmd));
        assertEquals(0, cmd.senseLength());
    }

    static void assertCheckCondition(ScsiCommand cmd, SenseCode code) {
        assertEquals(ScsiStatus.CHECK_CONDITION, cmd.status(), "status");
        assertEquals(code.senseKey(), senseKey(cmd), "sense key");
        assertEquals(code.asc(), asc(cmd), "asc");
        assertEquals(code.ascq(), SenseData.ascq(cmd.senseData(), 0, cmd.senseLength()), "ascq");
        assertEquals(0, cmd.dataInLength(), "no data-in after CHECK CONDITION");
    }

    static int senseKey(ScsiCommand cmd) {
        return SenseData.senseKey(cmd.senseData(), 0, cmd.senseLength());
    }

    static int asc(ScsiCommand cmd) {
        return SenseData.asc(cmd.senseData(), 0, cmd.senseLength());
    }

    static int fieldPointer(ScsiCommand cmd) {
        return SenseData.fieldPointer(cmd.senseData(), 0, cmd.senseLength());
    }
}

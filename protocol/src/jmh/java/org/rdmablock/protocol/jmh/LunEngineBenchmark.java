package org.rdmablock.protocol.jmh;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.rdmablock.protocol.scsi.InMemoryBackend;
import org.rdmablock.protocol.scsi.LogicalUnit;
import org.rdmablock.protocol.scsi.LogicalUnitConfig;
import org.rdmablock.protocol.scsi.Nexus;
import org.rdmablock.protocol.scsi.NexusRegistry;
import org.rdmablock.protocol.scsi.ScsiCommand;
import org.rdmablock.protocol.scsi.ScsiStatus;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

/**
 * One 4 KiB READ(16) and WRITE(16) through the LUN engine over the in-memory backend (completing inline):
 * the per-command cost of decode, range checks, backend call and completion. With {@code -prof gc} it
 * shows the fast path allocates nothing. {@code reservation}: {@code none}, the one volatile read every command
 * makes; {@code held}, another nexus holds Write Exclusive - Registrants Only and this one is registered, so each
 * command walks the reservation's check and passes (docs/benchmarks/protocol-jmh.md).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class LunEngineBenchmark {
    @Param({"512", "4096"})
    public int blockSize;

    @Param({"none", "held"})
    public String reservation;

    private InMemoryBackend backend;
    private LogicalUnit unit;
    private final ScsiCommand command = new ScsiCommand();
    private MemorySegment buffer;
    private MemorySegment readCdb;
    private MemorySegment writeCdb;
    private int lastStatus;

    @Setup
    public void setup() {
        backend = new InMemoryBackend(64L << 20);
        unit = new LogicalUnit(LogicalUnitConfig.builder().blockSize(blockSize).serialNumber("JMH").build(), backend);
        Arena arena = Arena.ofAuto();
        buffer = arena.allocate(1 << 20, 4096);
        int blocks = 4096 / blockSize;
        readCdb = arena.allocate(16);
        writeCdb = arena.allocate(16);
        MemorySegment.copy(MemorySegment.ofArray(ByteBuffer.allocate(16).put(0, (byte) 0x88).putLong(2, 64).putInt(10, blocks).array()),
                0, readCdb, 0, 16);
        MemorySegment.copy(MemorySegment.ofArray(ByteBuffer.allocate(16).put(0, (byte) 0x8A).putLong(2, 64).putInt(10, blocks).array()),
                0, writeCdb, 0, 16);
        command.setDataBuffer(buffer, 0, buffer.byteSize()).setCompletion(c -> lastStatus = c.status());
        if (reservation.equals("held")) {
            NexusRegistry nexuses = new NexusRegistry();
            Nexus holder = nexuses.ofSrp(1, 1, 1);
            Nexus registered = nexuses.ofSrp(2, 2, 1);
            prout(holder, 0, 0, 0, 0xA1);      // REGISTER
            prout(registered, 0, 0, 0, 0xB2);
            prout(holder, 1, 5, 0xA1, 0);      // RESERVE, Write Exclusive - Registrants Only
            command.setNexus(registered);
        }
    }

    private void prout(Nexus from, int action, int type, long key, long serviceActionKey) {
        MemorySegment.copy(MemorySegment.ofArray(ByteBuffer.allocate(24).putLong(0, key).putLong(8, serviceActionKey).array()),
                0, buffer, 0, 24);
        command.setNexus(from).setCdb(ByteBuffer.allocate(10).put(0, (byte) 0x5F).put(1, (byte) action)
                .put(2, (byte) type).putInt(5, 24).array()).setExpectedLengths(24, 0);
        unit.execute(command);
        if (lastStatus != ScsiStatus.GOOD) {
            throw new IllegalStateException("PERSISTENT RESERVE OUT " + action + " answered " + lastStatus);
        }
    }

    @TearDown
    public void tearDown() {
        backend.close();
    }

    @Benchmark
    public int read4k() {
        command.setCdb(readCdb, 0, 16).setExpectedLengths(0, 4096);
        unit.execute(command);
        return check();
    }

    @Benchmark
    public int write4k() {
        command.setCdb(writeCdb, 0, 16).setExpectedLengths(4096, 0);
        unit.execute(command);
        return check();
    }

    private int check() {
        if (lastStatus != ScsiStatus.GOOD) {
            throw new IllegalStateException("status " + lastStatus);
        }
        return lastStatus;
    }
}

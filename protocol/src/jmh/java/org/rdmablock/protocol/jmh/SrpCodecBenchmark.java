package org.rdmablock.protocol.jmh;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;
import org.rdmablock.protocol.srp.SrpBufferFormat;
import org.rdmablock.protocol.srp.SrpCommand;
import org.rdmablock.protocol.srp.SrpDecodeError;
import org.rdmablock.protocol.srp.SrpDirectBuffer;
import org.rdmablock.protocol.srp.SrpIuDecoder;
import org.rdmablock.protocol.srp.SrpResponse;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

/**
 * Encoding and decoding SRP_CMD (READ(16), one direct data-in descriptor) and SRP_RSP (CHECK CONDITION
 * with 18 bytes of sense and a data-in residual) in place over off-heap buffers, as the target's receive
 * and send paths do. Run with {@code -prof gc}: every benchmark should allocate 0 B/op.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class SrpCodecBenchmark {
    private final SrpCommand command = new SrpCommand();
    private final SrpResponse response = new SrpResponse();
    private final SrpDirectBuffer direct = new SrpDirectBuffer();
    private final SrpIuDecoder decoder = new SrpIuDecoder().immediateDataOffset(68);
    private MemorySegment commandIu;
    private MemorySegment responseIu;
    private MemorySegment cdb;
    private MemorySegment sense;
    private MemorySegment scratch;
    private long tag;

    @Setup
    public void setup() {
        Arena arena = Arena.ofAuto();
        commandIu = arena.allocate(8260, 64);
        responseIu = arena.allocate(260, 64);
        scratch = arena.allocate(8260, 64);
        cdb = arena.allocate(16);
        MemorySegment.copy(MemorySegment.ofArray(ByteBuffer.allocate(16).put(0, (byte) 0x88).putLong(2, 123456)
                .putInt(10, 8).array()), 0, cdb, 0, 16);
        sense = arena.allocate(18);
        MemorySegment.copy(MemorySegment.ofArray(new byte[]{0x70, 0, 5, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0x21, 0, 0, 0, 0, 0}), 0, sense, 0, 18);
        encodeCommand();
        encodeResponse();
    }

    @Benchmark
    public int encodeCommand() {
        SrpCommand c = command.wrap(commandIu, 0).reset().setTag(++tag).setLun(0)
                .setTaskAttribute(SrpCommand.TASK_SIMPLE).setCdb(cdb, 0, 16)
                .setBufferFormats(SrpBufferFormat.NONE, SrpBufferFormat.DIRECT);
        c.dataInDirect(direct).set(0x7f00_1234_0000L, 0x1234, 4096);
        return c.descriptorsEnd();
    }

    @Benchmark
    public void decodeCommand(Blackhole bh) {
        if (decoder.decode(commandIu, 0, 64) != SrpDecodeError.NONE) {
            throw new IllegalStateException();
        }
        SrpCommand c = decoder.command();
        bh.consume(c.tag());
        bh.consume(c.lun());
        bh.consume(c.cdbByte(0));
        c.copyCdb(scratch, 0);
        SrpDirectBuffer d = c.dataInDirect(direct);
        bh.consume(d.virtualAddress());
        bh.consume(d.key());
        bh.consume(d.length());
    }

    @Benchmark
    public long encodeResponse() {
        SrpResponse r = response.wrap(responseIu, 0).reset().setTag(++tag).setRequestLimitDelta(1)
                .setStatus(0x02).setDataInUnderflow(4096);
        r.setSenseData(sense, 0, 18, 260);
        return r.length();
    }

    @Benchmark
    public void decodeResponse(Blackhole bh) {
        if (decoder.decode(responseIu, 0, 54) != SrpDecodeError.NONE) {
            throw new IllegalStateException();
        }
        SrpResponse r = decoder.response();
        bh.consume(r.tag());
        bh.consume(r.status());
        bh.consume(r.flags());
        bh.consume(r.dataInResidualCount());
        bh.consume(r.requestLimitDelta());
        MemorySegment.copy(responseIu, r.senseDataOffset(), scratch, 0, r.senseDataLength());
    }
}

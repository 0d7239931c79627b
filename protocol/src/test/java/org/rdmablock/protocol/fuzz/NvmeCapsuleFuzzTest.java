package org.rdmablock.protocol.fuzz;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.rdmablock.protocol.nvme.NvmeCapsuleDecoder;
import org.rdmablock.protocol.nvme.NvmeOpcode;
import org.rdmablock.protocol.nvme.NvmeStatus;
import org.rdmablock.protocol.nvme.NvmeSubmission;
import org.rdmablock.protocol.nvme.NvmfCommandType;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Fuzzes the NVMe capsule decoder: any byte string is a capsule it accepts or one it answers with a defined status
 * (or calls too short); no exception escapes and nothing outside the bytes is read (they sit in a segment of exactly
 * their size, at a random offset in a slice). An accepted capsule's in-capsule data lies inside the bytes received
 * and the queue's room, and a keyed transfer within the largest one.
 */
class NvmeCapsuleFuzzTest {
    private static final int MAX_TRANSFER = 1 << 20;
    /** Valid capsules: a keyed read, an in-capsule write, a Connect with its data keyed, a null SGL flush. */
    private static final Mutations SEEDS = new Mutations(seeds(),
            List.of(new Mutations.Field(1, 1), new Mutations.Field(24, 8), new Mutations.Field(32, 4), new Mutations.Field(35, 4),
                    new Mutations.Field(39, 1), new Mutations.Field(4, 1), new Mutations.Field(0, 1)),
            new int[]{24, 40, 64, 128, 4160}, 4160 + 64, 6);

    /** One input: the capsule bytes, the queue's in-capsule room, and where the bytes sit in their backing array. */
    record Input(byte[] bytes, int maxInCapsule, int prefix) {
        Stream<Input> shrink() {
            return Stream.of(Shrinkers.bytes(bytes).map(b -> new Input(b, maxInCapsule, prefix)),
                    Shrinkers.toward(maxInCapsule, 0).mapToObj(m -> new Input(bytes, m, prefix)),
                    Shrinkers.toward(prefix, 0).mapToObj(p -> new Input(bytes, maxInCapsule, p))).flatMap(s -> s);
        }
    }

    @Test
    void randomBytes(TestInfo test) {
        FuzzRunner.forTest(test, "NvmeCapsuleDecoder").run(
                r -> new Input(Generators.bytes(r, 300), Generators.intBetween(r, 0, 8192), Generators.intBetween(r, 0, 64)),
                Input::shrink, NvmeCapsuleFuzzTest::check);
    }

    @Test
    void mutatedSeeds(TestInfo test) {
        FuzzRunner.forTest(test, "NvmeCapsuleDecoder").run(
                r -> new Input(SEEDS.next(r), r.nextBoolean() ? 4096 : Generators.intBetween(r, 0, 8192),
                        Generators.intBetween(r, 0, 8)),
                Input::shrink, NvmeCapsuleFuzzTest::check);
    }

    private static void check(final Input input) {
        final byte[] bytes = input.bytes();
        final MemorySegment exact = Generators.exactly(bytes, input.prefix());
        final NvmeCapsuleDecoder decoder = new NvmeCapsuleDecoder();
        final int status = decoder.decode(exact, 0, bytes.length, input.maxInCapsule(), MAX_TRANSFER);
        if (status == NvmeCapsuleDecoder.TOO_SHORT) {
            assertTrue(bytes.length < NvmeSubmission.LENGTH, "too short at " + bytes.length + " bytes");
            return;
        }
        decoder.entry().commandId(); // every answer but TOO_SHORT names the command
        if (status != NvmeStatus.SUCCESS) {
            assertTrue((status & NvmeStatus.DO_NOT_RETRY) != 0, "a refusal is final: 0x" + Integer.toHexString(status));
            return;
        }
        assertTrue(decoder.dataLength() >= 0 && decoder.dataLength() <= MAX_TRANSFER, "transfer within the largest");
        if (decoder.dataInCapsule()) {
            final long start = NvmeSubmission.LENGTH + decoder.inCapsuleDataOffset();
            assertTrue(start + decoder.dataLength() <= bytes.length, "in-capsule data inside the bytes received");
            assertTrue(decoder.inCapsuleDataOffset() + decoder.dataLength() <= input.maxInCapsule(), "within the room");
            exact.asSlice(start, decoder.dataLength()).toArray(ValueLayout.JAVA_BYTE);
        }
    }

    private static List<byte[]> seeds() {
        final MemorySegment read = MemorySegment.ofArray(new byte[64]);
        final NvmeSubmission r = new NvmeSubmission().wrap(read, 0).reset().setOpcode(NvmeOpcode.READ)
                .setFlags(NvmeSubmission.FLAGS_SGL_METABUF).setNsid(1).setBlocks(8);
        r.sgl(new org.rdmablock.protocol.nvme.NvmeSglDescriptor()).setKeyed(0x1000, 4096, 0x1234, false);
        final MemorySegment write = MemorySegment.ofArray(new byte[64 + 4096]);
        final NvmeSubmission w = new NvmeSubmission().wrap(write, 0).reset().setOpcode(NvmeOpcode.WRITE)
                .setFlags(NvmeSubmission.FLAGS_SGL_METABUF).setNsid(1).setBlocks(8);
        w.sgl(new org.rdmablock.protocol.nvme.NvmeSglDescriptor()).setInCapsule(0, 4096);
        final MemorySegment connect = MemorySegment.ofArray(new byte[64]);
        final NvmeSubmission c = new NvmeSubmission().wrap(connect, 0).reset().setOpcode(NvmeOpcode.FABRICS)
                .setFlags(NvmeSubmission.FLAGS_SGL_METABUF).setFabricsType(NvmfCommandType.CONNECT);
        c.sgl(new org.rdmablock.protocol.nvme.NvmeSglDescriptor()).setKeyed(0x2000, 1024, 0x55, true);
        final MemorySegment flush = MemorySegment.ofArray(new byte[64]);
        final NvmeSubmission f = new NvmeSubmission().wrap(flush, 0).reset().setOpcode(NvmeOpcode.FLUSH)
                .setFlags(NvmeSubmission.FLAGS_SGL_METABUF).setNsid(1);
        f.sgl(new org.rdmablock.protocol.nvme.NvmeSglDescriptor()).setKeyed(0, 0, 0, false);
        return List.of(toBytes(read), toBytes(write), toBytes(connect), toBytes(flush));
    }

    private static byte[] toBytes(final MemorySegment segment) {
        return segment.toArray(ValueLayout.JAVA_BYTE);
    }

    @Test
    void everySeedIsAccepted() {
        for (final byte[] seed : seeds()) {
            assertEquals(NvmeStatus.SUCCESS, new NvmeCapsuleDecoder().decode(MemorySegment.ofArray(seed), 0, seed.length,
                    4096, MAX_TRANSFER), "seed opcode " + seed[0]);
        }
    }
}

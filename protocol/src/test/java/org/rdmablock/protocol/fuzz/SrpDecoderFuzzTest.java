package org.rdmablock.protocol.fuzz;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.rdmablock.protocol.srp.SrpBufferFormat;
import org.rdmablock.protocol.srp.SrpCommand;
import org.rdmablock.protocol.srp.SrpDecodeError;
import org.rdmablock.protocol.srp.SrpDirectBuffer;
import org.rdmablock.protocol.srp.SrpIndirectBuffer;
import org.rdmablock.protocol.srp.SrpIuDecoder;
import org.rdmablock.protocol.srp.SrpLoginRequestRdmaCm;
import org.rdmablock.protocol.srp.SrpOpcode;

import java.lang.foreign.MemorySegment;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Fuzzes the IU decoder: any byte string is a valid IU or yields a defined {@link SrpDecodeError}; no
 * exception escapes and nothing outside the bytes is read. The bytes sit in a segment of exactly their
 * size, at a random offset inside a slice, so any read past them fails the property with an
 * {@link IndexOutOfBoundsException}. A valid CMD's descriptors are then read in full, to show that
 * "valid" really means every field the target will use is inside the IU.
 */
class SrpDecoderFuzzTest {
    private static final Mutations SEEDS = Mutations.srp();

    /** One input: the IU bytes, the channel's immediate-data offset, and where the bytes sit in their backing array. */
    record Input(byte[] bytes, int immediateDataOffset, int prefix) {
        Stream<Input> shrink() {
            return Stream.of(Shrinkers.bytes(bytes).map(b -> new Input(b, immediateDataOffset, prefix)),
                    Shrinkers.toward(immediateDataOffset, 0).mapToObj(o -> new Input(bytes, o, prefix)),
                    Shrinkers.toward(prefix, 0).mapToObj(p -> new Input(bytes, immediateDataOffset, p))).flatMap(s -> s);
        }
    }

    @Test
    void randomBytes(TestInfo test) {
        FuzzRunner.forTest(test, "SrpIuDecoder").run(
                r -> new Input(Generators.bytes(r, 600), Generators.intBetween(r, 0, 300), Generators.intBetween(r, 0, 64)),
                Input::shrink, SrpDecoderFuzzTest::check);
    }

    @Test
    void mutatedSeeds(TestInfo test) {
        // Half the inputs use the offset the seeds were written for, so immediate-data CMDs get past it.
        FuzzRunner.forTest(test, "SrpIuDecoder").run(
                r -> new Input(SEEDS.next(r), r.nextBoolean() ? SeedCorpusWriter.IMMEDIATE_DATA_OFFSET : Generators.intBetween(r, 0, 100),
                        Generators.intBetween(r, 0, 8)),
                Input::shrink, SrpDecoderFuzzTest::check);
    }

    private static void check(Input input) {
        check(input.bytes(), input.immediateDataOffset(), input.prefix());
    }

    private static void check(byte[] bytes, int immediateDataOffset, int prefix) {
        MemorySegment exact = Generators.exactly(bytes, prefix);
        SrpIuDecoder decoder = new SrpIuDecoder().immediateDataOffset(immediateDataOffset);
        SrpDecodeError error = decoder.decode(exact, 0, bytes.length);
        assertNotNull(error, "decode returned null");
        if (error != SrpDecodeError.NONE) {
            assertEquals(-1, decoder.opcode(), "opcode after " + error);
        } else {
            assertEquals(bytes[0] & 0xFF, decoder.opcode(), "opcode of a valid IU");
            readEverything(decoder, bytes.length, immediateDataOffset);
        }
        // The rdma_cm login form has no opcode at byte 0: every input is also a candidate for it.
        SrpLoginRequestRdmaCm login = new SrpLoginRequestRdmaCm().wrap(exact, 0);
        if (login.validate(bytes.length) == SrpDecodeError.NONE) {
            login.requestedMaxInitiatorToTargetIuLength();
            login.getTargetPortId(new byte[16]);
            login.immediateDataOffset();
        }
    }

    private static void readEverything(SrpIuDecoder decoder, int length, int immediateDataOffset) {
        switch (decoder.opcode()) {
            case SrpOpcode.CMD -> {
                SrpCommand cmd = decoder.command();
                assertTrue(cmd.cdbLength() >= 16 && SrpCommand.CDB_OFFSET + cmd.cdbLength() <= length, "CDB inside the IU");
                cmd.copyCdb(MemorySegment.ofArray(new byte[cmd.cdbLength()]), 0);
                if (cmd.dataOutFormat() != SrpBufferFormat.IMMEDIATE) {
                    assertTrue(cmd.descriptorsEnd() <= length, "descriptors inside the IU");
                }
                readDescriptor(cmd, cmd.dataOutFormat(), cmd.dataOutDescriptorCount(), true);
                readDescriptor(cmd, cmd.dataInFormat(), cmd.dataInDescriptorCount(), false);
                if (cmd.dataOutFormat() == SrpBufferFormat.IMMEDIATE) {
                    assertTrue(immediateDataOffset + cmd.dataOutLength() <= length, "immediate data inside the IU");
                }
                cmd.dataInLength();
                cmd.lun();
                cmd.taskAttribute();
            }
            case SrpOpcode.RSP -> assertTrue(decoder.response().length() <= length, "RSP data inside the IU");
            case SrpOpcode.AER_REQ -> assertTrue(decoder.aerRequest().length() <= length, "AER sense inside the IU");
            case SrpOpcode.LOGIN_REQ -> decoder.loginRequest().getInitiatorPortId(new byte[16]);
            case SrpOpcode.TSK_MGMT -> decoder.taskManagement().taskTag();
            default -> decoder.opcode();
        }
    }

    private static void readDescriptor(SrpCommand cmd, int format, int count, boolean out) {
        if (format == SrpBufferFormat.DIRECT) {
            SrpDirectBuffer d = out ? cmd.dataOutDirect(new SrpDirectBuffer()) : cmd.dataInDirect(new SrpDirectBuffer());
            d.virtualAddress();
            d.key();
            d.length();
        } else if (format == SrpBufferFormat.INDIRECT) {
            SrpIndirectBuffer d = out ? cmd.dataOutIndirect(new SrpIndirectBuffer()) : cmd.dataInIndirect(new SrpIndirectBuffer());
            assertTrue(count <= d.tableDescriptorCount(), "descriptor count within the table");
            long sum = 0;
            for (int i = 0; i < count; i++) {
                d.descriptorVirtualAddress(i);
                d.descriptorKey(i);
                sum += d.descriptorLength(i);
            }
            if (count == d.tableDescriptorCount()) {
                assertEquals(d.totalLength(), sum, "indirect total length");
            }
        }
    }
}

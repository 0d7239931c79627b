package org.rdmablock.protocol.fuzz;

import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.rdmablock.protocol.srp.SrpBufferFormat;
import org.rdmablock.protocol.srp.SrpCommand;
import org.rdmablock.protocol.srp.SrpDecodeError;
import org.rdmablock.protocol.srp.SrpDirectBuffer;
import org.rdmablock.protocol.srp.SrpIndirectBuffer;
import org.rdmablock.protocol.srp.SrpIuDecoder;
import org.rdmablock.protocol.srp.SrpLoginRequestRdmaCm;
import org.rdmablock.protocol.srp.SrpOpcode;

import java.lang.foreign.MemorySegment;

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

    @Property
    void randomBytes(@ForAll @Size(max = 600) byte[] bytes, @ForAll @IntRange(max = 300) int immediateDataOffset,
                     @ForAll @IntRange(max = 64) int prefix) {
        check(bytes, immediateDataOffset, prefix);
    }

    @Property
    void mutatedSeeds(@ForAll("mutatedIus") byte[] bytes, @ForAll @IntRange(max = 100) int immediateDataOffset,
                      @ForAll @IntRange(max = 8) int prefix) {
        check(bytes, immediateDataOffset == 0 ? SeedCorpusWriter.IMMEDIATE_DATA_OFFSET : immediateDataOffset, prefix);
    }

    @Provide
    Arbitrary<byte[]> mutatedIus() {
        return Mutations.mutated(SeedCorpus.srp());
    }

    private static void check(byte[] bytes, int immediateDataOffset, int prefix) {
        byte[] backing = new byte[prefix + bytes.length];
        System.arraycopy(bytes, 0, backing, prefix, bytes.length);
        MemorySegment exact = MemorySegment.ofArray(backing).asSlice(prefix, bytes.length);
        SrpIuDecoder decoder = new SrpIuDecoder().immediateDataOffset(immediateDataOffset);
        SrpDecodeError error = decoder.decode(exact, 0, bytes.length);
        assertNotNull(error);
        if (error != SrpDecodeError.NONE) {
            assertEquals(-1, decoder.opcode());
        } else {
            assertEquals(bytes[0] & 0xFF, decoder.opcode());
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
                assertTrue(cmd.cdbLength() >= 16 && SrpCommand.CDB_OFFSET + cmd.cdbLength() <= length);
                cmd.copyCdb(MemorySegment.ofArray(new byte[cmd.cdbLength()]), 0);
                if (cmd.dataOutFormat() != SrpBufferFormat.IMMEDIATE) {
                    assertTrue(cmd.descriptorsEnd() <= length);
                }
                readDescriptor(cmd, cmd.dataOutFormat(), cmd.dataOutDescriptorCount(), true);
                readDescriptor(cmd, cmd.dataInFormat(), cmd.dataInDescriptorCount(), false);
                if (cmd.dataOutFormat() == SrpBufferFormat.IMMEDIATE) {
                    assertTrue(immediateDataOffset + cmd.dataOutLength() <= length);
                }
                cmd.dataInLength();
                cmd.lun();
                cmd.taskAttribute();
            }
            case SrpOpcode.RSP -> assertTrue(decoder.response().length() <= length);
            case SrpOpcode.AER_REQ -> assertTrue(decoder.aerRequest().length() <= length);
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
            assertTrue(count <= d.tableDescriptorCount());
            long sum = 0;
            for (int i = 0; i < count; i++) {
                d.descriptorVirtualAddress(i);
                d.descriptorKey(i);
                sum += d.descriptorLength(i);
            }
            if (count == d.tableDescriptorCount()) {
                assertEquals(d.totalLength(), sum);
            }
        }
    }
}

package org.rdmablock.protocol.srp;

import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The decoder's classification and every defined error of a malformed IU. */
class SrpIuDecoderTest {
    private final SrpIuDecoder decoder = new SrpIuDecoder();

    @Test
    void classifiesEveryOpcode() {
        int[][] cases = {
                {SrpOpcode.LOGIN_REQ, SrpLoginRequest.LENGTH}, {SrpOpcode.TSK_MGMT, SrpTaskManagement.LENGTH},
                {SrpOpcode.CMD, SrpCommand.FIXED_LENGTH}, {SrpOpcode.I_LOGOUT, 16}, {SrpOpcode.CRED_RSP, 16},
                {SrpOpcode.AER_RSP, 16}, {SrpOpcode.T_LOGOUT, 16}, {SrpOpcode.CRED_REQ, 16},
                {SrpOpcode.AER_REQ, SrpAerRequest.FIXED_LENGTH}, {SrpOpcode.LOGIN_RSP, SrpLoginResponse.LENGTH},
                {SrpOpcode.RSP, SrpResponse.FIXED_LENGTH}, {SrpOpcode.LOGIN_REJ, SrpLoginReject.LENGTH}};
        for (int[] c : cases) {
            MemorySegment s = MemorySegment.ofArray(new byte[c[1]]);
            s.set(ValueLayout.JAVA_BYTE, 0, (byte) c[0]);
            assertEquals(SrpDecodeError.NONE, decoder.decode(s, 0, c[1]), SrpOpcode.name(c[0]));
            assertEquals(c[0], decoder.opcode());
            assertEquals(SrpDecodeError.TOO_SHORT, decoder.decode(s, 0, c[1] - 1), SrpOpcode.name(c[0]));
            assertEquals(-1, decoder.opcode());
        }
        MemorySegment cmd = MemorySegment.ofArray(new byte[48]);
        cmd.set(ValueLayout.JAVA_BYTE, 0, (byte) SrpOpcode.CMD);
        decoder.decode(cmd, 0, 48);
        assertSame(decoder.command(), decoder.command());
        assertThrows(IllegalStateException.class, decoder::response);
    }

    @Test
    void rejectsUnknownOpcodesAndBadBounds() {
        MemorySegment s = MemorySegment.ofArray(new byte[64]);
        s.set(ValueLayout.JAVA_BYTE, 0, (byte) 0x55);
        assertEquals(SrpDecodeError.UNKNOWN_OPCODE, decoder.decode(s, 0, 64));
        assertEquals(SrpDecodeError.OUTSIDE_BUFFER, decoder.decode(s, 0, 65));
        assertEquals(SrpDecodeError.OUTSIDE_BUFFER, decoder.decode(s, 60, 8));
        assertEquals(SrpDecodeError.OUTSIDE_BUFFER, decoder.decode(s, -1, 8));
        assertEquals(SrpDecodeError.OUTSIDE_BUFFER, decoder.decode(s, 8, Long.MAX_VALUE));
        assertEquals(SrpDecodeError.TOO_SHORT, decoder.decode(s, 0, 0));
    }

    @Test
    void decodesAtAnOffset() {
        MemorySegment s = MemorySegment.ofArray(new byte[100]);
        new SrpTaskManagement().wrap(s, 52).reset().setFunction(SrpTaskManagement.LUN_RESET);
        assertEquals(SrpDecodeError.NONE, decoder.decode(s, 52, 48));
        assertEquals(SrpTaskManagement.LUN_RESET, decoder.taskManagement().function());
    }

    @Test
    void commandErrors() {
        assertEquals(SrpDecodeError.ADDITIONAL_CDB_PAST_END, cmd(0x00, 0, 0, 8, 55, 0));
        assertEquals(SrpDecodeError.NONE, cmd(0x00, 0, 0, 8, 56, 0));
        assertEquals(SrpDecodeError.NONE, cmd(0x00, 0, 0, 11, 56, 0));     // low bits reserved (ib_srpt masks them)
        assertEquals(SrpDecodeError.BAD_DATA_OUT_FORMAT, cmd(0x40, 0, 0, 0, 64, 0));
        assertEquals(SrpDecodeError.BAD_DATA_IN_FORMAT, cmd(0x03, 0, 0, 0, 64, 0));
        assertEquals(SrpDecodeError.BAD_DATA_IN_FORMAT, cmd(0x0F, 0, 0, 0, 64, 0));
        assertEquals(SrpDecodeError.DESCRIPTOR_PAST_END, cmd(0x10, 0, 0, 0, 63, 0));
        assertEquals(SrpDecodeError.NONE, cmd(0x10, 0, 0, 0, 64, 0));
        assertEquals(SrpDecodeError.DESCRIPTOR_PAST_END, cmd(0x11, 0, 0, 0, 79, 0));   // out then in
        assertEquals(SrpDecodeError.NONE, cmd(0x11, 0, 0, 0, 80, 0));
        // Indirect: header 20 + 2 descriptors = 40 bytes after the fixed part.
        assertEquals(SrpDecodeError.DESCRIPTOR_PAST_END, cmd(0x20, 2, 0, 0, 87, 0));
        assertEquals(SrpDecodeError.IMMEDIATE_DATA_NOT_NEGOTIATED, cmd(0x30, 0, 0, 0, 100, 0));
    }

    @Test
    void indirectTableConsistency() {
        MemorySegment s = MemorySegment.ofArray(new byte[200]);
        SrpCommand cmd = new SrpCommand().wrap(s, 0).reset().setBufferFormats(SrpBufferFormat.NONE, SrpBufferFormat.INDIRECT)
                .setDataInDescriptorCount(2);
        SrpIndirectBuffer ib = cmd.dataInIndirect(new SrpIndirectBuffer());
        ib.setTable(0, 0, 32, 300).setDescriptor(0, 0, 0, 100).setDescriptor(1, 0, 0, 200);
        assertEquals(SrpDecodeError.NONE, cmd.validate(100, 0));
        ib.setTable(0, 0, 32, 299);
        assertEquals(SrpDecodeError.INDIRECT_LENGTH_MISMATCH, cmd.validate(100, 0));
        ib.setTable(0, 0, 31, 300);
        assertEquals(SrpDecodeError.BAD_INDIRECT_TABLE, cmd.validate(100, 0));
        ib.setTable(0, 0, 16, 300);                       // the IU claims more descriptors than the table has
        assertEquals(SrpDecodeError.BAD_INDIRECT_TABLE, cmd.validate(100, 0));
        ib.setTable(0, 0, 64, 12345);                     // 4 in the table, 2 in the IU: the rest is external
        assertEquals(SrpDecodeError.NONE, cmd.validate(100, 0));
        assertEquals(true, cmd.dataInTableIsExternal());
        assertEquals(12345, cmd.dataInLength());
    }

    @Test
    void immediateDataBounds() {
        MemorySegment s = MemorySegment.ofArray(new byte[200]);
        SrpCommand cmd = new SrpCommand().wrap(s, 0).reset().setBufferFormats(SrpBufferFormat.IMMEDIATE, SrpBufferFormat.NONE);
        cmd.setImmediateDataLength(100);
        assertEquals(SrpDecodeError.NONE, cmd.validate(152, 52));
        assertEquals(SrpDecodeError.IMMEDIATE_DATA_PAST_END, cmd.validate(151, 52));
        assertEquals(SrpDecodeError.IMMEDIATE_DATA_PAST_END, cmd.validate(200, 51));   // overlaps the descriptor
        assertEquals(SrpDecodeError.IMMEDIATE_DATA_PAST_END, cmd.validate(50, 52));    // offset beyond the IU
        cmd.setImmediateDataLength(0xFFFF_FFFFL);                                       // the wrap-around ib_srpt fixed
        assertEquals(SrpDecodeError.IMMEDIATE_DATA_PAST_END, cmd.validate(200, 52));
    }

    @Test
    void responseAndSenseLengths() {
        MemorySegment s = MemorySegment.ofArray(new byte[100]);
        SrpResponse rsp = new SrpResponse().wrap(s, 0).reset();
        s.set(SrpInformationUnit.BE_INT, SrpResponse.SENSE_DATA_LEN_OFFSET, 0x7FFF_FFFF);
        s.set(SrpInformationUnit.BE_INT, SrpResponse.RESP_DATA_LEN_OFFSET, 0x7FFF_FFFF);
        assertEquals(SrpDecodeError.DATA_LENGTH_PAST_END, rsp.validate(100));
        rsp.reset();
        byte[] sense = new byte[96];
        assertEquals(64, rsp.setSenseData(MemorySegment.ofArray(sense), 0, sense.length, 100));   // truncated to fit
        assertEquals(100, rsp.length());
        assertEquals(SrpResponse.FLAG_SNSVALID, rsp.flags());
        assertThrows(IllegalStateException.class, () -> rsp.setResponseCode(0));
    }

    @Test
    void residualSettersReplaceTheFlagOfTheirDirectionOnly() {
        MemorySegment s = MemorySegment.ofArray(new byte[36]);
        SrpResponse rsp = new SrpResponse().wrap(s, 0).reset().setDataInOverflow(5).setDataOutUnderflow(7);
        assertEquals(SrpResponse.FLAG_DIOVER | SrpResponse.FLAG_DOUNDER, rsp.flags());
        rsp.setDataInUnderflow(9);
        assertEquals(SrpResponse.FLAG_DIUNDER | SrpResponse.FLAG_DOUNDER, rsp.flags());
        assertEquals(9, rsp.dataInResidualCount());
        assertEquals(7, rsp.dataOutResidualCount());
    }

    private static SrpDecodeError cmd(int bufFmt, int outCount, int inCount, int addCdbLen, int length, int imm) {
        MemorySegment s = MemorySegment.ofArray(new byte[length]);
        s.set(ValueLayout.JAVA_BYTE, 0, (byte) SrpOpcode.CMD);
        s.set(ValueLayout.JAVA_BYTE, SrpCommand.BUF_FMT_OFFSET, (byte) bufFmt);
        s.set(ValueLayout.JAVA_BYTE, SrpCommand.DATA_OUT_DESC_CNT_OFFSET, (byte) outCount);
        s.set(ValueLayout.JAVA_BYTE, SrpCommand.DATA_IN_DESC_CNT_OFFSET, (byte) inCount);
        s.set(ValueLayout.JAVA_BYTE, SrpCommand.ADD_CDB_LEN_OFFSET, (byte) addCdbLen);
        return new SrpIuDecoder().immediateDataOffset(imm).decode(s, 0, length);
    }
}

package org.rdmablock.protocol.fuzz;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.rdmablock.protocol.srp.SrpAerRequest;
import org.rdmablock.protocol.srp.SrpAerResponse;
import org.rdmablock.protocol.srp.SrpCommand;
import org.rdmablock.protocol.srp.SrpCreditRequest;
import org.rdmablock.protocol.srp.SrpCreditResponse;
import org.rdmablock.protocol.srp.SrpDecodeError;
import org.rdmablock.protocol.srp.SrpDirectBuffer;
import org.rdmablock.protocol.srp.SrpIndirectBuffer;
import org.rdmablock.protocol.srp.SrpInitiatorLogout;
import org.rdmablock.protocol.srp.SrpIuDecoder;
import org.rdmablock.protocol.srp.SrpLoginReject;
import org.rdmablock.protocol.srp.SrpLoginRequest;
import org.rdmablock.protocol.srp.SrpLoginRequestRdmaCm;
import org.rdmablock.protocol.srp.SrpLoginResponse;
import org.rdmablock.protocol.srp.SrpOpcode;
import org.rdmablock.protocol.srp.SrpResponse;
import org.rdmablock.protocol.srp.SrpTargetLogout;
import org.rdmablock.protocol.srp.SrpTaskManagement;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Encode, decode, compare: for every IU, random field values (edges included) are written with the
 * flyweight's setters into bytes pre-filled with junk, the bytes are decoded by {@link SrpIuDecoder} from a
 * segment of exactly their length, every getter must return what was set, and encoding the getters' values
 * again must give the same bytes. So a field written to the wrong place, a getter reading the wrong width or
 * sign, a byte the encoder leaves stale, or a value the decoder refuses fails here, whatever the constants.
 *
 * <p>Expected values that depend on the wire format (flag bits, descriptor sizes) are literals from
 * {@code include/scsi/srp.h}, as in {@code SrpConstantsTest}.
 */
class SrpRoundTripFuzzTest {
    private static final String TARGET = "SrpIuDecoder round trip";
    /**
     * Iterations per IU in CI: thirteen properties share the fuzz budget, and with edges drawn one time in four
     * among five, every field still meets each edge value about a hundred times.
     */
    private static final long CI_ITERATIONS = 2_000;

    // ---- inputs ----

    /** Where the IU sits: {@code prefix} junk bytes before it and some after, all {@code junk}. */
    record Placement(int prefix, int junk) {
        static Placement random(Random r) {
            return new Placement(Generators.intBetween(r, 0, 16), r.nextInt(256));
        }
    }

    record LoginRequestInput(long tag, long maxItIuLength, int bufferFormats, int flags, int immediateDataOffset,
                             byte[] initiatorPortId, byte[] targetPortId, Placement at) {
        static LoginRequestInput random(Random r) {
            return new LoginRequestInput(anyLong(r), u32(r), u16(r), u8(r), u16(r), Generators.bytes(r, 16, 16),
                    Generators.bytes(r, 16, 16), Placement.random(r));
        }
    }

    record LoginResponseInput(long tag, int requestLimitDelta, long maxItIuLength, long maxTiIuLength, int bufferFormats,
                              int flags, Placement at) {
    }

    record LoginRejectInput(long tag, int reason, int bufferFormats, Placement at) {
    }

    /** A direct descriptor's fields (also an indirect table's table descriptor and list entries). */
    record Desc(long va, int key, long length) {
        static Desc random(Random r) {
            return new Desc(anyLong(r), anyInt(r), u32(r));
        }
    }

    /**
     * One direction's data buffer; {@code format} is srp.h's SRP_NO_DATA_DESC 0, SRP_DATA_DESC_DIRECT 1,
     * SRP_DATA_DESC_INDIRECT 2 or SRP_DATA_DESC_IMM 3. DIRECT: {@code direct}. INDIRECT: the table descriptor (its length is
     * {@code 16 * tableCount}), the total, and the {@code list} carried in the IU, whose size is the count
     * field. IMMEDIATE: {@code immediate} bytes. NONE and DIRECT carry an arbitrary count field, which the
     * decoder ignores (Linux's ib_srp leaves it 0 for a direct descriptor).
     */
    record DataBuffer(int format, int countField, Desc direct, Desc table, long tableCount, long total, List<Desc> list,
                      byte[] immediate) {
        static DataBuffer random(Random r, boolean dataOut) {
            int format = r.nextInt(dataOut ? 4 : 3);
            return switch (format) {
                case 1 -> new DataBuffer(1, u8(r), Desc.random(r), null, 0, 0, List.of(), null);
                case 2 -> {
                    int count = r.nextInt(4) == 0 ? 0 : 1 + r.nextInt(12);
                    long tableCount = r.nextBoolean() ? count : count + 1 + r.nextInt(20);
                    List<Desc> list = new ArrayList<>();
                    long sum = 0;
                    for (int i = 0; i < count; i++) {
                        // A complete table's lengths must add up to the 32-bit total: keep their sum in range.
                        long length = tableCount == count ? r.nextLong(0x1_0000_0000L / count) : u32(r);
                        list.add(new Desc(anyLong(r), anyInt(r), length));
                        sum += length;
                    }
                    Desc table = new Desc(anyLong(r), anyInt(r), 16 * tableCount);
                    yield new DataBuffer(2, count, null, table, tableCount, tableCount == count ? sum : u32(r), list, null);
                }
                case 3 -> new DataBuffer(3, 0, null, null, 0, 0, List.of(), Generators.bytes(r, 600));
                default -> new DataBuffer(0, u8(r), null, null, 0, 0, List.of(), null);
            };
        }

        /** Encoded size in the IU, from srp.h: srp_direct_buf 16, srp_indirect_buf 20 + 16 per entry, srp_imm_buf 4. */
        int descriptorBytes() {
            return switch (format) {
                case 1 -> 16;
                case 2 -> 20 + 16 * list.size();
                case 3 -> 4;
                default -> 0;
            };
        }

        long dataLength() {
            return switch (format) {
                case 1 -> direct.length();
                case 2 -> total;
                case 3 -> immediate.length;
                default -> 0;
            };
        }
    }

    /** An SRP_CMD: fixed fields, a CDB of 1 to 268 bytes, both data buffers, the gap before immediate data. */
    record CommandInput(long tag, int solicited, long lun, int taskAttribute, byte[] cdb, DataBuffer out, DataBuffer in,
                        int immediateGap, Placement at) {
        static CommandInput random(Random r) {
            int cdbLength = switch (r.nextInt(4)) {
                case 0 -> 1 + r.nextInt(16);
                case 1 -> 16;
                case 2 -> 268;
                default -> 17 + r.nextInt(252);
            };
            return new CommandInput(anyLong(r), u8(r), anyLong(r), u8(r), Generators.bytes(r, cdbLength, cdbLength),
                    DataBuffer.random(r, true), DataBuffer.random(r, false), 4 * r.nextInt(4), Placement.random(r));
        }

        /** 16 CDB bytes in the fixed part, the rest rounded up to whole words (ib_srp's add_cdb_len). */
        int additionalCdbLength() {
            return cdb.length > 16 ? (cdb.length - 16 + 3) / 4 * 4 : 0;
        }

        int descriptorsEnd() {
            return 48 + additionalCdbLength() + out.descriptorBytes() + in.descriptorBytes();
        }

        /** The channel's negotiated immediate-data offset: after the descriptors and a gap (0 without immediate data). */
        int immediateDataOffset() {
            return out.format() == 3 ? descriptorsEnd() + immediateGap : 0;
        }

        int length() {
            return out.format() == 3 ? immediateDataOffset() + out.immediate().length : descriptorsEnd();
        }
    }

    /** A residual: 0 none, 1 overflow, 2 underflow, and the count. */
    record Residual(int kind, long count) {
        static Residual random(Random r) {
            int kind = r.nextInt(3);
            return new Residual(kind, kind == 0 ? 0 : u32(r));
        }
    }

    /** An SRP_RSP: the response code is -1 for none; sense may be cut to fit {@code maxIuLength}. */
    record ResponseInput(long tag, int solicited, int requestLimitDelta, int status, Residual dataOut, Residual dataIn,
                         int responseCode, byte[] sense, long maxIuLength, Placement at) {
        static ResponseInput random(Random r) {
            byte[] sense = Generators.bytes(r, 260);
            int code = r.nextBoolean() ? -1 : u8(r);
            int header = 36 + (code >= 0 ? 4 : 0);
            long max = switch (r.nextInt(4)) {
                case 0 -> 8260;                                      // ib_srp's IU size: never cut
                case 1 -> header + Generators.intBetween(r, 0, sense.length);   // cut somewhere
                case 2 -> Generators.intBetween(r, 0, header);       // no room for sense at all
                default -> u32(r);
            };
            return new ResponseInput(anyLong(r), u8(r), anyInt(r), u8(r), Residual.random(r), Residual.random(r), code, sense,
                    max, Placement.random(r));
        }

        int responseBytes() {
            return responseCode >= 0 ? 4 : 0;
        }

        int senseCopied() {
            return (int) Math.max(0, Math.min(sense.length, maxIuLength - 36 - responseBytes()));
        }
    }

    record TaskManagementInput(long tag, int solicited, long lun, int function, long taskTag, Placement at) {
    }

    record TargetLogoutInput(long tag, int solicited, int reason, Placement at) {
    }

    record CreditRequestInput(long tag, int solicited, int requestLimitDelta, Placement at) {
    }

    record AerRequestInput(long tag, int solicited, int requestLimitDelta, long lun, byte[] sense, Placement at) {
    }

    /** An IU that carries only its tag (I_LOGOUT, CRED_RSP, AER_RSP). */
    record TagInput(long tag, Placement at) {
    }

    // ---- properties ----

    @Test
    void loginRequest(TestInfo test) {
        FuzzRunner.forTest(test, TARGET, CI_ITERATIONS).run(LoginRequestInput::random, in -> {
            Encoded iu = encode(SrpLoginRequest.LENGTH, in.at(), s -> encodeLoginRequest(s, in));
            SrpLoginRequest d = decode(iu, 0, SrpOpcode.LOGIN_REQ).loginRequest();
            assertLoginRequest(in, d.tag(), d.requestedMaxInitiatorToTargetIuLength(), d.requiredBufferFormats(), d.flags(),
                    d.immediateDataOffset(), d::getInitiatorPortId, d::getTargetPortId);
            assertEquals(in.flags() & 0x03, d.multichannelAction(), "multi-channel action: req_flags bits 1:0");
            assertEquals((in.flags() & 0x80) != 0, d.immediateDataRequested(), "SRP_IMMED_REQUESTED 0x80");
            assertReencodes(iu, s -> {
                byte[] initiator = new byte[16];
                byte[] target = new byte[16];
                d.getInitiatorPortId(initiator);
                d.getTargetPortId(target);
                encodeLoginRequest(s, new LoginRequestInput(d.tag(), d.requestedMaxInitiatorToTargetIuLength(),
                        d.requiredBufferFormats(), d.flags(), d.immediateDataOffset(), initiator, target, null));
            });
        });
    }

    /**
     * The 56-byte rdma_cm form: its own getters, then {@code copyTo} an IU that {@link SrpIuDecoder} decodes to
     * the same values and that equals the IU encoded directly, then {@code copyFrom} back to the same 56 bytes.
     */
    @Test
    void loginRequestRdmaCmAndConversion(TestInfo test) {
        FuzzRunner.forTest(test, TARGET, CI_ITERATIONS).run(LoginRequestInput::random, in -> {
            Encoded cm = encode(SrpLoginRequestRdmaCm.LENGTH, in.at(), s -> new SrpLoginRequestRdmaCm().wrap(s, 0).reset()
                    .setTag(in.tag()).setRequestedMaxInitiatorToTargetIuLength(in.maxItIuLength())
                    .setRequiredBufferFormats(in.bufferFormats()).setFlags(in.flags()).setImmediateDataOffset(in.immediateDataOffset())
                    .setInitiatorPortId(in.initiatorPortId()).setTargetPortId(in.targetPortId()));
            SrpLoginRequestRdmaCm c = new SrpLoginRequestRdmaCm().wrap(cm.upToEnd(), cm.offset());
            assertEquals(SrpDecodeError.NONE, c.validate(SrpLoginRequestRdmaCm.LENGTH));
            assertEquals(0x00, c.opcode(), "SRP_LOGIN_REQ at byte 11");
            assertLoginRequest(in, c.tag(), c.requestedMaxInitiatorToTargetIuLength(), c.requiredBufferFormats(), c.flags(),
                    c.immediateDataOffset(), c::getInitiatorPortId, c::getTargetPortId);

            Encoded iu = encode(SrpLoginRequest.LENGTH, new Placement(in.at().junk() & 7, ~in.at().junk()),
                    s -> c.copyTo(new SrpLoginRequest().wrap(s, 0)));
            SrpLoginRequest d = decode(iu, 0, SrpOpcode.LOGIN_REQ).loginRequest();
            assertLoginRequest(in, d.tag(), d.requestedMaxInitiatorToTargetIuLength(), d.requiredBufferFormats(), d.flags(),
                    d.immediateDataOffset(), d::getInitiatorPortId, d::getTargetPortId);
            assertReencodes(iu, s -> encodeLoginRequest(s, in));

            Encoded back = encode(SrpLoginRequestRdmaCm.LENGTH, in.at(), s -> new SrpLoginRequestRdmaCm().wrap(s, 0).copyFrom(d));
            assertArrayEquals(bytes(cm.iu()), bytes(back.iu()), "copyFrom(copyTo(x)) == x");
        });
    }

    @Test
    void loginResponse(TestInfo test) {
        FuzzRunner.forTest(test, TARGET, CI_ITERATIONS).run(r -> new LoginResponseInput(anyLong(r), anyInt(r), u32(r), u32(r), u16(r), u8(r),
                Placement.random(r)), in -> {
            Consumer<MemorySegment> encoder = s -> new SrpLoginResponse().wrap(s, 0).reset().setTag(in.tag())
                    .setRequestLimitDelta(in.requestLimitDelta()).setMaxInitiatorToTargetIuLength(in.maxItIuLength())
                    .setMaxTargetToInitiatorIuLength(in.maxTiIuLength()).setSupportedBufferFormats(in.bufferFormats()).setFlags(in.flags());
            Encoded iu = encode(SrpLoginResponse.LENGTH, in.at(), encoder);
            SrpLoginResponse d = decode(iu, 0, SrpOpcode.LOGIN_RSP).loginResponse();
            assertEquals(in.tag(), d.tag(), "tag");
            assertEquals(in.requestLimitDelta(), d.requestLimitDelta(), "req_lim_delta");
            assertEquals(in.maxItIuLength(), d.maxInitiatorToTargetIuLength(), "max_it_iu_len");
            assertEquals(in.maxTiIuLength(), d.maxTargetToInitiatorIuLength(), "max_ti_iu_len");
            assertEquals(in.bufferFormats(), d.supportedBufferFormats(), "buf_fmt");
            assertEquals(in.flags(), d.flags(), "rsp_flags");
            assertEquals((in.flags() & 0x80) != 0, d.immediateDataSupported(), "SRP_LOGIN_RSP_IMMED_SUPP 0x80");
            assertReencodes(iu, s -> new SrpLoginResponse().wrap(s, 0).reset().setTag(d.tag()).setRequestLimitDelta(d.requestLimitDelta())
                    .setMaxInitiatorToTargetIuLength(d.maxInitiatorToTargetIuLength())
                    .setMaxTargetToInitiatorIuLength(d.maxTargetToInitiatorIuLength())
                    .setSupportedBufferFormats(d.supportedBufferFormats()).setFlags(d.flags()));
        });
    }

    @Test
    void loginReject(TestInfo test) {
        FuzzRunner.forTest(test, TARGET, CI_ITERATIONS).run(r -> new LoginRejectInput(anyLong(r), anyInt(r), u16(r), Placement.random(r)), in -> {
            Encoded iu = encode(SrpLoginReject.LENGTH, in.at(), s -> new SrpLoginReject().wrap(s, 0).reset().setTag(in.tag())
                    .setReason(in.reason()).setSupportedBufferFormats(in.bufferFormats()));
            SrpLoginReject d = decode(iu, 0, SrpOpcode.LOGIN_REJ).loginReject();
            assertEquals(in.tag(), d.tag(), "tag");
            assertEquals(in.reason(), d.reason(), "reason");
            assertEquals(in.bufferFormats(), d.supportedBufferFormats(), "buf_fmt");
            assertReencodes(iu, s -> new SrpLoginReject().wrap(s, 0).reset().setTag(d.tag()).setReason(d.reason())
                    .setSupportedBufferFormats(d.supportedBufferFormats()));
        });
    }

    @Test
    void command(TestInfo test) {
        FuzzRunner.forTest(test, TARGET, CI_ITERATIONS).run(CommandInput::random, in -> {
            Encoded iu = encode(in.length(), in.at(), s -> encodeCommand(s, in));
            // Without immediate data the negotiated offset must not matter: vary it with the input.
            int negotiated = in.out().format() == 3 ? in.immediateDataOffset() : in.immediateGap() == 0 ? 0 : 64 + in.immediateGap();
            SrpCommand d = decode(iu, negotiated, SrpOpcode.CMD).command();
            assertEquals(in.tag(), d.tag(), "tag");
            assertEquals(in.solicited(), d.solicitedNotification(), "sol_not");
            assertEquals(in.lun(), d.lun(), "lun");
            assertEquals(in.taskAttribute(), d.taskAttribute(), "task_attr");
            assertEquals(in.out().format() << 4 | in.in().format(), d.bufferFormat(), "buf_fmt: data-out high nibble");
            assertEquals(in.out().format(), d.dataOutFormat(), "data-out format");
            assertEquals(in.in().format(), d.dataInFormat(), "data-in format");
            assertEquals(in.out().countField(), d.dataOutDescriptorCount(), "data_out_desc_cnt");
            assertEquals(in.in().countField(), d.dataInDescriptorCount(), "data_in_desc_cnt");
            assertEquals(16 + in.additionalCdbLength(), d.cdbLength(), "CDB length");
            byte[] cdb = new byte[d.cdbLength()];
            d.copyCdb(MemorySegment.ofArray(cdb), 0);
            assertArrayEquals(Arrays.copyOf(in.cdb(), cdb.length), cdb, "CDB, zero-padded");
            assertEquals(in.cdb()[0] & 0xFF, d.cdbByte(0), "CDB byte 0");
            assertEquals(48 + in.additionalCdbLength(), d.dataOutDescriptorOffset(), "data-out descriptor after the additional CDB");
            assertEquals(in.descriptorsEnd(), d.descriptorsEnd(), "descriptors end");
            assertEquals(in.out().dataLength(), d.dataOutLength(), "data-out length");
            assertEquals(in.in().dataLength(), d.dataInLength(), "data-in length");
            assertDataBuffer(in.out(), d, true);
            assertDataBuffer(in.in(), d, false);
            if (in.out().format() == 3) {
                byte[] data = new byte[in.out().immediate().length];
                MemorySegment.copy(d.segment(), ValueLayout.JAVA_BYTE, d.immediateDataOffsetInSegment(in.immediateDataOffset()), data, 0,
                        data.length);
                assertArrayEquals(in.out().immediate(), data, "immediate data");
            }
            assertReencodes(iu, s -> encodeCommand(s, commandFromGetters(d, in)));
        });
    }

    @Test
    void response(TestInfo test) {
        FuzzRunner.forTest(test, TARGET, CI_ITERATIONS).run(ResponseInput::random, in -> {
            int length = 36 + in.responseBytes() + in.senseCopied();
            Encoded iu = encode(length, in.at(), s -> assertEquals(in.senseCopied(), encodeResponse(s, in), "sense bytes copied"));
            SrpResponse d = decode(iu, 0, SrpOpcode.RSP).response();
            assertEquals(in.tag(), d.tag(), "tag");
            assertEquals(in.solicited(), d.solicitedNotification(), "sol_not");
            assertEquals(in.requestLimitDelta(), d.requestLimitDelta(), "req_lim_delta");
            assertEquals(in.status(), d.status(), "status");
            // srp.h: RSPVALID 1 << 0, SNSVALID 1 << 1, DOOVER 1 << 2, DOUNDER 1 << 3, DIOVER 1 << 4, DIUNDER 1 << 5.
            int flags = (in.responseCode() >= 0 ? 0x01 : 0) | (in.senseCopied() > 0 ? 0x02 : 0)
                    | new int[]{0, 0x04, 0x08}[in.dataOut().kind()] | new int[]{0, 0x10, 0x20}[in.dataIn().kind()];
            assertEquals(flags, d.flags(), "flags");
            assertEquals(in.dataOut().count(), d.dataOutResidualCount(), "data_out_res_cnt");
            assertEquals(in.dataIn().count(), d.dataInResidualCount(), "data_in_res_cnt");
            assertEquals(in.responseBytes(), d.responseDataLength(), "resp_data_len");
            assertEquals(in.responseCode(), d.responseCode(), "response code");
            assertEquals(in.senseCopied(), d.senseDataLength(), "sense_data_len");
            assertEquals(36 + in.responseBytes(), d.senseDataOffset(), "sense after the response data");
            assertEquals(length, d.length(), "length");
            byte[] sense = new byte[in.senseCopied()];
            MemorySegment.copy(iu.iu(), ValueLayout.JAVA_BYTE, d.senseDataOffset(), sense, 0, sense.length);
            assertArrayEquals(Arrays.copyOf(in.sense(), sense.length), sense, "sense data");
            assertReencodes(iu, s -> {
                int flagsOut = d.flags();
                Residual out = new Residual((flagsOut & SrpResponse.FLAG_DOOVER) != 0 ? 1 : (flagsOut & SrpResponse.FLAG_DOUNDER) != 0 ? 2 : 0,
                        d.dataOutResidualCount());
                Residual dataIn = new Residual((flagsOut & SrpResponse.FLAG_DIOVER) != 0 ? 1 : (flagsOut & SrpResponse.FLAG_DIUNDER) != 0 ? 2 : 0,
                        d.dataInResidualCount());
                encodeResponse(s, new ResponseInput(d.tag(), d.solicitedNotification(), d.requestLimitDelta(), d.status(), out, dataIn,
                        d.responseCode(), sense, Long.MAX_VALUE, null));
            });
        });
    }

    @Test
    void taskManagement(TestInfo test) {
        FuzzRunner.forTest(test, TARGET, CI_ITERATIONS).run(r -> new TaskManagementInput(anyLong(r), u8(r), anyLong(r), u8(r), anyLong(r),
                Placement.random(r)), in -> {
            Encoded iu = encode(SrpTaskManagement.LENGTH, in.at(), s -> new SrpTaskManagement().wrap(s, 0).reset().setTag(in.tag())
                    .setSolicitedNotification(in.solicited()).setLun(in.lun()).setFunction(in.function()).setTaskTag(in.taskTag()));
            SrpTaskManagement d = decode(iu, 0, SrpOpcode.TSK_MGMT).taskManagement();
            assertEquals(in.tag(), d.tag(), "tag");
            assertEquals(in.solicited(), d.solicitedNotification(), "sol_not");
            assertEquals(in.lun(), d.lun(), "lun");
            assertEquals(in.function(), d.function(), "tsk_mgmt_func");
            assertEquals(in.taskTag(), d.taskTag(), "task_tag");
            assertReencodes(iu, s -> new SrpTaskManagement().wrap(s, 0).reset().setTag(d.tag()).setSolicitedNotification(d.solicitedNotification())
                    .setLun(d.lun()).setFunction(d.function()).setTaskTag(d.taskTag()));
        });
    }

    @Test
    void initiatorLogout(TestInfo test) {
        FuzzRunner.forTest(test, TARGET, CI_ITERATIONS).run(r -> new TagInput(anyLong(r), Placement.random(r)), in -> {
            Encoded iu = encode(SrpInitiatorLogout.LENGTH, in.at(), s -> new SrpInitiatorLogout().wrap(s, 0).reset().setTag(in.tag()));
            SrpInitiatorLogout d = decode(iu, 0, SrpOpcode.I_LOGOUT).initiatorLogout();
            assertEquals(in.tag(), d.tag(), "tag");
            assertReencodes(iu, s -> new SrpInitiatorLogout().wrap(s, 0).reset().setTag(d.tag()));
        });
    }

    @Test
    void targetLogout(TestInfo test) {
        FuzzRunner.forTest(test, TARGET, CI_ITERATIONS).run(r -> new TargetLogoutInput(anyLong(r), u8(r), anyInt(r), Placement.random(r)), in -> {
            Encoded iu = encode(SrpTargetLogout.LENGTH, in.at(), s -> new SrpTargetLogout().wrap(s, 0).reset().setTag(in.tag())
                    .setSolicitedNotification(in.solicited()).setReason(in.reason()));
            SrpTargetLogout d = decode(iu, 0, SrpOpcode.T_LOGOUT).targetLogout();
            assertEquals(in.tag(), d.tag(), "tag");
            assertEquals(in.solicited(), d.solicitedNotification(), "sol_not");
            assertEquals(in.reason(), d.reason(), "reason");
            assertReencodes(iu, s -> new SrpTargetLogout().wrap(s, 0).reset().setTag(d.tag()).setSolicitedNotification(d.solicitedNotification())
                    .setReason(d.reason()));
        });
    }

    @Test
    void creditRequest(TestInfo test) {
        FuzzRunner.forTest(test, TARGET, CI_ITERATIONS).run(r -> new CreditRequestInput(anyLong(r), u8(r), anyInt(r), Placement.random(r)), in -> {
            Encoded iu = encode(SrpCreditRequest.LENGTH, in.at(), s -> new SrpCreditRequest().wrap(s, 0).reset().setTag(in.tag())
                    .setSolicitedNotification(in.solicited()).setRequestLimitDelta(in.requestLimitDelta()));
            SrpCreditRequest d = decode(iu, 0, SrpOpcode.CRED_REQ).creditRequest();
            assertEquals(in.tag(), d.tag(), "tag");
            assertEquals(in.solicited(), d.solicitedNotification(), "sol_not");
            assertEquals(in.requestLimitDelta(), d.requestLimitDelta(), "req_lim_delta");
            assertReencodes(iu, s -> new SrpCreditRequest().wrap(s, 0).reset().setTag(d.tag()).setSolicitedNotification(d.solicitedNotification())
                    .setRequestLimitDelta(d.requestLimitDelta()));
        });
    }

    @Test
    void creditResponse(TestInfo test) {
        FuzzRunner.forTest(test, TARGET, CI_ITERATIONS).run(r -> new TagInput(anyLong(r), Placement.random(r)), in -> {
            Encoded iu = encode(SrpCreditResponse.LENGTH, in.at(), s -> new SrpCreditResponse().wrap(s, 0).reset().setTag(in.tag()));
            SrpCreditResponse d = decode(iu, 0, SrpOpcode.CRED_RSP).creditResponse();
            assertEquals(in.tag(), d.tag(), "tag");
            assertReencodes(iu, s -> new SrpCreditResponse().wrap(s, 0).reset().setTag(d.tag()));
        });
    }

    @Test
    void aerRequest(TestInfo test) {
        FuzzRunner.forTest(test, TARGET, CI_ITERATIONS).run(r -> new AerRequestInput(anyLong(r), u8(r), anyInt(r), anyLong(r), Generators.bytes(r, 260),
                Placement.random(r)), in -> {
            Consumer<MemorySegment> encoder = s -> new SrpAerRequest().wrap(s, 0).reset().setTag(in.tag())
                    .setSolicitedNotification(in.solicited()).setRequestLimitDelta(in.requestLimitDelta()).setLun(in.lun())
                    .setSenseData(MemorySegment.ofArray(in.sense()), 0, in.sense().length);
            Encoded iu = encode(36 + in.sense().length, in.at(), encoder);
            SrpAerRequest d = decode(iu, 0, SrpOpcode.AER_REQ).aerRequest();
            assertEquals(in.tag(), d.tag(), "tag");
            assertEquals(in.solicited(), d.solicitedNotification(), "sol_not");
            assertEquals(in.requestLimitDelta(), d.requestLimitDelta(), "req_lim_delta");
            assertEquals(in.lun(), d.lun(), "lun");
            assertEquals(in.sense().length, d.senseDataLength(), "sense_data_len");
            assertEquals(36 + in.sense().length, d.length(), "length");
            byte[] sense = new byte[in.sense().length];
            MemorySegment.copy(iu.iu(), ValueLayout.JAVA_BYTE, 36, sense, 0, sense.length);
            assertArrayEquals(in.sense(), sense, "sense data at byte 36");
            assertReencodes(iu, s -> new SrpAerRequest().wrap(s, 0).reset().setTag(d.tag()).setSolicitedNotification(d.solicitedNotification())
                    .setRequestLimitDelta(d.requestLimitDelta()).setLun(d.lun()).setSenseData(MemorySegment.ofArray(sense), 0, sense.length));
        });
    }

    @Test
    void aerResponse(TestInfo test) {
        FuzzRunner.forTest(test, TARGET, CI_ITERATIONS).run(r -> new TagInput(anyLong(r), Placement.random(r)), in -> {
            Encoded iu = encode(SrpAerResponse.LENGTH, in.at(), s -> new SrpAerResponse().wrap(s, 0).reset().setTag(in.tag()));
            SrpAerResponse d = decode(iu, 0, SrpOpcode.AER_RSP).aerResponse();
            assertEquals(in.tag(), d.tag(), "tag");
            assertReencodes(iu, s -> new SrpAerResponse().wrap(s, 0).reset().setTag(d.tag()));
        });
    }

    // ---- encoders shared by the first encoding and the re-encoding ----

    private static void encodeLoginRequest(MemorySegment s, LoginRequestInput in) {
        new SrpLoginRequest().wrap(s, 0).reset().setTag(in.tag()).setRequestedMaxInitiatorToTargetIuLength(in.maxItIuLength())
                .setRequiredBufferFormats(in.bufferFormats()).setFlags(in.flags()).setImmediateDataOffset(in.immediateDataOffset())
                .setInitiatorPortId(in.initiatorPortId()).setTargetPortId(in.targetPortId());
    }

    /** The order ib_srp follows: CDB (it sets the additional length), formats and counts, then descriptors. */
    private static void encodeCommand(MemorySegment s, CommandInput in) {
        SrpCommand c = new SrpCommand().wrap(s, 0).reset().setTag(in.tag()).setSolicitedNotification(in.solicited())
                .setLun(in.lun()).setTaskAttribute(in.taskAttribute()).setCdb(in.cdb())
                .setBufferFormats(in.out().format(), in.in().format())
                .setDataOutDescriptorCount(in.out().countField()).setDataInDescriptorCount(in.in().countField());
        writeDataBuffer(c, in.out(), true);
        writeDataBuffer(c, in.in(), false);
        if (in.out().format() == 3) {
            // The gap between the descriptors and the immediate data is the sender's; ib_srp leaves it zero.
            long dataAt = c.immediateDataOffsetInSegment(in.immediateDataOffset());
            s.asSlice(c.descriptorsEnd(), in.immediateGap()).fill((byte) 0);
            MemorySegment.copy(in.out().immediate(), 0, s, ValueLayout.JAVA_BYTE, dataAt, in.out().immediate().length);
        }
    }

    private static void writeDataBuffer(SrpCommand c, DataBuffer b, boolean out) {
        switch (b.format()) {
            case 1 -> (out ? c.dataOutDirect(new SrpDirectBuffer()) : c.dataInDirect(new SrpDirectBuffer()))
                    .set(b.direct().va(), b.direct().key(), b.direct().length());
            case 2 -> {
                SrpIndirectBuffer i = out ? c.dataOutIndirect(new SrpIndirectBuffer()) : c.dataInIndirect(new SrpIndirectBuffer());
                i.setTable(b.table().va(), b.table().key(), b.table().length(), b.total());
                for (int k = 0; k < b.list().size(); k++) {
                    Desc e = b.list().get(k);
                    i.setDescriptor(k, e.va(), e.key(), e.length());
                }
            }
            case 3 -> c.setImmediateDataLength(b.immediate().length);
            default -> {
            }
        }
    }

    private static void assertDataBuffer(DataBuffer b, SrpCommand d, boolean out) {
        String dir = out ? "data-out " : "data-in ";
        assertEquals(b.format() == 2 && b.tableCount() > b.list().size(), out ? d.dataOutTableIsExternal() : d.dataInTableIsExternal(),
                dir + "table is external");
        if (b.format() == 1) {
            SrpDirectBuffer direct = out ? d.dataOutDirect(new SrpDirectBuffer()) : d.dataInDirect(new SrpDirectBuffer());
            assertEquals(b.direct(), new Desc(direct.virtualAddress(), direct.key(), direct.length()), dir + "direct descriptor");
        } else if (b.format() == 2) {
            SrpIndirectBuffer i = out ? d.dataOutIndirect(new SrpIndirectBuffer()) : d.dataInIndirect(new SrpIndirectBuffer());
            assertEquals(b.table(), new Desc(i.tableVirtualAddress(), i.tableKey(), i.tableLength()), dir + "table descriptor");
            assertEquals(b.tableCount(), i.tableDescriptorCount(), dir + "table descriptor count");
            assertEquals(b.total(), i.totalLength(), dir + "total length");
            for (int k = 0; k < b.list().size(); k++) {
                assertEquals(b.list().get(k), new Desc(i.descriptorVirtualAddress(k), i.descriptorKey(k), i.descriptorLength(k)),
                        dir + "descriptor " + k);
            }
        }
    }

    /** The command as its getters describe it, to encode again. */
    private static CommandInput commandFromGetters(SrpCommand d, CommandInput in) {
        byte[] cdb = new byte[d.cdbLength()];
        d.copyCdb(MemorySegment.ofArray(cdb), 0);
        return new CommandInput(d.tag(), d.solicitedNotification(), d.lun(), d.taskAttribute(), cdb,
                dataBufferFromGetters(d, d.dataOutFormat(), d.dataOutDescriptorCount(), true, in),
                dataBufferFromGetters(d, d.dataInFormat(), d.dataInDescriptorCount(), false, in), in.immediateGap(), in.at());
    }

    private static DataBuffer dataBufferFromGetters(SrpCommand d, int format, int count, boolean out, CommandInput in) {
        switch (format) {
            case 1 -> {
                SrpDirectBuffer b = out ? d.dataOutDirect(new SrpDirectBuffer()) : d.dataInDirect(new SrpDirectBuffer());
                return new DataBuffer(1, count, new Desc(b.virtualAddress(), b.key(), b.length()), null, 0, 0, List.of(), null);
            }
            case 2 -> {
                SrpIndirectBuffer b = out ? d.dataOutIndirect(new SrpIndirectBuffer()) : d.dataInIndirect(new SrpIndirectBuffer());
                List<Desc> list = new ArrayList<>();
                for (int k = 0; k < count; k++) {
                    list.add(new Desc(b.descriptorVirtualAddress(k), b.descriptorKey(k), b.descriptorLength(k)));
                }
                return new DataBuffer(2, count, null, new Desc(b.tableVirtualAddress(), b.tableKey(), b.tableLength()),
                        b.tableDescriptorCount(), b.totalLength(), list, null);
            }
            case 3 -> {
                byte[] data = new byte[(int) d.dataOutLength()];
                MemorySegment.copy(d.segment(), ValueLayout.JAVA_BYTE, d.immediateDataOffsetInSegment(in.immediateDataOffset()), data, 0,
                        data.length);
                return new DataBuffer(3, count, null, null, 0, 0, List.of(), data);
            }
            default -> {
                return new DataBuffer(0, count, null, null, 0, 0, List.of(), null);
            }
        }
    }

    /** Returns the number of sense bytes copied. */
    private static int encodeResponse(MemorySegment s, ResponseInput in) {
        SrpResponse rsp = new SrpResponse().wrap(s, 0).reset().setTag(in.tag()).setSolicitedNotification(in.solicited())
                .setRequestLimitDelta(in.requestLimitDelta()).setStatus(in.status());
        switch (in.dataOut().kind()) {
            case 1 -> rsp.setDataOutOverflow(in.dataOut().count());
            case 2 -> rsp.setDataOutUnderflow(in.dataOut().count());
            default -> {
            }
        }
        switch (in.dataIn().kind()) {
            case 1 -> rsp.setDataInOverflow(in.dataIn().count());
            case 2 -> rsp.setDataInUnderflow(in.dataIn().count());
            default -> {
            }
        }
        if (in.responseCode() >= 0) {
            rsp.setResponseCode(in.responseCode());
        }
        return rsp.setSenseData(MemorySegment.ofArray(in.sense()), 0, in.sense().length, in.maxIuLength());
    }

    private static void assertLoginRequest(LoginRequestInput in, long tag, long maxIt, int bufferFormats, int flags, int immediateDataOffset,
                                           Consumer<byte[]> initiator, Consumer<byte[]> target) {
        assertEquals(in.tag(), tag, "tag");
        assertEquals(in.maxItIuLength(), maxIt, "req_it_iu_len");
        assertEquals(in.bufferFormats(), bufferFormats, "req_buf_fmt");
        assertEquals(in.flags(), flags, "req_flags");
        assertEquals(in.immediateDataOffset(), immediateDataOffset, "imm_data_offset");
        byte[] id = new byte[16];
        initiator.accept(id);
        assertArrayEquals(in.initiatorPortId(), id, "initiator_port_id");
        target.accept(id);
        assertArrayEquals(in.targetPortId(), id, "target_port_id");
    }

    // ---- placement, decoding, re-encoding ----

    /** Encoded bytes: the IU at {@code offset} in {@code upToEnd}, which ends where the IU ends. */
    record Encoded(MemorySegment upToEnd, int offset) {
        MemorySegment iu() {
            return upToEnd.asSlice(offset);
        }
    }

    /**
     * Encodes {@code length} bytes after {@code at.prefix()} junk bytes (more junk follows them), through a slice
     * of exactly the IU, so that an encoder writing outside it throws.
     */
    private static Encoded encode(int length, Placement at, Consumer<MemorySegment> encoder) {
        byte[] backing = new byte[at.prefix() + length + 8];
        Arrays.fill(backing, (byte) at.junk());
        encoder.accept(MemorySegment.ofArray(backing).asSlice(at.prefix(), length));
        return new Encoded(MemorySegment.ofArray(backing).asSlice(0, at.prefix() + length), at.prefix());
    }

    /**
     * Decodes at the IU's offset in a segment that ends with it: a read past the IU throws, a read before it
     * finds junk and fails the comparisons.
     */
    private static SrpIuDecoder decode(Encoded e, int immediateDataOffset, int opcode) {
        SrpIuDecoder decoder = new SrpIuDecoder().immediateDataOffset(immediateDataOffset);
        assertEquals(SrpDecodeError.NONE, decoder.decode(e.upToEnd(), e.offset(), e.upToEnd().byteSize() - e.offset()),
                "decoding what the setters wrote");
        assertEquals(opcode, decoder.opcode(), "opcode");
        return decoder;
    }

    /** Encoding the decoded values into zeroed bytes gives the bytes decoded, junk-filled at first: every byte is written. */
    private static void assertReencodes(Encoded e, Consumer<MemorySegment> encoder) {
        MemorySegment again = MemorySegment.ofArray(new byte[(int) e.iu().byteSize()]);
        encoder.accept(again);
        assertArrayEquals(bytes(e.iu()), bytes(again), "re-encoded bytes");
    }

    private static byte[] bytes(MemorySegment s) {
        return s.toArray(ValueLayout.JAVA_BYTE);
    }

    // ---- values, edges about one time in four ----

    static long anyLong(Random r) {
        return r.nextInt(4) == 0 ? new long[]{0, 1, -1, Long.MIN_VALUE, Long.MAX_VALUE}[r.nextInt(5)] : r.nextLong();
    }

    static int anyInt(Random r) {
        return r.nextInt(4) == 0 ? new int[]{0, 1, -1, Integer.MIN_VALUE, Integer.MAX_VALUE}[r.nextInt(5)] : r.nextInt();
    }

    static long u32(Random r) {
        return Integer.toUnsignedLong(anyInt(r));
    }

    static int u16(Random r) {
        return anyInt(r) & 0xFFFF;
    }

    static int u8(Random r) {
        return anyInt(r) & 0xFF;
    }
}

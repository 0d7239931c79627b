package org.rdmablock.target.srp;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.rdmablock.protocol.scsi.LogicalUnitTable;
import org.rdmablock.protocol.scsi.ScsiStatus;
import org.rdmablock.protocol.srp.SrpBufferFormat;
import org.rdmablock.protocol.srp.SrpLoginReject;
import org.rdmablock.protocol.srp.SrpLoginRequest;
import org.rdmablock.protocol.srp.SrpLoginRequestRdmaCm;
import org.rdmablock.protocol.srp.SrpLoginResponse;
import org.rdmablock.protocol.srp.SrpOpcode;
import org.rdmablock.target.config.InitiatorPortId;
import org.rdmablock.verbs.ConnectionFailedException;
import org.rdmablock.verbs.ConnectionRejectedException;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Logins: what an accepted SRP_LOGIN_RSP grants, and each SRP_LOGIN_REJ reason, read from the private data of the
 * rejected connect. A rejected login leaves the target as it was: a good login still works after it.
 */
class LoginTest extends TargetTestBase {
    /** The initiator that no LUN's access list names. */
    private static final long STRANGER = 0xDEAD;
    private static final int BOTH_FORMATS = SrpBufferFormat.SUPPORTS_DIRECT | SrpBufferFormat.SUPPORTS_INDIRECT;

    @Override
    LogicalUnitTable unitsFor(final InitiatorPortId initiator) {
        return initiator.high() == STRANGER ? null : units;
    }

    /** Login private data of initiator 0xD0 (8276-byte IU, immediate data, MULTIPLE) as {@code change} leaves it. */
    private static byte[] loginWith(final Consumer<SrpLoginRequestRdmaCm> change) {
        final byte[] data = loginData(0xD0, TestInitiator.IU_LENGTH,
                SrpLoginRequest.IMMEDIATE_DATA_REQUESTED | SrpLoginRequest.MULTICHANNEL_MULTI);
        change.accept(new SrpLoginRequestRdmaCm().wrap(MemorySegment.ofArray(data), 0));
        return data;
    }

    /** Connects with {@code privateData}, which the target must reject; returns the SRP_LOGIN_REJ. */
    private SrpLoginReject rejected(final byte[] privateData) {
        final ConnectionRejectedException e = assertThrows(ConnectionRejectedException.class,
                () -> new TestInitiator(target.localAddress(), privateData, 4096, 4).close());
        assertEquals(ConnectionFailedException.Reason.CONSUMER_REJECT, e.reason(), "the target rejected, not the transport");
        final SrpLoginReject reject = TestInitiator.loginReject(e);
        assertEquals(SrpOpcode.LOGIN_REJ, reject.opcode());
        assertEquals(BOTH_FORMATS, reject.supportedBufferFormats(), "LOGIN_REJ names the formats the target serves");
        return reject;
    }

    /**
     * Skips where the transport cannot deliver {@code length} bytes of connect private data as they are: an IB/RoCE
     * request (the native provider on rxe) carries exactly 56, padded with zeros, and refuses more before sending.
     */
    private static void assumeExactPrivateData(final int length) {
        org.junit.jupiter.api.Assumptions.assumeTrue(length == SrpLoginRequestRdmaCm.LENGTH || "soft".equals(TestInitiator.PROVIDER),
                "private data of " + length + " bytes: an IB/RoCE connect request carries exactly 56");
    }

    private static int lastNonZero(final byte[] bytes) {
        for (int i = bytes.length - 1; i >= 0; i--) {
            if (bytes[i] != 0) {
                return i;
            }
        }
        return -1;
    }

    /** A login that works after whatever was refused: the target serves on. */
    private void aGoodLoginStillWorks() {
        assertEquals(0, target.channelCount(), "a refused login holds no channel");
        try (TestInitiator ini = TestInitiator.login(target.localAddress(), ID_EXT, IOC_GUID, 0xD9, INITIATOR_BYTES)) {
            verifiedWriteAndRead(ini, 64, 8, 9);
        }
    }

    @Test
    void acceptedLoginGrantsCreditsIuLengthsFormatsAndImmediateData() {
        final TestInitiator ini = login(0xD1);
        final SrpLoginResponse rsp = ini.login;
        // the soft provider (MPA) carries the 52 bytes as they are; an IB CM REP pads them with zeros to 196
        if ("soft".equals(TestInitiator.PROVIDER)) {
            assertEquals(SrpLoginResponse.LENGTH, ini.loginReply.length, "LOGIN_RSP is the accept's private data");
        } else {
            assertTrue(ini.loginReply.length >= SrpLoginResponse.LENGTH, "LOGIN_RSP is in the accept's private data");
            assertTrue(lastNonZero(ini.loginReply) < SrpLoginResponse.LENGTH, "only zeros pad it");
        }
        assertEquals(SrpOpcode.LOGIN_RSP, rsp.opcode());
        assertEquals(TestInitiator.LOGIN_TAG, rsp.tag(), "the request's tag comes back");
        assertEquals(CREDITS, rsp.requestLimitDelta(), "the configured credits");
        assertEquals(TestInitiator.IU_LENGTH, rsp.maxInitiatorToTargetIuLength());
        assertEquals(TestInitiator.IU_LENGTH, rsp.maxTargetToInitiatorIuLength());
        assertEquals(BOTH_FORMATS, rsp.supportedBufferFormats(), "direct and indirect descriptors");
        assertTrue(rsp.immediateDataSupported(), "immediate data, as asked");
        assertEquals(SrpLoginResponse.MULTICHANNEL_NO_CHANNEL, rsp.flags() & 0x03, "the first channel of its nexus");
        assertEquals(1, target.channelCount());
        verifiedWriteAndRead(ini, 8, 16, 1);
    }

    @Test
    void smallerIuWithoutImmediateDataIsGrantedAsAsked() {
        final TestInitiator ini = login(loginData(0xD2, 4096, SrpLoginRequest.MULTICHANNEL_MULTI));
        assertEquals(4096, ini.login.maxInitiatorToTargetIuLength());
        assertEquals(4096, ini.login.maxTargetToInitiatorIuLength());
        assertFalse(ini.login.immediateDataSupported(), "not asked for, not granted");
        verifiedWriteAndRead(ini, 8, 16, 2);
    }

    @Test
    void immediateDataAtAnOffsetInsideTheCommandIsNotGranted() {
        final TestInitiator ini = login(loginWith(req -> req.setImmediateDataOffset(40)));
        assertFalse(ini.login.immediateDataSupported(), "offset 40 is inside SRP_CMD's fixed part");
        verifiedWriteAndRead(ini, 8, 16, 3);
    }

    @Test
    void theSmallestIuOfSixtyFourBytesServesDirectDescriptors() {
        final TestInitiator ini = login(loginData(0xD3, 64, SrpLoginRequest.MULTICHANNEL_MULTI));
        assertEquals(64, ini.login.maxInitiatorToTargetIuLength());
        verifiedWriteAndRead(ini, 8, 16, 4);
    }

    @Test
    void theSixtyFourByteLoginIuIsAcceptedToo() {
        assumeExactPrivateData(SrpLoginRequest.LENGTH);
        final byte[] iu = new byte[SrpLoginRequest.LENGTH];
        new SrpLoginRequestRdmaCm().wrap(MemorySegment.ofArray(loginData(0xD4, TestInitiator.IU_LENGTH, SrpLoginRequest.MULTICHANNEL_MULTI)), 0)
                .copyTo(new SrpLoginRequest().wrap(MemorySegment.ofArray(iu), 0));
        assertEquals(SrpOpcode.LOGIN_REQ, iu[0]);
        final TestInitiator ini = login(iu);
        assertEquals(CREDITS, ini.credits);
        verifiedWriteAndRead(ini, 8, 16, 5);
    }

    static Stream<Arguments> refusedLogins() {
        final byte[] garbage = new byte[SrpLoginRequestRdmaCm.LENGTH];
        new Random(42).nextBytes(garbage);
        garbage[11] = 0x55; // no LOGIN_REQ opcode
        return Stream.of(
                Arguments.of("another target's port id", SrpLoginReject.REASON_UNABLE_ASSOCIATE_CHANNEL,
                        loginWith(req -> req.setTargetPortId(TestInitiator.portId(ID_EXT, IOC_GUID + 1)))),
                Arguments.of("req_it_iu_len one over the maximum", SrpLoginReject.REASON_REQ_IT_IU_LENGTH_TOO_LARGE,
                        loginWith(req -> req.setRequestedMaxInitiatorToTargetIuLength(TestInitiator.IU_LENGTH + 1))),
                Arguments.of("req_it_iu_len 4 GiB - 1", SrpLoginReject.REASON_REQ_IT_IU_LENGTH_TOO_LARGE,
                        loginWith(req -> req.setRequestedMaxInitiatorToTargetIuLength(0xFFFF_FFFFL))),
                Arguments.of("req_it_iu_len 63", SrpLoginReject.REASON_REQ_IT_IU_LENGTH_TOO_LARGE,
                        loginWith(req -> req.setRequestedMaxInitiatorToTargetIuLength(63))),
                Arguments.of("req_it_iu_len 0", SrpLoginReject.REASON_REQ_IT_IU_LENGTH_TOO_LARGE,
                        loginWith(req -> req.setRequestedMaxInitiatorToTargetIuLength(0))),
                Arguments.of("no buffer format", SrpLoginReject.REASON_UNSUPPORTED_DESCRIPTOR_FORMAT,
                        loginWith(req -> req.setRequiredBufferFormats(0))),
                Arguments.of("only a reserved buffer format bit", SrpLoginReject.REASON_UNSUPPORTED_DESCRIPTOR_FORMAT,
                        loginWith(req -> req.setRequiredBufferFormats(0x01))),
                Arguments.of("an initiator on no access list", SrpLoginReject.REASON_UNABLE_ESTABLISH_CHANNEL,
                        loginData(STRANGER, TestInitiator.IU_LENGTH, SrpLoginRequest.MULTICHANNEL_MULTI)),
                Arguments.of("no private data", SrpLoginReject.REASON_UNABLE_ESTABLISH_CHANNEL, new byte[0]),
                Arguments.of("10 bytes of private data", SrpLoginReject.REASON_UNABLE_ESTABLISH_CHANNEL,
                        java.util.Arrays.copyOf(loginData(0xD5, TestInitiator.IU_LENGTH, 0), 10)),
                Arguments.of("55 bytes of a login", SrpLoginReject.REASON_UNABLE_ESTABLISH_CHANNEL,
                        java.util.Arrays.copyOf(loginData(0xD5, TestInitiator.IU_LENGTH, 0), 55)),
                Arguments.of("56 random bytes", SrpLoginReject.REASON_UNABLE_ESTABLISH_CHANNEL, garbage),
                Arguments.of("200 random bytes", SrpLoginReject.REASON_UNABLE_ESTABLISH_CHANNEL,
                        java.util.Arrays.copyOf(garbage, 200)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusedLogins")
    void refusedLoginSaysWhy(final String what, final int reason, final byte[] privateData) {
        assumeExactPrivateData(privateData.length);
        final SrpLoginReject reject = rejected(privateData);
        assertEquals(Integer.toHexString(reason), Integer.toHexString(reject.reason()), what);
        if (privateData.length == SrpLoginRequestRdmaCm.LENGTH && privateData[11] == SrpOpcode.LOGIN_REQ) {
            assertEquals(TestInitiator.LOGIN_TAG, reject.tag(), what + ": the request's tag comes back");
        }
        aGoodLoginStillWorks();
    }

    @Test
    void aLoginBeyondTheChannelLimitIsRefusedUntilOneEnds() {
        final List<TestInitiator> logged = new ArrayList<>();
        for (int i = 0; i < MAX_CHANNELS; i++) {
            logged.add(login(0xE0 + i));
        }
        assertEquals(MAX_CHANNELS, target.channelCount());
        assertEquals(SrpLoginReject.REASON_CHANNEL_LIMIT_REACHED,
                rejected(loginData(0xEF, TestInitiator.IU_LENGTH, SrpLoginRequest.MULTICHANNEL_MULTI)).reason());
        for (final TestInitiator ini : logged) {
            assertEquals(ScsiStatus.GOOD, ini.execute(LUN0, Cdb.of(6, 0).bytes(), 0, 0, 0, false).status(),
                    "the logged-in channels serve on");
        }
        logged.getFirst().close();
        awaitTargetIdle(MAX_CHANNELS - 1);
        verifiedWriteAndRead(login(0xEF), 64, 8, 6);
        assertEquals(MAX_CHANNELS, target.channelCount());
    }
}

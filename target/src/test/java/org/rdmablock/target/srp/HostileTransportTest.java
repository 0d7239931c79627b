package org.rdmablock.target.srp;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.rdmablock.protocol.scsi.ScsiStatus;
import org.rdmablock.protocol.srp.SrpBufferFormat;
import org.rdmablock.protocol.srp.SrpCommand;
import org.rdmablock.protocol.srp.SrpDirectBuffer;
import org.rdmablock.protocol.srp.SrpLoginRequest;
import org.rdmablock.protocol.srp.SrpLoginRequestRdmaCm;
import org.rdmablock.protocol.srp.SrpOpcode;
import org.rdmablock.protocol.srp.SrpResponse;
import org.rdmablock.verbs.soft.Configuration;
import org.rdmablock.verbs.soft.wire.Fpdu;
import org.rdmablock.verbs.soft.wire.FpduHeader;
import org.rdmablock.verbs.soft.wire.MpaFrame;
import org.rdmablock.verbs.soft.wire.RdmapOpcode;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.rdmablock.target.Waiting.waitUpTo;

/**
 * A hostile peer on the soft provider's transport (issue 41): a raw TCP socket that logs in byte for byte as the
 * provider would ({@link RawIwarpInitiator}) and then breaks the stream, or breaks the MPA handshake itself, or opens
 * and drops hundreds of connections. The target must end only that connection (RFC 5044: a CRC or framing error
 * closes the stream), free what it held, and keep serving the bystander initiator with verified data meanwhile.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class HostileTransportTest extends TargetTestBase {
    private static final Duration ANSWER = Duration.ofSeconds(10);
    private static final long HOSTILE_ID = 0xBAD0;
    private static final long TAG = 0x7E57;
    /** The LBA the bystander's verified I/O uses (the hostile peers never write). */
    private static final long BYSTANDER_LBA = 2048;

    private TestInitiator bystander;

    @BeforeAll
    static void onlyTheSoftProviderHasThisWire() {
        assumeTrue("soft".equals(TestInitiator.PROVIDER), "a raw TCP peer speaks only to the soft provider");
    }

    @BeforeEach
    void loginBystander() {
        bystander = login(0xB1);
    }

    private RawIwarpInitiator raw() {
        try {
            return new RawIwarpInitiator(target.localAddress());
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static byte[] hostileLogin() {
        return loginData(HOSTILE_ID, TestInitiator.IU_LENGTH, SrpLoginRequest.MULTICHANNEL_MULTI);
    }

    /** A TEST UNIT READY for LUN 0 with {@link #TAG}: an SRP_CMD with no data. */
    private static byte[] testUnitReady() {
        final byte[] iu = new byte[SrpCommand.FIXED_LENGTH];
        new SrpCommand().wrap(MemorySegment.ofArray(iu), 0).reset().setLun(LUN0).setCdb(new byte[6]).setTag(TAG);
        return iu;
    }

    /** The bystander's verified write and read, then the target back at the bystander's channel alone, all free. */
    private void assertOnlyTheBystanderLeftAndServed(final int seed) {
        verifiedWriteAndRead(bystander, BYSTANDER_LBA, 16, seed);
        awaitTargetIdle(1);
    }

    @Test
    void theScriptedPeerLogsInAndIsServedLikeAnyInitiator() throws IOException {
        try (RawIwarpInitiator peer = raw()) {
            final byte[] loginResponse = peer.connect(hostileLogin(), ANSWER);
            assertEquals(SrpOpcode.LOGIN_RSP, loginResponse[0] & 0xFF, "the MPA reply carries an SRP_LOGIN_RSP");
            peer.write(peer.send(testUnitReady()));
            final byte[] answer = peer.nextSend(ANSWER);
            assertNotNull(answer, "TEST UNIT READY from the scripted peer was answered");
            final SrpResponse response = new SrpResponse().wrap(MemorySegment.ofArray(answer), 0);
            assertEquals(SrpOpcode.RSP, response.opcode());
            assertEquals(TAG, response.tag());
            assertEquals(ScsiStatus.GOOD, response.status());
            assertEquals(2, target.channelCount(), "the scripted peer holds a channel beside the bystander");
        }
        assertOnlyTheBystanderLeftAndServed(1);
    }

    static Stream<Arguments> brokenFrames() {
        return Stream.of(
                Arguments.of("a SEND whose CRC is wrong", (Function<RawIwarpInitiator, ByteBuffer>) peer -> {
                    final ByteBuffer fpdu = peer.send(testUnitReady());
                    final int crcAt = fpdu.capacity() - Fpdu.CRC_SIZE;
                    fpdu.put(crcAt, (byte) ~fpdu.get(crcAt));
                    return fpdu;
                }),
                Arguments.of("a SEND one payload byte of which changed on the way", (Function<RawIwarpInitiator, ByteBuffer>) peer -> {
                    final ByteBuffer fpdu = peer.send(testUnitReady());
                    fpdu.put(FpduHeader.UNTAGGED_LENGTH + SrpCommand.CDB_OFFSET, (byte) 0x28);
                    return fpdu;
                }),
                Arguments.of("a frame claiming a 64 KiB ULPDU", (Function<RawIwarpInitiator, ByteBuffer>) peer -> {
                    final ByteBuffer fpdu = ByteBuffer.allocate(Fpdu.totalLength(Fpdu.MAX_ULPDU));
                    Fpdu.ulpduLength(fpdu, Fpdu.LENGTH_OFFSET, Fpdu.MAX_ULPDU);
                    return fpdu;
                }),
                Arguments.of("a SEND of DDP version 0", (Function<RawIwarpInitiator, ByteBuffer>) peer -> {
                    final ByteBuffer fpdu = peer.send(testUnitReady());
                    fpdu.put(FpduHeader.DDP_CONTROL_OFFSET, (byte) (fpdu.get(FpduHeader.DDP_CONTROL_OFFSET) & ~FpduHeader.DDP_VERSION_MASK));
                    return resealed(fpdu);
                }),
                Arguments.of("an RDMA WRITE to an STag the target never advertised", (Function<RawIwarpInitiator, ByteBuffer>) peer -> {
                    final ByteBuffer fpdu = peer.send(new byte[512]);
                    new FpduHeader().wrap(fpdu, 0).control(RdmapOpcode.RDMA_WRITE, true, 0).tagged(0x00C0FFEE, 0);
                    return resealed(fpdu);
                }));
    }

    /** {@code fpdu} with its CRC computed again after a test changed a header field. */
    private static ByteBuffer resealed(final ByteBuffer fpdu) {
        Fpdu.seal(new java.util.zip.CRC32C(), fpdu);
        return fpdu;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("brokenFrames")
    void aBrokenFrameEndsOnlyItsConnection(final String what, final Function<RawIwarpInitiator, ByteBuffer> frame) throws IOException {
        try (RawIwarpInitiator peer = raw()) {
            peer.connect(hostileLogin(), ANSWER);
            try {
                peer.write(frame.apply(peer));
            } catch (final IOException closedMidFrame) {
                // the target may close before a 64 KiB frame is all written: that is the answer looked for
            }
            assertTrue(peer.closedByTarget(ANSWER), what + ": the target closed the connection");
        }
        assertOnlyTheBystanderLeftAndServed(2);
    }

    /** READ(16) of {@code blocks} blocks of LUN 0 into memory the scripted peer names (it registered none). */
    private static byte[] readIntoNowhere(final long tag, final int blocks) {
        final byte[] iu = new byte[SrpCommand.FIXED_LENGTH + SrpDirectBuffer.LENGTH];
        final MemorySegment segment = MemorySegment.ofArray(iu);
        final SrpCommand command = new SrpCommand().wrap(segment, 0).reset().setTag(tag).setLun(LUN0)
                .setCdb(TestInitiator.read16(0, blocks)).setBufferFormats(SrpBufferFormat.NONE, SrpBufferFormat.DIRECT);
        new SrpDirectBuffer().wrap(segment, command.dataInDescriptorOffset()).set(0x1000_0000L, 0x1234, blocks * 512L);
        return iu;
    }

    /**
     * A peer that asks for 16 MiB and then reads nothing more (its TCP window closes under the target's RDMA WRITEs)
     * and answers nothing: the bystander, served by the same I/O and poller threads, goes on while the sick
     * connection is still there, and the sick one is given up after the transport timeout (nothing moves on it while
     * the target's WRITEs wait to be confirmed), its channel, slots and data buffers back.
     */
    @Test
    void aPeerThatStopsReadingStallsNobodyAndIsGivenUp() throws IOException {
        try (RawIwarpInitiator peer = raw()) {
            peer.connect(hostileLogin(), ANSWER);
            for (int i = 0; i < 16; i++) {
                peer.write(peer.send(readIntoNowhere(TAG + i, 2048)));
            }
            waitUpTo(SETTLE, "the sick peer's reads under way").until(() -> target.freeSlots() < RING_SIZE);
            for (int i = 0; i < 50; i++) {
                verifiedWriteAndRead(bystander, BYSTANDER_LBA + 16L * i, 16, 100 + i);
            }
            assertEquals(2, target.channelCount(), "the bystander was served while the sick connection still held its channel");
            waitUpTo(Duration.ofSeconds(30), "the sick connection given up after the transport timeout")
                    .until(() -> target.channelCount() == 1);
        }
        assertOnlyTheBystanderLeftAndServed(7);
    }

    /** The soft provider's frame timeout, shortened for this test's connection (its QP reads it when made). */
    private static final long FRAME_TIMEOUT_MILLIS = 1500;

    @Test
    void aFrameCutShortThenSilenceIsDroppedWithinTheFrameTimeout() throws IOException {
        System.setProperty(Configuration.FRAME_TIMEOUT_MILLIS_PROP_NAME, Long.toString(FRAME_TIMEOUT_MILLIS));
        try (RawIwarpInitiator peer = raw()) {
            peer.connect(hostileLogin(), ANSWER);
            final ByteBuffer fpdu = peer.send(testUnitReady());
            peer.write(fpdu.limit(fpdu.capacity() / 2));
            final long started = System.nanoTime();
            assertTrue(peer.closedByTarget(ANSWER), "the target closed a connection silent in the middle of a frame");
            final long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            assertTrue(tookMillis >= FRAME_TIMEOUT_MILLIS, "closed after " + tookMillis + " ms, before the frame timeout");
        } finally {
            System.clearProperty(Configuration.FRAME_TIMEOUT_MILLIS_PROP_NAME);
        }
        assertOnlyTheBystanderLeftAndServed(3);
    }

    static Stream<Arguments> brokenRequests() {
        final byte[] login = hostileLogin();
        return Stream.of(
                Arguments.of("a reply key in a request", edit(login, mpa -> mpa.key(MpaFrame.REPLY_KEY))),
                Arguments.of("markers asked for", edit(login, mpa -> mpa.flags(mpa.flags() | MpaFrame.FLAG_MARKERS))),
                Arguments.of("MPA revision 3", edit(login, mpa -> mpa.revision(3))),
                Arguments.of("private data of 65535 bytes claimed", edit(login, mpa -> mpa.privateDataLength(0xFFFF))),
                Arguments.of("an enhanced frame without its IRD/ORD block", edit(login, mpa -> mpa.privateDataLength(2))));
    }

    static Stream<Arguments> brokenLogins() {
        final byte[] login = hostileLogin();
        final byte[] wrongOpcode = login.clone();
        wrongOpcode[SrpLoginRequestRdmaCm.RDMA_OPCODE_OFFSET] = (byte) SrpOpcode.CMD;
        return Stream.of(
                Arguments.of("no SRP login in the private data", new byte[0]),
                Arguments.of("a login cut to half its length", Arrays.copyOf(login, login.length / 2)),
                Arguments.of("an SRP_CMD where the login should be", wrongOpcode));
    }

    /** The SRP layer's refusals travel in an MPA reply with the Reject bit: SRP_LOGIN_REJ, and no channel. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("brokenLogins")
    void aBrokenLoginIsRejectedWithAnSrpLoginReject(final String what, final byte[] login) throws IOException {
        try (RawIwarpInitiator peer = raw()) {
            final RawIwarpInitiator.Reply reply = peer.request(login, ANSWER);
            assertTrue(reply.rejected(), what + ": the MPA reply rejects the request");
            assertEquals(SrpOpcode.LOGIN_REJ, reply.privateData()[0] & 0xFF, what + ": the reject carries an SRP_LOGIN_REJ");
            assertTrue(peer.closedByTarget(ANSWER), what + ": the target closed the connection after its reject");
        }
        assertEquals(1, target.channelCount(), what + ": no channel was made");
        assertOnlyTheBystanderLeftAndServed(6);
    }

    private static ByteBuffer edit(final byte[] login, final java.util.function.Consumer<MpaFrame> change) {
        final ByteBuffer frame = RawIwarpInitiator.mpaRequest(login);
        change.accept(new MpaFrame().wrap(frame, 0));
        return frame;
    }

    /** RFC 5044 §7.1: a request the responder cannot take closes the stream; no channel comes of it. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("brokenRequests")
    void aBrokenMpaRequestGetsNoChannel(final String what, final ByteBuffer request) throws IOException {
        try (RawIwarpInitiator peer = raw()) {
            peer.write(request);
            assertTrue(peer.closedByTarget(ANSWER), what + ": the target closed the connection");
        }
        assertEquals(1, target.channelCount(), what + ": no channel was made");
        assertOnlyTheBystanderLeftAndServed(4);
    }

    /**
     * 500 connections, a quarter each closed at once, in the middle of the MPA request, right after it (the target
     * accepting), and logged in: every one of them leaves nothing behind. A login takes one of the target's channels
     * until its end is seen, so each one that got that far is waited out before the next: a flood of logins from one
     * initiator may fill the channel table for a moment (refused with RDMA CHANNEL LIMIT REACHED meanwhile), and
     * what is checked here is that every channel comes back.
     */
    @Test
    void fiveHundredConnectionsOpenedAndDroppedLeaveNothingBehind() throws IOException {
        final long descriptorsBefore = openDescriptors();
        final byte[] login = hostileLogin();
        for (int i = 0; i < 500; i++) {
            try (RawIwarpInitiator peer = raw()) {
                switch (i % 4) {
                    case 0 -> { } // connect and go
                    case 1 -> peer.write(RawIwarpInitiator.mpaRequest(login).limit(MpaFrame.HEADER_LENGTH / 2));
                    case 2 -> peer.write(RawIwarpInitiator.mpaRequest(login));
                    default -> peer.connect(login, ANSWER);
                }
            }
            if (i % 4 >= 2) {
                final int n = i;
                waitUpTo(SETTLE, "connection " + n + "'s channel freed").until(() -> target.channelCount() == 1);
            }
            if (i % 100 == 99) {
                verifiedWriteAndRead(bystander, BYSTANDER_LBA, 16, i);
            }
        }
        assertOnlyTheBystanderLeftAndServed(5);
        login(0xC0DE).close();
        awaitTargetIdle(1);
        waitUpTo(SETTLE, "the open file descriptors back to where they were before 500 dropped connections")
                .untilAsserted(() -> assertTrue(openDescriptors() <= descriptorsBefore + 8,
                        "open file descriptors: " + descriptorsBefore + " before, " + openDescriptors() + " after"));
    }

    /** The process's open file descriptors (Linux). */
    private static long openDescriptors() throws IOException {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.count();
        }
    }
}

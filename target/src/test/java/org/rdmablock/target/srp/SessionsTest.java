package org.rdmablock.target.srp;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.rdmablock.protocol.scsi.ScsiStatus;
import org.rdmablock.protocol.srp.SrpLoginRequest;
import org.rdmablock.protocol.srp.SrpLoginResponse;
import org.rdmablock.protocol.srp.SrpOpcode;
import org.rdmablock.protocol.srp.SrpResponse;
import org.rdmablock.protocol.srp.SrpTargetLogout;
import org.rdmablock.target.config.InitiatorPortId;
import org.rdmablock.target.core.CommandPipeline;
import org.rdmablock.target.srp.TestInitiator.Response;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.rdmablock.target.Waiting.waitUpTo;

/**
 * Sessions: eight initiators at once, the multichannel actions SINGLE and MULTIPLE, SRP_I_LOGOUT, and the task
 * management functions with their SRP response codes.
 */
class SessionsTest extends TargetTestBase {
    private static final int SESSIONS = MAX_CHANNELS;
    private static final int ROUNDS = 25;
    /** Commands each session keeps in flight per round. */
    private static final int DEPTH = 4;
    private static final int BLOCKS = 16;

    /** LBA of command {@code command} of round {@code round} of session {@code session}: disjoint ranges. */
    private static long lba(final int session, final int round, final int command) {
        return 10_000L + session * 4096L + (round * DEPTH + command) * (long) BLOCKS;
    }

    private static int seed(final int session, final int round, final int command) {
        return session * 1000 + round * DEPTH + command;
    }

    /** One session: rounds of {@link #DEPTH} WRITEs in flight, then the {@link #DEPTH} READs of them, each checked. */
    private static void session(final TestInitiator ini, final int session) {
        final int bytes = BLOCKS * 512;
        for (int round = 0; round < ROUNDS; round++) {
            for (int c = 0; c < DEPTH; c++) {
                fill(ini, (long) c * bytes, pattern(bytes, seed(session, round, c)));
                ini.submit(c, LUN0, TestInitiator.write16(lba(session, round, c), BLOCKS), bytes, 0, (long) c * bytes, false);
            }
            assertAllGood(ini.awaitResponses(DEPTH), "session " + session + " writes");
            ini.buffer().asSlice(DEPTH * (long) bytes, DEPTH * (long) bytes).fill((byte) 0);
            for (int c = 0; c < DEPTH; c++) {
                ini.submit(DEPTH + c, LUN0, TestInitiator.read16(lba(session, round, c), BLOCKS), 0, bytes, (long) (DEPTH + c) * bytes, false);
            }
            assertAllGood(ini.awaitResponses(DEPTH), "session " + session + " reads");
            for (int c = 0; c < DEPTH; c++) {
                assertArrayEquals(pattern(bytes, seed(session, round, c)), bytesAt(ini, (long) (DEPTH + c) * bytes, bytes),
                        "session " + session + " round " + round + " command " + c + " reads back its own data");
            }
        }
    }

    private static void assertAllGood(final List<Response> responses, final String what) {
        long tags = 0;
        for (final Response r : responses) {
            assertEquals(ScsiStatus.GOOD, r.status(), what + ": " + r);
            tags |= 1L << r.tag();
        }
        assertEquals(responses.size(), Long.bitCount(tags), what + ": one response per tag");
    }

    @Test
    void eightConcurrentSessionsWriteAndReadTheirOwnRanges() throws Exception {
        final ExecutorService threads = Executors.newFixedThreadPool(SESSIONS);
        try {
            final List<Future<TestInitiator>> done = new ArrayList<>();
            for (int s = 0; s < SESSIONS; s++) {
                final int session = s;
                done.add(threads.submit(() -> {
                    final TestInitiator ini = login(0x100 + session);
                    session(ini, session);
                    return ini;
                }));
            }
            for (final Future<TestInitiator> f : done) {
                f.get(120, TimeUnit.SECONDS); // rethrows a session's assertion
            }
        } finally {
            threads.shutdownNow();
        }
        assertEquals(SESSIONS, target.channelCount());
        final int bytes = BLOCKS * 512;
        for (int s = 0; s < SESSIONS; s++) {
            for (int round = 0; round < ROUNDS; round++) {
                for (int c = 0; c < DEPTH; c++) {
                    assertArrayEquals(pattern(bytes, seed(s, round, c)), stored(backend0, lba(s, round, c) * 512, bytes),
                            "the LUN holds session " + s + "'s data, untouched by the others");
                }
            }
        }
        // counted when a response's SEND completes, which may come after the initiator already has the response
        waitUpTo(SETTLE, "all " + 2L * SESSIONS * ROUNDS * DEPTH + " commands counted as answered")
                .until(target::commandsCompleted, answered -> answered >= 2L * SESSIONS * ROUNDS * DEPTH);
    }

    @Test
    void multichannelSingleEndsTheInitiatorsEarlierChannel() {
        final TestInitiator first = login(singleChannelLogin(0xF1));
        final TestInitiator other = login(0xF2);
        assertEquals(SrpLoginResponse.MULTICHANNEL_NO_CHANNEL, first.login.flags() & 0x03);
        verifiedWriteAndRead(first, 8, 8, 1);

        final TestInitiator second = login(singleChannelLogin(0xF1));
        assertEquals(SrpLoginResponse.MULTICHANNEL_TERMINATED, second.login.flags() & 0x03, "the earlier channel was ended");
        final TestInitiator.Ending ending = first.awaitEnding(Duration.ofSeconds(5));
        assertTrue(ending.disconnected(), "the earlier channel is gone: " + ending);
        assertTrue(ending.responses().stream().anyMatch(r -> r.opcode() == SrpOpcode.T_LOGOUT
                        && r.logoutReason() == SrpTargetLogout.REASON_MULTICHANNEL_ACTION),
                "the earlier channel was told why (SRP_T_LOGOUT, multichannel action): " + ending);
        awaitTargetIdle(2);
        verifiedWriteAndRead(second, 8, 8, 2);
        verifiedWriteAndRead(other, 16, 8, 3);
    }

    /**
     * A unit attention belongs to the I_T nexus (SAM-5 6.6), which SRP's channels of one initiator port share: it is
     * reported on whichever channel the next command comes, once, and a channel logged in later still sees it.
     */
    @Test
    void aUnitAttentionIsReportedOncePerNexusNotOncePerChannel() {
        final TestInitiator first = login(0xF6);
        final TestInitiator second = login(0xF6);
        assertEquals(SrpLoginResponse.MULTICHANNEL_MAINTAINED, second.login.flags() & 0x03);
        final TestInitiator stranger = login(0xF7);
        target.lunInventoryChanged(new InitiatorPortId(0xF6, 0x1));
        final TestInitiator third = login(0xF6);
        final TestInitiator.Response ua = third.execute(LUN0, new byte[6], 0, 0, 0, false);
        assertEquals(ScsiStatus.CHECK_CONDITION, ua.status(), "the nexus's pending unit attention, on its newest channel");
        assertEquals(0x3F, Byte.toUnsignedInt(ua.sense()[12]), "REPORTED LUNS DATA HAS CHANGED");
        assertEquals(ScsiStatus.GOOD, first.execute(LUN0, new byte[6], 0, 0, 0, false).status(), "reported once per nexus");
        assertEquals(ScsiStatus.GOOD, second.execute(LUN0, new byte[6], 0, 0, 0, false).status(), "reported once per nexus");
        assertEquals(ScsiStatus.GOOD, stranger.execute(LUN0, new byte[6], 0, 0, 0, false).status(), "another nexus has none");
    }

    @Test
    void multichannelMultipleKeepsTheEarlierChannel() {
        final TestInitiator first = login(0xF3);
        final TestInitiator second = login(0xF3);
        assertEquals(SrpLoginResponse.MULTICHANNEL_MAINTAINED, second.login.flags() & 0x03, "the earlier channel is kept");
        assertEquals(2, target.channelCount());
        verifiedWriteAndRead(first, 8, 8, 4);
        verifiedWriteAndRead(second, 16, 8, 5);
        // one nexus, one LUN: what one channel writes the other reads
        first.buffer().asSlice(0, 4096).fill((byte) 0);
        assertEquals(ScsiStatus.GOOD, first.execute(LUN0, TestInitiator.read16(16, 8), 0, 4096, 0, false).status());
        assertArrayEquals(pattern(4096, 5), bytesAt(first, 0, 4096));

        final TestInitiator third = login(loginData(0xF3, TestInitiator.IU_LENGTH, SrpLoginRequest.MULTICHANNEL_SINGLE));
        assertEquals(SrpLoginResponse.MULTICHANNEL_TERMINATED, third.login.flags() & 0x03);
        assertTrue(first.awaitEnding(Duration.ofSeconds(5)).disconnected(), "SINGLE ends every earlier channel");
        assertTrue(second.awaitEnding(Duration.ofSeconds(5)).disconnected(), "SINGLE ends every earlier channel");
        awaitTargetIdle(1);
        verifiedWriteAndRead(third, 24, 8, 6);
    }

    @Test
    void initiatorLogoutClosesTheChannel() {
        final TestInitiator ini = login(0xF4);
        verifiedWriteAndRead(ini, 8, 8, 7);
        ini.sendLogout(0x10);
        final TestInitiator.Ending ending = ini.awaitEnding(Duration.ofSeconds(5));
        assertTrue(ending.disconnected(), "the target disconnects: " + ending);
        assertTrue(ending.responses().isEmpty(), "SRP_I_LOGOUT has no response: " + ending);
        awaitTargetIdle(0);
        verifiedWriteAndRead(login(0xF4), 8, 8, 8);
    }

    @Test
    void logoutWithACommandInTheBackendFreesItWhenItFinishes() {
        final TestInitiator ini = login(0xF5);
        lun0Gate.hold();
        ini.submit(1, LUN0, TestInitiator.read16(0, 128), 0, 65536, 0, false);
        waitUpTo(SETTLE, "the READ waits in the backend").until(lun0Gate::heldCount, held -> held == 1);
        ini.sendLogout(2);
        assertTrue(ini.awaitEnding(Duration.ofSeconds(5)).disconnected());
        assertEquals(1, target.channelCount(), "the channel stays until its command is done");
        assertEquals(65536 / CommandPipeline.DATA_CHUNK_BYTES, target.dataChunksInUse(), "the READ holds its buffer");
        lun0Gate.release();
        awaitTargetIdle(0);
    }

    @Test
    void anInitiatorThatVanishesWithCommandsInFlightLeavesNothingBehind() {
        final TestInitiator ini = login(0xF7);
        final TestInitiator other = login(0xF8);
        lun0Gate.hold();
        for (int tag = 1; tag <= 4; tag++) {
            ini.submit(tag, LUN0, TestInitiator.read16(tag * 128L, 128), 0, 65536, tag * 65536L, false);
        }
        waitUpTo(SETTLE, "the READs wait in the backend").until(lun0Gate::heldCount, held -> held == 4);
        ini.close(); // no logout: the connection just goes
        assertEquals(4 * 65536 / CommandPipeline.DATA_CHUNK_BYTES, target.dataChunksInUse(),
                "the READs hold their buffers until they finish");
        lun0Gate.release();
        awaitTargetIdle(1);
        verifiedWriteAndRead(other, 8, 8, 10);
    }

    @ParameterizedTest(name = "function 0x{0} -> response code {1}")
    @CsvSource({"01, 0", "02, 0", "04, 0", "08, 0", "40, 4", "77, 4"})
    void taskManagementAnswersWithTheSrpResponseCode(final String function, final int code) {
        final TestInitiator ini = login(0xF6);
        ini.submitTaskManagement(0x700, LUN0, Integer.parseInt(function, 16), 0xDEAD);
        final Response r = ini.awaitResponse();
        assertEquals(SrpOpcode.RSP, r.opcode());
        assertEquals(0x700, r.tag(), "the request's tag");
        assertEquals(SrpResponse.FLAG_RSPVALID, r.flags() & SrpResponse.FLAG_RSPVALID, "response data is valid");
        assertEquals(code, r.responseCode());
        assertEquals(1, r.requestLimitDelta(), "the credit comes back");
        assertEquals(CREDITS, ini.credits);
        verifiedWriteAndRead(ini, 8, 8, 9);
    }
}

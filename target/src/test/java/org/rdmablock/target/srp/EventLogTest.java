package org.rdmablock.target.srp;

import org.junit.jupiter.api.Test;
import org.rdmablock.protocol.scsi.ScsiStatus;
import org.rdmablock.protocol.srp.SrpLoginRequest;
import org.rdmablock.protocol.srp.SrpTaskManagement;
import org.rdmablock.target.LogCapture;
import org.rdmablock.target.core.CommandPipeline;
import org.rdmablock.target.metrics.TargetStatistics;
import org.rdmablock.verbs.ConnectionRejectedException;

import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.rdmablock.target.Waiting.waitUpTo;

/**
 * What an operator reads in the log: one line for each login, rejected login, logout, task management request and lost
 * channel, with who (channel, initiator port id, address) and why.
 */
class EventLogTest extends TargetTestBase {
    private static final Duration WAIT = Duration.ofSeconds(5);
    /** The initiator port id {@link TestInitiator#login} gives initiator 0x20, as the log writes it. */
    private static final String INITIATOR_20 = "0000000000000020" + "0000000000000001";
    private static final Predicate<String> NOT_DEBUG = l -> !l.startsWith("DEBUG");

    @Test
    void aLoginIsOneInfoLineWithWhoAndWhatWasGranted() throws Exception {
        try (LogCapture log = new LogCapture(SrpTarget.class, CommandPipeline.class)) {
            login(0x20);
            final String line = log.await(l -> l.contains("logged in"), WAIT);
            assertTrue(line.matches("INFO channel 0 \\(initiator " + INITIATOR_20 + ", /127\\.0\\.0\\.1:\\d+\\) logged in: "
                    + CREDITS + " credits, IU 8276 bytes, immediate data at byte 68, multichannel first channel"), line);
            assertEquals(List.of(line), log.lines(), "one line for the login, nothing else");
            assertEquals(1, statistics.loginsAccepted());
        }
    }

    @Test
    void aRejectedLoginIsOneWarningWithTheReasonInWords() throws Exception {
        try (LogCapture log = new LogCapture(SrpTarget.class, CommandPipeline.class)) {
            final byte[] wrongTarget = TestInitiator.loginPrivateData(ID_EXT + 1, IOC_GUID, 0x21, TestInitiator.IU_LENGTH,
                    SrpLoginRequest.MULTICHANNEL_MULTI, 0);
            assertThrows(ConnectionRejectedException.class, () -> login(wrongTarget));
            final String line = log.await(l -> l.contains("rejected"), WAIT);
            assertTrue(line.matches("WARN login from /127\\.0\\.0\\.1:\\d+ \\(initiator 0000000000000021"
                    + "0000000000000001\\) rejected \\(UNABLE TO ASSOCIATE RDMA CHANNEL\\): target port id "
                    + String.format("%016x%016x", ID_EXT + 1, IOC_GUID) + " is not this target's \\("
                    + String.format("%016x%016x", ID_EXT, IOC_GUID) + "\\)"), line);
            assertEquals(List.of(line), log.lines());
            assertEquals(1, statistics.loginsRejected());
            assertEquals(0, statistics.loginsAccepted());
        }
    }

    @Test
    void aLogoutIsOneInfoLineAndNoLostChannel() throws Exception {
        final String line = loginThen(ini -> ini.sendLogout(9), "its disconnect is no lost channel");
        assertTrue(line.matches("INFO channel 0 \\(initiator " + INITIATOR_20 + ", /127\\.0\\.0\\.1:\\d+\\) logged out:"
                + " SRP_I_LOGOUT; 0 command\\(s\\) in flight"), line);
        assertEquals(0, statistics.count(TargetStatistics.Count.LOST_CHANNELS));
    }

    @Test
    void aChannelLostWithoutALogoutIsOneWarning() throws Exception {
        final String line = loginThen(TestInitiator::close, "one line for the loss"); // no SRP_I_LOGOUT
        assertTrue(line.matches("WARN channel 0 \\(initiator " + INITIATOR_20 + ", /127\\.0\\.0\\.1:\\d+\\) lost: .+,"
                + " without a logout; 0 command\\(s\\) in flight"), line);
        assertEquals(1, statistics.count(TargetStatistics.Count.LOST_CHANNELS));
    }

    /**
     * Logs initiator 0x20 in, ends its channel with {@code end} and waits until the target has freed it; the log must
     * hold two lines (DEBUG apart), the login's and then the end's, which it returns.
     */
    private String loginThen(final Consumer<TestInitiator> end, final String why) throws Exception {
        try (LogCapture log = new LogCapture(SrpTarget.class, CommandPipeline.class)) {
            final TestInitiator ini = login(0x20);
            final String login = log.await(l -> l.contains("logged in"), WAIT);
            end.accept(ini);
            awaitTargetIdle(0);
            final String line = log.await(l -> !l.equals(login) && !l.startsWith("DEBUG"), WAIT);
            assertEquals(List.of(login, line), log.lines(NOT_DEBUG), why);
            return line;
        }
    }

    @Test
    void aLunResetIsOneInfoLineWithTheLunAndWhatItAborted() throws Exception {
        try (LogCapture log = new LogCapture(SrpTarget.class, CommandPipeline.class)) {
            final TestInitiator ini = login(0x20);
            final String login = log.await(l -> l.contains("logged in"), WAIT);
            lun0Gate.hold(); // a WRITE that is executing when the reset comes: it finishes (SAM allows it)
            ini.submit(1, LUN0, TestInitiator.write16(0, 1), 512, 0, 0, false);
            waitUpTo(SETTLE, "the WRITE reached the backend").until(lun0Gate::heldCount, held -> held == 1);
            ini.submitTaskManagement(2, LUN0, SrpTaskManagement.LUN_RESET, 0);
            final String line = log.await(l -> l.contains("LUN RESET"), WAIT);
            assertTrue(line.matches("INFO channel 0 \\(initiator " + INITIATOR_20 + ", /127\\.0\\.0\\.1:\\d+\\): LUN RESET on"
                    + " LUN 0: 1 command\\(s\\) aborted \\(any already executing finish\\), FUNCTION COMPLETE"), line);
            lun0Gate.release();
            final List<TestInitiator.Response> responses = ini.awaitResponses(2);
            assertTrue(responses.stream().anyMatch(r -> r.tag() == 1 && r.status() == ScsiStatus.GOOD), responses.toString());
            assertEquals(List.of(login, line), log.lines(NOT_DEBUG));
            assertEquals(1, statistics.count(TargetStatistics.Count.TASK_MANAGEMENT));
        }
    }
}

package org.rdmablock.target.srp;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.rdmablock.protocol.scsi.ScsiStatus;
import org.rdmablock.protocol.srp.SrpBufferFormat;
import org.rdmablock.protocol.srp.SrpCommand;
import org.rdmablock.protocol.srp.SrpDirectBuffer;
import org.rdmablock.protocol.srp.SrpLoginRequest;
import org.rdmablock.protocol.srp.SrpOpcode;
import org.rdmablock.protocol.srp.SrpResponse;
import org.rdmablock.protocol.srp.SrpTargetLogout;
import org.rdmablock.protocol.srp.SrpTaskManagement;
import org.rdmablock.target.core.CommandSlot;
import org.rdmablock.verbs.WcStatus;

import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.rdmablock.target.Waiting.waitUpTo;

/**
 * Bad input from the wire on a logged-in channel: malformed command IUs get CHECK CONDITION (INVALID FIELD IN
 * COMMAND INFORMATION UNIT) with their tag and the channel goes on; IUs an initiator does not send get SRP_T_LOGOUT
 * and the channel ends; descriptors the target cannot RDMA end the channel without writing the LUN; commands beyond
 * the credit window get BUSY. Through all of it a second initiator's session (the bystander) keeps being served.
 */
class BadInputTest extends TargetTestBase {
    /** INVALID FIELD IN COMMAND INFORMATION UNIT (0x0E/0x03). */
    private static final int INVALID_FIELD_IN_IU = 0x0E03;
    private static final int ILLEGAL_REQUEST = 0x05;
    /** LUN 0's blocks that the bad commands aim at, filled with a known pattern before each test. */
    private static final long GUARDED_LBA = 4096;
    private static final int GUARDED_BLOCKS = 64;
    private static final byte[] GUARDED = pattern(GUARDED_BLOCKS * 512, 99);

    TestInitiator bystander;

    @BeforeEach
    void loginBystanderAndGuardTheLun() {
        bystander = login(0xB0);
        backend0.storage().asSlice(GUARDED_LBA * 512, GUARDED.length).copyFrom(java.lang.foreign.MemorySegment.ofArray(GUARDED));
    }

    /** Writes a malformed SRP_CMD with {@code tag} into the initiator's IU buffer and sends it. */
    @FunctionalInterface
    interface BadCommand {
        void send(TestInitiator initiator, long tag);
    }

    /** Nothing of the bad command reached LUN 0: no backend write, the guarded blocks as they were. */
    private void assertLunUntouched(final long writesBefore, final String what) {
        assertEquals(writesBefore, backend0.writeCount(), what + ": nothing reached the backend");
        assertArrayEquals(GUARDED, stored(backend0, GUARDED_LBA * 512, GUARDED.length), what + ": the LUN is unchanged");
    }

    /** The bad channel is gone with everything it held, and the bystander's session is served. */
    private void assertOnlyTheBystanderLeftAndServed() {
        awaitTargetIdle(1);
        verifiedWriteAndRead(bystander, 20, 8, 2);
    }

    static Stream<Arguments> malformedCommands() {
        return Stream.of(
                Arguments.of("a 20-byte SRP_CMD", (BadCommand) (ini, tag) -> {
                    ini.command(tag, LUN0, TestInitiator.read16(0, 1));
                    ini.sendRaw(ini.slotOf(tag), 20);
                }),
                Arguments.of("additional CDB length past the IU", (BadCommand) (ini, tag) -> {
                    ini.command(tag, LUN0, TestInitiator.read16(0, 1));
                    ini.iuBuffer(ini.slotOf(tag)).set(ValueLayout.JAVA_BYTE, SrpCommand.ADD_CDB_LEN_OFFSET, (byte) 252);
                    ini.sendRaw(ini.slotOf(tag), 64);
                }),
                Arguments.of("data-in descriptor past the IU", (BadCommand) (ini, tag) -> {
                    ini.buildDirect(tag, LUN0, TestInitiator.read16(0, 1), false, ini.data.address(), ini.data.rkey(), 512);
                    ini.sendRaw(ini.slotOf(tag), SrpCommand.FIXED_LENGTH + 8);
                }),
                Arguments.of("immediate data past the IU", (BadCommand) (ini, tag) -> {
                    ini.command(tag, LUN0, TestInitiator.write16(GUARDED_LBA, 8))
                            .setBufferFormats(SrpBufferFormat.IMMEDIATE, SrpBufferFormat.NONE).setImmediateDataLength(4096);
                    ini.sendRaw(ini.slotOf(tag), TestInitiator.IMMEDIATE_OFFSET + 512);
                }),
                Arguments.of("indirect descriptor list past the IU", (BadCommand) (ini, tag) -> {
                    final int length = ini.buildIndirect(tag, LUN0, TestInitiator.write16(GUARDED_LBA, 3), true,
                            new long[]{ini.data.address(), ini.data.address() + 512, ini.data.address() + 1024},
                            ini.data.rkey(), new int[]{512, 512, 512}, 1536);
                    ini.sendRaw(ini.slotOf(tag), length - SrpDirectBuffer.LENGTH);
                }),
                Arguments.of("indirect total length not the descriptors' sum", (BadCommand) (ini, tag) ->
                        ini.sendRaw(ini.slotOf(tag), ini.buildIndirect(tag, LUN0, TestInitiator.write16(GUARDED_LBA, 4), true,
                                new long[]{ini.data.address(), ini.data.address() + 1024}, ini.data.rkey(),
                                new int[]{1024, 1024}, 4096))),
                Arguments.of("257 indirect descriptors (256 served)", (BadCommand) (ini, tag) -> {
                    final TestInitiator.Extent[] extents = new TestInitiator.Extent[CommandSlot.MAX_DESCRIPTORS + 1];
                    for (int i = 0; i < extents.length; i++) {
                        extents[i] = new TestInitiator.Extent(i * 1024L, 512);
                    }
                    ini.submitIndirect(tag, LUN0, TestInitiator.write16(GUARDED_LBA, extents.length), true, extents);
                }),
                Arguments.of("a descriptor of 4 GiB - 1 (over the max I/O size)", (BadCommand) (ini, tag) ->
                        ini.submitDirect(tag, LUN0, TestInitiator.read16(0, 1), false, ini.data.address(), ini.data.rkey(), 0xFFFF_FFFFL)),
                Arguments.of("data-out format 5 (undefined)", (BadCommand) (ini, tag) -> {
                    ini.command(tag, LUN0, TestInitiator.write16(GUARDED_LBA, 1)).setBufferFormats(5, SrpBufferFormat.NONE);
                    ini.sendRaw(ini.slotOf(tag), SrpCommand.FIXED_LENGTH + 16);
                }),
                Arguments.of("data-out and data-in descriptors both", (BadCommand) (ini, tag) -> {
                    final SrpCommand c = ini.command(tag, LUN0, TestInitiator.write16(GUARDED_LBA, 1))
                            .setBufferFormats(SrpBufferFormat.DIRECT, SrpBufferFormat.DIRECT);
                    new SrpDirectBuffer().wrap(c.segment(), c.offset() + c.dataOutDescriptorOffset()).set(ini.data.address(), ini.data.rkey(), 512);
                    new SrpDirectBuffer().wrap(c.segment(), c.offset() + c.dataInDescriptorOffset()).set(ini.data.address(), ini.data.rkey(), 512);
                    ini.sendRaw(ini.slotOf(tag), c.descriptorsEnd());
                }));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformedCommands")
    void malformedCommandGetsCheckConditionAndTheChannelGoesOn(final String what, final BadCommand bad) {
        final TestInitiator ini = login(0xA1);
        // A READ that leaves a residual first: the error response must not repeat it (its slot is the one reused).
        final TestInitiator.Response under = ini.execute(LUN0, TestInitiator.read16(0, 1), 0, 4096, 0, false);
        assertEquals(SrpResponse.FLAG_DIUNDER, under.residualFlags());
        final long writes = backend0.writeCount();

        bad.send(ini, 0x5150);
        final TestInitiator.Response r = ini.awaitResponse();
        assertEquals(SrpOpcode.RSP, r.opcode(), what);
        assertEquals(0x5150, r.tag(), what + ": the response carries the command's tag");
        assertEquals(ScsiStatus.CHECK_CONDITION, r.status(), what);
        assertEquals(ILLEGAL_REQUEST, r.senseKey(), what);
        assertEquals(INVALID_FIELD_IN_IU, r.ascAndQualifier(), what + ": INVALID FIELD IN COMMAND INFORMATION UNIT");
        assertEquals(0, r.residualFlags(), what + ": no residual for a command that never ran");
        assertEquals(1, r.requestLimitDelta(), what + ": the credit comes back");

        assertLunUntouched(writes, what);
        verifiedWriteAndRead(ini, 10, 8, 1);
        verifiedWriteAndRead(bystander, 20, 8, 2);
    }

    @Test
    void truncatedTaskManagementGetsRequestFieldsInvalid() {
        final TestInitiator ini = login(0xA1);
        ini.buildTaskManagement(0x6160, LUN0, SrpTaskManagement.LUN_RESET, 0);
        ini.sendRaw(ini.slotOf(0x6160), 20);
        final TestInitiator.Response r = ini.awaitResponse();
        assertEquals(SrpOpcode.RSP, r.opcode());
        assertEquals(0x6160, r.tag(), "the response carries the request's tag");
        assertEquals(SrpTaskManagement.RSP_INVALID_FIELDS, r.responseCode());
        assertEquals(1, r.requestLimitDelta());
        verifiedWriteAndRead(ini, 10, 8, 1);
    }

    @Test
    void immediateDataWithoutNegotiatingItIsRefused() {
        final TestInitiator ini = login(loginData(0xA2, TestInitiator.IU_LENGTH, SrpLoginRequest.MULTICHANNEL_MULTI));
        assertFalse(ini.login.immediateDataSupported(), "no immediate data was asked for");
        ini.command(0x77, LUN0, TestInitiator.write16(GUARDED_LBA, 1))
                .setBufferFormats(SrpBufferFormat.IMMEDIATE, SrpBufferFormat.NONE).setImmediateDataLength(512);
        ini.sendRaw(ini.slotOf(0x77), TestInitiator.IMMEDIATE_OFFSET + 512);
        final TestInitiator.Response r = ini.awaitResponse();
        assertEquals(ScsiStatus.CHECK_CONDITION, r.status());
        assertEquals(INVALID_FIELD_IN_IU, r.ascAndQualifier());
        assertArrayEquals(GUARDED, stored(backend0, GUARDED_LBA * 512, GUARDED.length), "the LUN is unchanged");
    }

    static Stream<Arguments> iusTheTargetDoesNotTake() {
        return Stream.of(
                Arguments.of("unknown opcode 0x55", 0x55, 64),
                Arguments.of("opcode 0xFF", 0xFF, 64),
                Arguments.of("SRP_RSP (the target's)", SrpOpcode.RSP, SrpResponse.FIXED_LENGTH),
                Arguments.of("SRP_T_LOGOUT (the target's)", SrpOpcode.T_LOGOUT, 16),
                Arguments.of("SRP_CRED_REQ (the target's)", SrpOpcode.CRED_REQ, 16),
                Arguments.of("SRP_AER_REQ (the target's)", SrpOpcode.AER_REQ, 64),
                Arguments.of("SRP_LOGIN_REQ on a logged-in channel", SrpOpcode.LOGIN_REQ, 64),
                Arguments.of("SRP_LOGIN_RSP (the target's)", SrpOpcode.LOGIN_RSP, 52),
                Arguments.of("an empty message", 0, 0),
                Arguments.of("an SRP_CMD of 15 bytes (no whole tag)", SrpOpcode.CMD, 15),
                Arguments.of("an SRP_TSK_MGMT of 8 bytes (no tag)", SrpOpcode.TSK_MGMT, 8));
    }

    /** IUs that only a target sends, unknown opcodes and IUs too short to carry a tag: SRP_T_LOGOUT (INVALID IU TYPE), then the end. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("iusTheTargetDoesNotTake")
    void iuTheTargetDoesNotTakeLogsTheChannelOut(final String what, final int opcode, final int length) {
        final TestInitiator ini = login(0xA3);
        ini.iuBuffer(0).fill((byte) 0);
        ini.iuBuffer(0).set(ValueLayout.JAVA_BYTE, 0, (byte) opcode);
        ini.sendRaw(0, length);
        final TestInitiator.Ending ending = ini.awaitEnding(Duration.ofSeconds(5));
        assertEquals(1, ending.responses().size(), what + ": exactly one IU comes back: " + ending);
        final TestInitiator.Response logout = ending.responses().getFirst();
        assertEquals(SrpOpcode.T_LOGOUT, logout.opcode(), what);
        assertEquals(SrpTargetLogout.REASON_INVALID_IU_TYPE, logout.logoutReason(), what);
        assertTrue(ending.disconnected(), what + ": the target ends the channel after its logout: " + ending);
        assertOnlyTheBystanderLeftAndServed();
    }

    static Stream<Arguments> unreachableDescriptors() {
        return Stream.of(
                Arguments.of("WRITE, descriptor past the registration", true, INITIATOR_BYTES - 1024, 0),
                Arguments.of("WRITE, wrong rkey", true, 0L, 0x1000),
                Arguments.of("READ, descriptor past the registration", false, INITIATOR_BYTES - 1024, 0),
                Arguments.of("READ, wrong rkey", false, 0L, 0x1000));
    }

    /**
     * What the initiator sees when the target's RDMA READ or WRITE of its memory is refused (the soft provider, as an
     * iWARP NIC, terminates the connection): no IU at all, every posted receive flushed, the connection down.
     */
    private static void assertChannelFailed(final TestInitiator ini, final TestInitiator.Ending ending, final String what) {
        assertTrue(ending.disconnected(), what + ": the channel ends: " + ending);
        assertTrue(ending.responses().isEmpty(), what + ": no response arrives: " + ending);
        assertTrue(ending.failures().stream().allMatch(s -> s == WcStatus.WR_FLUSH_ERR), what + ": work is flushed: " + ending);
        assertTrue(ending.failures().size() >= ini.receives.length, what + ": every receive is flushed: " + ending);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("unreachableDescriptors")
    void descriptorTheTargetCannotReachEndsTheChannel(final String what, final boolean write, final long offset, final int keyDelta) {
        final TestInitiator ini = login(0xA4);
        final byte[] sentinel = pattern(8 * 512, 5);
        fill(ini, offset, java.util.Arrays.copyOf(sentinel, 1024));
        final long writes = backend0.writeCount();
        ini.submitDirect(0x99, LUN0, write ? TestInitiator.write16(GUARDED_LBA, 8) : TestInitiator.read16(GUARDED_LBA, 8), write,
                ini.data.address() + offset, ini.data.rkey() + keyDelta, 8 * 512);
        final TestInitiator.Ending ending = ini.awaitEnding(Duration.ofSeconds(10));
        assertChannelFailed(ini, ending, what);
        assertLunUntouched(writes, what);
        assertArrayEquals(java.util.Arrays.copyOf(sentinel, 1024), bytesAt(ini, offset, 1024), what + ": the initiator's buffer is unchanged");
        assertOnlyTheBystanderLeftAndServed();
    }

    @Test
    void indirectWriteWithOneUnreachableDescriptorWritesNothing() {
        final TestInitiator ini = login(0xA5);
        fill(ini, 0, pattern(4096, 6));
        final long writes = backend0.writeCount();
        ini.sendRaw(ini.slotOf(0x42), ini.buildIndirect(0x42, LUN0, TestInitiator.write16(GUARDED_LBA, 16), true,
                new long[]{ini.data.address(), ini.data.address() + INITIATOR_BYTES - 2048, ini.data.address() + 4096},
                ini.data.rkey(), new int[]{2048, 4096, 2048}, 8192));
        final TestInitiator.Ending ending = ini.awaitEnding(Duration.ofSeconds(10));
        assertChannelFailed(ini, ending, "one of three descriptors past the registration");
        assertLunUntouched(writes, "the bad command");
        assertOnlyTheBystanderLeftAndServed();
    }

    @Test
    void anIuLongerThanTheNegotiatedMaximumEndsOnlyItsChannel() {
        final TestInitiator ini = login(loginData(0xA7, 64, SrpLoginRequest.MULTICHANNEL_MULTI));
        assertEquals(64, ini.login.maxInitiatorToTargetIuLength());
        final long writes = backend0.writeCount();
        ini.command(0x31, LUN0, TestInitiator.write16(GUARDED_LBA, 1))
                .setBufferFormats(SrpBufferFormat.IMMEDIATE, SrpBufferFormat.NONE).setImmediateDataLength(512);
        ini.sendRaw(ini.slotOf(0x31), TestInitiator.IMMEDIATE_OFFSET + 512);
        final TestInitiator.Ending ending = ini.awaitEnding(Duration.ofSeconds(10));
        assertTrue(ending.disconnected(), "a message longer than the target's receive buffer ends the channel: " + ending);
        assertTrue(ending.responses().isEmpty(), "no response: " + ending);
        assertLunUntouched(writes, "the bad command");
        assertOnlyTheBystanderLeftAndServed();
    }

    /**
     * Commands sent beyond the credit window, while the first {@link #CREDITS} are held in the backend, get BUSY at
     * once; once the backend lets go every other command completes GOOD: each tag exactly one response.
     */
    @Test
    void creditOverrunGetsBusyNeverSilence() {
        final TestInitiator ini = login(0xA6);
        final int extra = 8;
        lun0Gate.hold();
        for (int tag = 1; tag <= CREDITS + extra; tag++) {
            ini.submit(tag, LUN0, TestInitiator.read16(tag, 1), 0, 512, tag * 512L, false);
        }
        final Map<Long, TestInitiator.Response> byTag = new HashMap<>();
        for (final TestInitiator.Response r : ini.awaitResponses(extra)) {
            assertEquals(ScsiStatus.BUSY, r.status(), "while " + CREDITS + " commands are outstanding the rest are BUSY");
            assertTrue(r.tag() > CREDITS, "BUSY went to a command beyond the window: tag " + r.tag());
            assertEquals(null, byTag.put(r.tag(), r), "one response per tag");
        }
        waitUpTo(SETTLE, "the first " + CREDITS + " reads wait in the backend").until(lun0Gate::heldCount, held -> held == CREDITS);
        lun0Gate.release();
        for (final TestInitiator.Response r : ini.awaitResponses(CREDITS)) {
            assertEquals(ScsiStatus.GOOD, r.status(), "tag " + r.tag());
            assertTrue(r.tag() <= CREDITS, "GOOD for a command in the window: tag " + r.tag());
            assertEquals(null, byTag.put(r.tag(), r), "one response per tag");
        }
        assertEquals(CREDITS + extra, byTag.size());
        assertEquals(CREDITS, ini.credits, "every credit is back");
        awaitTargetIdle(2);
        verifiedWriteAndRead(ini, 10, 8, 1);
        verifiedWriteAndRead(bystander, 20, 8, 2);
    }
}

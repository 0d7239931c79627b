package org.rdmablock.target.srp;

import org.junit.jupiter.api.Test;
import org.rdmablock.protocol.scsi.ScsiStatus;
import org.rdmablock.target.srp.TestInitiator.Response;

import static org.rdmablock.target.Waiting.waitUpTo;

import java.nio.ByteBuffer;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Persistent reservations end to end over SRP, from two initiator ports (two I_T nexuses to the same LUN): a
 * reservation refuses the other port's writes with RESERVATION CONFLICT, PREEMPT AND ABORT takes it over, and the
 * preempted port learns it from a unit attention that waits for it through a logout and a new login.
 */
class PersistentReservationsSrpTest extends TargetTestBase {
    private static final long OUT = 0x20_0000;
    private static final long IN = 0x10_0000;
    private static final int UNIT_ATTENTION = 0x06;
    private static final int REGISTRATIONS_PREEMPTED = 0x2A05;
    private static final long KEY_A = 0xA1;
    private static final long KEY_B = 0xB2;

    private static Response prout(final TestInitiator ini, final int action, final int type, final long key,
                                  final long serviceActionKey) {
        return prout(ini, OUT, action, type, key, serviceActionKey, 0);
    }

    /**
     * PERSISTENT RESERVE OUT to LUN 0: the basic parameter list (keys, and {@code flags} in byte 20: APTPL 01h) taken
     * from {@code at} in the initiator's buffer.
     */
    static Response prout(final TestInitiator ini, final long at, final int action, final int type, final long key,
                          final long serviceActionKey, final int flags) {
        final byte[] cdb = ByteBuffer.allocate(10).put(0, (byte) 0x5F).put(1, (byte) action).put(2, (byte) type)
                .putInt(5, 24).array();
        fill(ini, at, ByteBuffer.allocate(24).putLong(0, key).putLong(8, serviceActionKey).put(20, (byte) flags).array());
        return ini.execute(LUN0, cdb, 24, 0, at, false);
    }

    private static Response write(final TestInitiator ini) {
        fill(ini, OUT, pattern(512, 3));
        return ini.execute(LUN0, TestInitiator.write16(8, 1), 512, 0, OUT, false);
    }

    private static Response readKeys(final TestInitiator ini) {
        final byte[] cdb = ByteBuffer.allocate(10).put(0, (byte) 0x5E).putShort(7, (short) 64).array();
        return ini.execute(LUN0, cdb, 0, 64, IN, false);
    }

    /** A and B register their keys; A reserves Write Exclusive. */
    private static void registerBothAndReserve(final TestInitiator a, final TestInitiator b) {
        assertEquals(ScsiStatus.GOOD, prout(a, 0, 0, 0, KEY_A).status());
        assertEquals(ScsiStatus.GOOD, prout(b, 0, 0, 0, KEY_B).status());
        assertEquals(ScsiStatus.GOOD, prout(a, 1, 1, KEY_A, 0).status()); // RESERVE, Write Exclusive
    }

    @Test
    void preemptAndAbortAnswersOnlyOnceThePreemptedWritesAreDone() {
        final TestInitiator a = login(0xA);
        final TestInitiator b = login(0xB);
        registerBothAndReserve(a, b);
        lun0Gate.hold();
        fill(a, OUT, pattern(3 * 512, 5));
        for (int i = 0; i < 3; i++) {
            a.submit(10 + i, LUN0, TestInitiator.write16(100 + i, 1), 512, 0, OUT + 512L * i, false);
        }
        waitUpTo(SETTLE, "A's writes wait in the backend").until(lun0Gate::heldCount, held -> held == 3);

        final byte[] cdb = ByteBuffer.allocate(10).put(0, (byte) 0x5F).put(1, (byte) 5).put(2, (byte) 1).putInt(5, 24).array();
        fill(b, OUT, ByteBuffer.allocate(24).putLong(0, KEY_B).putLong(8, KEY_A).array());
        b.submit(20, LUN0, cdb, 24, 0, OUT, false);
        waitUpTo(SETTLE, "the preemption is made").until(() -> units.get(0).reservations().registrationCount() == 1);
        assertEquals(null, b.responseWithin(Duration.ofMillis(300)), "no answer while A's writes can still land");
        lun0Gate.release();
        final Response answered = b.awaitResponse();
        assertEquals(20, answered.tag());
        assertEquals(ScsiStatus.GOOD, answered.status());
        assertEquals(ScsiStatus.GOOD, write(b).status());
    }

    @Test
    void aReservationRefusesTheOtherPortAndAPreemptionIsReportedAfterALogin() {
        final TestInitiator a = login(0xA);
        final TestInitiator b = login(0xB);
        registerBothAndReserve(a, b);
        assertEquals(ScsiStatus.GOOD, write(a).status());
        final Response refused = write(b);
        assertEquals(ScsiStatus.RESERVATION_CONFLICT, refused.status());
        assertEquals(0, refused.sense().length);
        assertEquals(ScsiStatus.GOOD, b.execute(LUN0, TestInitiator.read16(8, 1), 0, 512, IN, false).status());

        assertEquals(ScsiStatus.GOOD, prout(b, 5, 1, KEY_B, KEY_A).status()); // PREEMPT AND ABORT A
        final Response keys = readKeys(b);
        assertEquals(ScsiStatus.GOOD, keys.status());
        assertEquals(8, ByteBuffer.wrap(bytesAt(b, IN, 16)).getInt(4), "one key left");
        assertEquals(KEY_B, ByteBuffer.wrap(bytesAt(b, IN, 16)).getLong(8));

        a.close();
        final TestInitiator again = login(0xA);
        final Response told = again.execute(LUN0, new byte[6], 0, 0, IN, false); // TEST UNIT READY
        assertEquals(ScsiStatus.CHECK_CONDITION, told.status());
        assertEquals(UNIT_ATTENTION, told.senseKey());
        assertEquals(REGISTRATIONS_PREEMPTED, told.ascAndQualifier(), "raised while A was logged out");
        assertEquals(ScsiStatus.RESERVATION_CONFLICT, write(again).status());
        assertEquals(ScsiStatus.GOOD, write(b).status());
    }
}

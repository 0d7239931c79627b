package org.rdmablock.protocol.scsi;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.rdmablock.protocol.scsi.LunHarness.assertCheckCondition;
import static org.rdmablock.protocol.scsi.LunHarness.assertGood;

/**
 * PERSISTENT RESERVE IN and OUT through the engine, from three I_T nexuses (A, B, C): each service action's effect on
 * the keys, the reservation and the generation, the commands a reservation refuses, the unit attentions it raises,
 * its errors (SPC-4 5.13, 6.15, 6.16), and SPC-2's RESERVE(6)/RELEASE(6) beside it.
 */
class PersistentReservationsTest {
    private static final int REGISTER = 0;
    private static final int RESERVE = 1;
    private static final int RELEASE = 2;
    private static final int CLEAR = 3;
    private static final int PREEMPT = 4;
    private static final int PREEMPT_AND_ABORT = 5;
    private static final int REGISTER_AND_IGNORE = 6;
    private static final int REGISTER_AND_MOVE = 7;
    private static final int WRITE_EXCLUSIVE = 1;
    private static final int EXCLUSIVE_ACCESS = 3;
    private static final int WRITE_EXCLUSIVE_REGISTRANTS_ONLY = 5;
    private static final int WRITE_EXCLUSIVE_ALL_REGISTRANTS = 7;
    private static final long KEY_A = 0xA1;
    private static final long KEY_B = 0xB2;
    private static final long KEY_C = 0xC3;

    private final NexusRegistry registry = new NexusRegistry();
    private final Nexus a = registry.ofSrp(0xAAAAL, 1, 1);
    private final Nexus b = registry.ofSrp(0xBBBBL, 2, 1);
    private final Nexus c = registry.ofSrp(0xCCCCL, 3, 1);
    private final LunHarness h = LunHarness.of(512);

    private ScsiCommand as(final Nexus n, final byte[] cdb, final byte[] dataOut, final int expectedIn) {
        h.cmd.setNexus(n);
        return h.run(cdb, dataOut, expectedIn);
    }

    private ScsiCommand prout(final Nexus n, final int action, final int type, final long key, final long serviceActionKey) {
        return prout(n, action, type, key, serviceActionKey, 0);
    }

    private ScsiCommand prout(final Nexus n, final int action, final int type, final long key, final long serviceActionKey,
                              final int flags) {
        return as(n, Cdbs.persistentReserveOut(action, 0, type, 24), Cdbs.proutParameters(key, serviceActionKey, flags), 0);
    }

    private ByteBuffer prin(final Nexus n, final int action) {
        assertGood(as(n, Cdbs.persistentReserveIn(action, 4096), new byte[0], 4096));
        return ByteBuffer.wrap(h.dataIn());
    }

    private long[] keys() {
        final ByteBuffer in = prin(a, 0);
        final long[] keys = new long[in.getInt(4) / 8];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = in.getLong(8 + 8 * i);
        }
        return keys;
    }

    private int generation() {
        return prin(a, 0).getInt(0);
    }

    /** READ RESERVATION's key and type, or null without a reservation. */
    private long[] reservation() {
        final ByteBuffer in = prin(a, 1);
        return in.getInt(4) == 0 ? null : new long[] {in.getLong(8), in.get(21) & 0x0F};
    }

    private ScsiCommand write(final Nexus n) {
        return as(n, Cdbs.rw10(true, 0, 1, false), new byte[512], 0);
    }

    private ScsiCommand read(final Nexus n) {
        return as(n, Cdbs.rw10(false, 0, 1, false), new byte[0], 512);
    }

    private static void assertConflict(final ScsiCommand cmd) {
        assertEquals(ScsiStatus.RESERVATION_CONFLICT, cmd.status());
        assertEquals(0, cmd.senseLength(), "RESERVATION CONFLICT carries no sense");
        assertEquals(0, cmd.dataInLength());
    }

    private void registerAandB() {
        assertGood(prout(a, REGISTER, 0, 0, KEY_A));
        assertGood(prout(b, REGISTER, 0, 0, KEY_B));
    }

    @Test
    void registeringAddsKeysAndCountsTheGenerationAndAWrongKeyConflicts() {
        assertEquals(0, generation());
        registerAandB();
        assertArrayEquals(new long[] {KEY_A, KEY_B}, keys());
        assertEquals(2, generation());
        assertConflict(prout(a, REGISTER, 0, 0x99, 0x55));            // registered, wrong key
        assertConflict(prout(c, REGISTER, 0, 0x77, KEY_C));           // unregistered with a key
        assertGood(prout(a, REGISTER_AND_IGNORE, 0, 0x99, 0xA9));      // the key is not checked
        assertArrayEquals(new long[] {0xA9, KEY_B}, keys());
        assertGood(prout(a, REGISTER, 0, 0xA9, 0));                   // service action key 0 unregisters
        assertArrayEquals(new long[] {KEY_B}, keys());
        assertEquals(4, generation());
        assertGood(prout(c, REGISTER, 0, 0, 0));                      // unregistered to unregistered: nothing
        assertEquals(4, generation());
    }

    @Test
    void writeExclusiveRefusesEveryNonHoldersWritesAndNoReads() {
        registerAandB();
        assertGood(prout(a, RESERVE, WRITE_EXCLUSIVE, KEY_A, 0));
        assertEquals(2, generation(), "RESERVE does not count");
        assertArrayEquals(new long[] {KEY_A, WRITE_EXCLUSIVE}, reservation());
        assertGood(write(a));
        assertConflict(write(b));
        assertConflict(write(c));
        assertGood(read(b));
        assertGood(read(c));
        assertGood(as(c, Cdbs.inquiry(96), new byte[0], 96));
        assertConflict(prout(b, RESERVE, WRITE_EXCLUSIVE, KEY_B, 0)); // another holds it
        assertGood(prout(a, RESERVE, WRITE_EXCLUSIVE, KEY_A, 0));     // the same reservation again
        assertConflict(prout(a, RESERVE, EXCLUSIVE_ACCESS, KEY_A, 0)); // another type while holding
    }

    @Test
    void registrantsOnlyLetsRegisteredNexusesWriteAndExclusiveAccessRefusesReads() {
        registerAandB();
        assertGood(prout(a, RESERVE, WRITE_EXCLUSIVE_REGISTRANTS_ONLY, KEY_A, 0));
        assertGoodBecause(write(b), "SPC-4: a registrant writes under Write Exclusive - Registrants Only");
        assertEquals("WE-RO by 0xa1, 2 registered, generation 2", h.unit.reservations().describe(), "what operators see");
        assertConflict(write(c));
        assertGood(read(c));
        assertGood(prout(a, RELEASE, WRITE_EXCLUSIVE_REGISTRANTS_ONLY, KEY_A, 0));
        assertNull(reservation());
        assertGood(prout(a, RESERVE, EXCLUSIVE_ACCESS, KEY_A, 0));
        assertConflict(read(b));
        assertConflict(read(c));
        assertGood(read(a));
    }

    private static void assertGoodBecause(final ScsiCommand cmd, final String why) {
        assertEquals(ScsiStatus.GOOD, cmd.status(), why);
    }

    @Test
    void preemptAndAbortTakesTheReservationRemovesTheVictimAndTellsIt() {
        registerAandB();
        assertGood(prout(a, RESERVE, WRITE_EXCLUSIVE, KEY_A, 0));
        assertGood(prout(b, PREEMPT_AND_ABORT, WRITE_EXCLUSIVE, KEY_B, KEY_A));
        assertArrayEquals(new long[] {KEY_B}, keys());
        assertArrayEquals(new long[] {KEY_B, WRITE_EXCLUSIVE}, reservation());
        assertEquals(SenseCode.REGISTRATIONS_PREEMPTED, a.attentions().take(0));
        assertNull(b.attentions().take(0), "the preempter is not told");
        assertConflict(write(a));
        assertConflict(prout(a, REGISTER, 0, KEY_A, 0)); // its key is gone
        assertGood(write(b));
        assertEquals(3, generation());
    }

    @Test
    void aHolderPreemptingItsOwnKeyKeepsItsRegistrationAndChangesTheType() {
        // fence_scsi's re-registration: a PREEMPT naming its own key
        registerAandB();
        assertGood(prout(a, RESERVE, WRITE_EXCLUSIVE, KEY_A, 0));
        assertGood(prout(a, PREEMPT, WRITE_EXCLUSIVE_REGISTRANTS_ONLY, KEY_A, KEY_A));
        assertArrayEquals(new long[] {KEY_A, KEY_B}, keys());
        assertArrayEquals(new long[] {KEY_A, WRITE_EXCLUSIVE_REGISTRANTS_ONLY}, reservation());
        assertEquals(SenseCode.RESERVATIONS_RELEASED, b.attentions().take(0), "the type changed");
    }

    @Test
    void preemptingWithoutAReservationRemovesRegistrationsByKeyOnly() {
        registerAandB();
        assertCheckCondition(prout(a, PREEMPT, WRITE_EXCLUSIVE, KEY_A, 0), SenseCode.INVALID_FIELD_IN_PARAMETER_LIST);
        assertConflict(prout(a, PREEMPT, WRITE_EXCLUSIVE, KEY_A, 0x1234)); // no such key
        assertGood(prout(a, PREEMPT, WRITE_EXCLUSIVE, KEY_A, KEY_B));
        assertArrayEquals(new long[] {KEY_A}, keys());
        assertNull(reservation(), "no reservation is made");
    }

    @Test
    void releasingARegistrantsOnlyReservationTellsTheOtherRegistrantsAndAWrongTypeIsAnInvalidRelease() {
        registerAandB();
        assertGood(prout(a, RESERVE, WRITE_EXCLUSIVE_REGISTRANTS_ONLY, KEY_A, 0));
        assertCheckCondition(prout(a, RELEASE, WRITE_EXCLUSIVE, KEY_A, 0), SenseCode.INVALID_RELEASE_OF_PERSISTENT_RESERVATION);
        assertGood(prout(b, RELEASE, WRITE_EXCLUSIVE_REGISTRANTS_ONLY, KEY_B, 0)); // not the holder: nothing
        assertArrayEquals(new long[] {KEY_A, WRITE_EXCLUSIVE_REGISTRANTS_ONLY}, reservation());
        assertGood(prout(a, RELEASE, WRITE_EXCLUSIVE_REGISTRANTS_ONLY, KEY_A, 0));
        assertNull(reservation());
        assertEquals(SenseCode.RESERVATIONS_RELEASED, b.attentions().take(0));
        assertNull(a.attentions().take(0));
    }

    @Test
    void clearRemovesEverythingAndTellsTheOthers() {
        registerAandB();
        assertGood(prout(a, RESERVE, EXCLUSIVE_ACCESS, KEY_A, 0));
        assertConflict(prout(c, CLEAR, 0, 0, 0)); // unregistered
        assertGood(prout(b, CLEAR, 0, KEY_B, 0));
        assertArrayEquals(new long[0], keys());
        assertNull(reservation());
        assertEquals(SenseCode.RESERVATIONS_PREEMPTED, a.attentions().take(0));
        assertNull(b.attentions().take(0));
        assertGood(read(c));
        assertEquals(3, generation());
    }

    @Test
    void allRegistrantsIsHeldByEveryRegistrantUntilTheLastLeaves() {
        registerAandB();
        assertGood(prout(a, RESERVE, WRITE_EXCLUSIVE_ALL_REGISTRANTS, KEY_A, 0));
        assertArrayEquals(new long[] {0, WRITE_EXCLUSIVE_ALL_REGISTRANTS}, reservation(), "key 0 for All Registrants");
        assertGood(write(b));
        assertConflict(write(c));
        assertGood(prout(a, REGISTER, 0, KEY_A, 0));
        assertArrayEquals(new long[] {0, WRITE_EXCLUSIVE_ALL_REGISTRANTS}, reservation(), "B still holds it");
        assertGood(prout(b, REGISTER, 0, KEY_B, 0));
        assertNull(reservation());
        assertGood(write(c));
    }

    @Test
    void registerAndMoveHandsTheReservationToAnotherNexusAndUnregistersTheMover() {
        registerAandB();
        assertGood(prout(a, RESERVE, WRITE_EXCLUSIVE, KEY_A, 0));
        final ByteBuffer move = ByteBuffer.allocate(48).putLong(0, KEY_A).putLong(8, KEY_C).put(17, (byte) 0x02)
                .putShort(18, (short) 1).putInt(20, 24);
        move.put(24, c.transportId());
        assertGood(as(a, Cdbs.persistentReserveOut(REGISTER_AND_MOVE, 0, WRITE_EXCLUSIVE, 48), move.array(), 0));
        assertArrayEquals(new long[] {KEY_B, KEY_C}, keys());
        assertArrayEquals(new long[] {KEY_C, WRITE_EXCLUSIVE}, reservation());
        assertGood(write(c));
        assertConflict(write(a));

        final ByteBuffer full = prin(b, 3);
        assertEquals(2 * (24 + 24), full.getInt(4));
        final int second = 8 + 48;
        assertEquals(KEY_C, full.getLong(second));
        assertEquals(0x01, full.get(second + 12) & 0x03, "R_HOLDER, not ALL_TG_PT");
        assertEquals(WRITE_EXCLUSIVE, full.get(second + 13) & 0x0F);
        assertEquals(1, full.getShort(second + 18), "relative target port");
        assertEquals(24, full.getInt(second + 20));
        assertArrayEquals(c.transportId(), Arrays.copyOfRange(full.array(), second + 24, second + 48));
        assertEquals(0x04, full.get(second + 24), "SRP's protocol identifier");
    }

    @Test
    void badParameterListsAndFieldsAreRefusedAsSpc4Asks() {
        assertCheckCondition(as(a, Cdbs.persistentReserveOut(REGISTER, 0, 0, 23), new byte[23], 0),
                SenseCode.PARAMETER_LIST_LENGTH_ERROR);
        assertCheckCondition(prout(a, REGISTER, 0, 0, KEY_A, 0x08), SenseCode.INVALID_FIELD_IN_PARAMETER_LIST); // SPEC_I_PT
        assertCheckCondition(prout(a, REGISTER, 0, 0, KEY_A, 0x01), SenseCode.INVALID_FIELD_IN_PARAMETER_LIST); // APTPL
        assertEquals(0, generation());
        assertGood(prout(a, REGISTER, 0, 0, KEY_A, 0x04)); // ALL_TG_PT is served
        assertCheckCondition(as(a, Cdbs.persistentReserveOut(RESERVE, 1, WRITE_EXCLUSIVE, 24),
                Cdbs.proutParameters(KEY_A, 0, 0), 0), SenseCode.INVALID_FIELD_IN_CDB);
        final ScsiCommand badType = prout(a, RESERVE, 2, KEY_A, 0);
        assertCheckCondition(badType, SenseCode.INVALID_FIELD_IN_CDB);
        assertEquals(2, LunHarness.fieldPointer(badType));
        assertCheckCondition(as(a, Cdbs.persistentReserveIn(4, 64), new byte[0], 64), SenseCode.INVALID_FIELD_IN_CDB);
        h.cmd.setNexus(null);
        assertCheckCondition(h.run(Cdbs.persistentReserveOut(REGISTER, 0, 0, 24), Cdbs.proutParameters(0, 1, 0), 0),
                SenseCode.INVALID_COMMAND_OPERATION_CODE);
    }

    @Test
    void reportCapabilitiesSaysWhatIsServed() {
        final ByteBuffer in = prin(a, 2);
        assertEquals(8, in.getShort(0));
        assertEquals(0x14, in.get(2) & 0xFF, "CRH and ATP_C; no SIP_C, no PTPL_C");
        assertEquals(0x80, in.get(3) & 0xFF, "TMV; PTPL_A off");
        assertEquals(0xEA01, in.getShort(4) & 0xFFFF, "all six types");
    }

    @Test
    void spc2ReserveRefusesOtherNexusesAndPersistentReservationsRefuseIt() {
        assertGood(as(c, Cdbs.reserve6(), new byte[0], 0));
        assertConflict(read(a));
        assertGood(as(a, Cdbs.inquiry(96), new byte[0], 96));
        assertGood(as(a, Cdbs.release6(), new byte[0], 0)); // not its reservation: no error, no change
        assertConflict(read(a));
        assertConflict(as(c, Cdbs.persistentReserveIn(0, 64), new byte[0], 64)); // PR conflicts for every nexus
        assertConflict(as(a, Cdbs.reserve6(), new byte[0], 0));
        assertGood(read(c));
        assertGood(as(c, Cdbs.release6(), new byte[0], 0));
        assertGood(read(a));

        registerAandB();
        assertConflict(as(c, Cdbs.reserve6(), new byte[0], 0)); // registrations exist, C is not one
        assertGood(prout(a, RESERVE, WRITE_EXCLUSIVE, KEY_A, 0));
        assertGoodBecause(as(a, Cdbs.reserve6(), new byte[0], 0), "CRH=1: the holder's RESERVE succeeds and changes nothing");
        assertArrayEquals(new long[] {KEY_A, WRITE_EXCLUSIVE}, reservation());
        assertConflict(as(b, Cdbs.release6(), new byte[0], 0));
    }

    @Test
    void anUnreservedUnitDescribesItselfAsNothing() {
        assertEquals("", h.unit.reservations().describe());
        assertGood(as(c, Cdbs.reserve6(), new byte[0], 0));
        assertEquals(true, h.unit.reservations().describe().startsWith("SPC-2 RESERVE by nexus "));
    }

    @Test
    void aLogicalUnitResetEndsAnSpc2ReservationOnly() {
        registerAandB();
        h.unit.reservations().logicalUnitReset();
        assertEquals(2, h.unit.reservations().registrationCount());
        assertGood(prout(a, CLEAR, 0, KEY_A, 0));
        assertGood(as(c, Cdbs.reserve6(), new byte[0], 0));
        h.unit.reservations().logicalUnitReset();
        assertGood(read(a));
    }

    @Test
    void aWriteARegistrationRefusesDoesNotReachTheBackendInPlace() {
        registerAandB();
        assertGood(prout(a, RESERVE, WRITE_EXCLUSIVE, KEY_A, 0));
        final CdbDecoder d = new CdbDecoder();
        d.decode(java.lang.foreign.MemorySegment.ofArray(Cdbs.rw10(true, 0, 1, false)), 0, 10);
        assertEquals(true, h.unit.reachesBackend(d, a));
        assertEquals(false, h.unit.reachesBackend(d, b));
        h.cmd.placedBeforeExecute(true);
        assertGoodBecause(write(b), "data already placed is answered as it landed");
        h.cmd.placedBeforeExecute(false);
    }

    /** A store in memory that can be told to fail. */
    private static final class MemoryStore implements ReservationStore {
        String saved;
        boolean failing;
        int writes;

        @Override
        public String load() {
            return saved;
        }

        @Override
        public void save(final String text) throws java.io.IOException {
            if (failing) {
                throw new java.io.IOException("disk full");
            }
            writes++;
            saved = text;
        }

        @Override
        public void delete() throws java.io.IOException {
            if (failing) {
                throw new java.io.IOException("read-only");
            }
            writes++;
            saved = null;
        }

        @Override
        public String describe() {
            return "memory";
        }
    }

    @Test
    void aStateAskedToPersistIsSavedOnEachChangeAndTakenBackByTheSameUnitOnly() throws Exception {
        final MemoryStore store = new MemoryStore();
        h.unit.reservations().persistIn(store, registry, "SN0001");
        assertEquals(0x15, prin(a, 2).get(2) & 0xFF, "PTPL_C with a store");
        assertGood(prout(a, REGISTER, 0, 0, KEY_A, 0x01));           // APTPL
        assertGood(prout(b, REGISTER, 0, 0, KEY_B, 0x01));
        assertGood(prout(a, RESERVE, WRITE_EXCLUSIVE_REGISTRANTS_ONLY, KEY_A, 0));
        assertEquals(3, store.writes, "each change saved, the reservation too");
        assertEquals(0x81, prin(a, 2).get(3) & 0xFF, "TMV and PTPL_A");

        final LunHarness restarted = LunHarness.of(512);
        final NexusRegistry after = new NexusRegistry();
        assertEquals(true, restarted.unit.reservations().persistIn(store, after, "SN0001"));
        final Nexus a2 = after.ofSrp(0xAAAAL, 1, 1);
        final Nexus c2 = after.ofSrp(0xCCCCL, 3, 1);
        restarted.cmd.setNexus(c2);
        assertEquals(ScsiStatus.RESERVATION_CONFLICT, restarted.run(Cdbs.rw10(true, 0, 1, false), new byte[512], 0).status());
        restarted.cmd.setNexus(a2);
        assertGood(restarted.run(Cdbs.rw10(true, 0, 1, false), new byte[512], 0));
        assertGood(restarted.run(Cdbs.persistentReserveIn(0, 64), 64));
        final ByteBuffer keys = ByteBuffer.wrap(restarted.dataIn());
        assertEquals(2, keys.getInt(0), "the generation kept");
        assertEquals(KEY_A, keys.getLong(8));
        assertEquals(KEY_B, keys.getLong(16));

        assertEquals(false, LunHarness.of(512).unit.reservations().persistIn(store, new NexusRegistry(), "SN0002"),
                "another unit's state is not taken");
    }

    @Test
    void aStoreThatFailsLeavesTheStateAsItWasAndPersistenceOffRemovesIt() throws Exception {
        final MemoryStore store = new MemoryStore();
        h.unit.reservations().persistIn(store, registry, "SN0001");
        assertGood(prout(a, REGISTER, 0, 0, KEY_A, 0x01));
        store.failing = true;
        assertCheckCondition(prout(b, REGISTER, 0, 0, KEY_B, 0x01), SenseCode.INTERNAL_TARGET_FAILURE);
        assertArrayEquals(new long[] {KEY_A}, keys(), "nothing changed");
        assertCheckCondition(prout(a, RESERVE, WRITE_EXCLUSIVE, KEY_A, 0), SenseCode.INTERNAL_TARGET_FAILURE);
        assertNull(reservation());
        store.failing = false;
        assertGood(prout(a, REGISTER_AND_IGNORE, 0, 0, KEY_A, 0)); // APTPL=0: no longer kept
        assertNull(store.saved);
        assertGood(prout(b, REGISTER, 0, 0, KEY_B));
        assertNull(store.saved, "not saved while persistence is off");
    }

    @Test
    void aSavedStateThatCannotBeReadNamesItsLine() {
        final MemoryStore store = new MemoryStore();
        store.saved = PersistentReservations.FORMAT + "\nunit SN0001\ngeneration 3\nregistration zz 1 one-port a1\n";
        final IllegalStateException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
                () -> h.unit.reservations().persistIn(store, registry, "SN0001"));
        assertEquals(true, e.getMessage().startsWith("memory, line 4: "), e.getMessage());
    }
}

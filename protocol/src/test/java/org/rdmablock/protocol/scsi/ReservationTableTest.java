package org.rdmablock.protocol.scsi;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The commands each reservation type lets through, typed in from SPC-4 table 66 (SPC commands) and SBC-4 table 13 (SBC
 * commands) rather than taken from {@link ReservationTable}, and checked through the engine: A holds a reservation of
 * the row's type, B is registered, C is not. A cell is G (GOOD) or C (RESERVATION CONFLICT), for READ(10), WRITE(10),
 * MODE SENSE(6), SYNCHRONIZE CACHE(10), TEST UNIT READY, START STOP UNIT (stop), in that order.
 */
class ReservationTableTest {
    private static final long KEY_A = 0xA1;
    private static final long KEY_B = 0xB2;

    @ParameterizedTest(name = "type {0}")
    @CsvSource({
        // type, holder, registered,  unregistered
        "1,      GGGGGG, GCGCGC,      GCGCGC",
        "3,      GGGGGG, CCCCGC,      CCCCGC",
        "5,      GGGGGG, GGGGGG,      GCGCGC",
        "6,      GGGGGG, GGGGGG,      CCCCGC",
        "7,      GGGGGG, GGGGGG,      GCGCGC",
        "8,      GGGGGG, GGGGGG,      CCCCGC",
    })
    void eachTypesCells(final int type, final String holder, final String registered, final String unregistered) {
        final NexusRegistry registry = new NexusRegistry();
        final Nexus a = registry.ofSrp(1, 1, 1);
        final Nexus b = registry.ofSrp(2, 2, 1);
        final Nexus c = registry.ofSrp(3, 3, 1);
        final LunHarness h = LunHarness.of(512);
        h.cmd.setNexus(a);
        LunHarness.assertGood(h.run(Cdbs.persistentReserveOut(0, 0, 0, 24), Cdbs.proutParameters(0, KEY_A, 0), 0));
        h.cmd.setNexus(b);
        LunHarness.assertGood(h.run(Cdbs.persistentReserveOut(0, 0, 0, 24), Cdbs.proutParameters(0, KEY_B, 0), 0));
        h.cmd.setNexus(a);
        LunHarness.assertGood(h.run(Cdbs.persistentReserveOut(1, 0, type, 24), Cdbs.proutParameters(KEY_A, 0, 0), 0));
        assertEquals(holder, cells(h, a), "holder");
        assertEquals(registered, cells(h, b), "registered");
        assertEquals(unregistered, cells(h, c), "unregistered");
    }

    private static String cells(final LunHarness h, final Nexus n) {
        h.cmd.setNexus(n);
        return cell(h.run(Cdbs.rw10(false, 0, 1, false), 512))
                + cell(h.run(Cdbs.rw10(true, 0, 1, false), new byte[512], 0))
                + cell(h.run(Cdbs.modeSense6(false, 0, 0x3F, 0, 255), 255))
                + cell(h.run(Cdbs.synchronizeCache10(0, 0), 0))
                + cell(h.run(Cdbs.testUnitReady(), 0))
                + cell(h.run(Cdbs.startStopUnit(false), 0));
    }

    private static String cell(final ScsiCommand cmd) {
        return switch (cmd.status()) {
            case ScsiStatus.GOOD -> "G";
            case ScsiStatus.RESERVATION_CONFLICT -> "C";
            default -> "?" + LunHarness.asc(cmd);
        };
    }
}

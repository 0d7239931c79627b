package org.rdmablock.protocol.scsi;

/**
 * Which commands a reservation lets through from an I_T nexus that does not hold it: SPC-4 5.13.1's table of SPC
 * commands and SBC-4 4.17's of SBC commands, as data. Each command falls in an {@link Access} class; each class has a
 * cell per kind of non-holder ({@link #WE} ... {@link #UNREGISTERED_EA}). PERSISTENT RESERVE OUT, RESERVE and
 * RELEASE pass the table: their service actions have rules of their own ({@link PersistentReservations}).
 *
 * <p>Where LIO differs: past an explicit list it decides by data direction (so it lets SYNCHRONIZE CACHE, START STOP
 * UNIT and WRITE SAME with NDOB through Write Exclusive from unregistered nexuses, and conflicts VERIFY with BYTCHK=1);
 * this table follows the standard's rows per command.
 */
public final class ReservationTable {
    /** What a command does, as the reservation tables see it. */
    public enum Access {
        /** Allowed under every reservation (INQUIRY, REPORT LUNS, READ CAPACITY, PERSISTENT RESERVE IN, ...). */
        ALWAYS,
        /** Reads the medium or the unit's parameters: conflicts under Exclusive Access types only. */
        READ_LIKE,
        /** Changes the medium or the unit: conflicts for every non-holder but registrants under RO / AR types. */
        WRITE_LIKE,
        /** Decided by its own service action's rules. */
        OWN_RULES
    }

    /** Columns: a non-holder under Write Exclusive; under Exclusive Access (registered or not, for both). */
    static final int WE = 0;
    static final int EA = 1;
    /** A registered nexus under a Registrants Only or All Registrants type. */
    static final int REGISTERED_RO_AR = 2;
    /** An unregistered nexus under Write Exclusive - RO / AR; under Exclusive Access - RO / AR. */
    static final int UNREGISTERED_WE = 3;
    static final int UNREGISTERED_EA = 4;

    /** ALLOWED[access][column]: true where the command is let through. */
    static final boolean[][] ALLOWED = {
        /* ALWAYS     */ {true, true, true, true, true},
        /* READ_LIKE  */ {true, false, true, true, false},
        /* WRITE_LIKE */ {false, false, true, false, false},
        /* OWN_RULES  */ {true, true, true, true, true},
    };

    private ReservationTable() {
    }

    /** The class of the command {@code d} decoded (a successful decode). */
    public static Access classOf(final CdbDecoder d) {
        return switch (d.kind()) {
            case TEST_UNIT_READY, REQUEST_SENSE, INQUIRY, READ_CAPACITY_10, READ_CAPACITY_16, REPORT_LUNS,
                 PERSISTENT_RESERVE_IN, REPORT_TARGET_PORT_GROUPS -> Access.ALWAYS;
            case READ, VERIFY, MODE_SENSE, REPORT_SUPPORTED_OPERATION_CODES, GET_LBA_STATUS, RECEIVE_COPY_RESULTS -> Access.READ_LIKE;
            // EXTENDED COPY conflicts as a write on the unit it is sent to; each copy target is checked as well, the
            // source as a read and the destination as a write (LogicalUnit)
            case WRITE, WRITE_SAME, UNMAP, SYNCHRONIZE_CACHE, MODE_SELECT, COMPARE_AND_WRITE, EXTENDED_COPY -> Access.WRITE_LIKE;
            // SBC-4: START STOP UNIT with START=1 and POWER CONDITION 0h is allowed; any other is a change
            case START_STOP_UNIT -> d.has(CdbDecoder.START) && !d.has(CdbDecoder.POWER_CONDITION)
                    ? Access.ALWAYS : Access.WRITE_LIKE;
            // SPC-4: PREVENT ALLOW MEDIUM REMOVAL with PREVENT=00b is allowed; prevention is a change
            case PREVENT_ALLOW_MEDIUM_REMOVAL -> d.has(CdbDecoder.PREVENT) ? Access.WRITE_LIKE : Access.ALWAYS;
            case PERSISTENT_RESERVE_OUT, RESERVE, RELEASE -> Access.OWN_RULES;
        };
    }

    /** The column of a non-holder, {@code registered} or not, under a reservation of {@code type}. */
    static int column(final int type, final boolean registered) {
        if (!PersistentReserveData.registrantsAdmitted(type)) {
            return PersistentReserveData.writeExclusive(type) ? WE : EA;
        }
        if (registered) {
            return REGISTERED_RO_AR;
        }
        return PersistentReserveData.writeExclusive(type) ? UNREGISTERED_WE : UNREGISTERED_EA;
    }

    /** Whether a command of {@code access} from a non-holder ({@code registered} or not) passes a reservation of {@code type}. */
    public static boolean allowed(final Access access, final int type, final boolean registered) {
        return ALLOWED[access.ordinal()][column(type, registered)];
    }
}

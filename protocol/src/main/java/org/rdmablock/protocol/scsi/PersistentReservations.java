package org.rdmablock.protocol.scsi;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

import static org.rdmablock.protocol.scsi.BigEndian.get16;
import static org.rdmablock.protocol.scsi.BigEndian.get32;
import static org.rdmablock.protocol.scsi.BigEndian.get64;
import static org.rdmablock.protocol.scsi.BigEndian.get8;
import static org.rdmablock.protocol.scsi.BigEndian.put16;
import static org.rdmablock.protocol.scsi.BigEndian.put32;
import static org.rdmablock.protocol.scsi.BigEndian.put64;
import static org.rdmablock.protocol.scsi.BigEndian.put8;
import static org.rdmablock.protocol.scsi.PersistentReserveData.ADDITIONAL_LENGTH_OFFSET;
import static org.rdmablock.protocol.scsi.PersistentReserveData.ALL_TG_PT;
import static org.rdmablock.protocol.scsi.PersistentReserveData.ALL_TYPES_MASK;
import static org.rdmablock.protocol.scsi.PersistentReserveData.APTPL;
import static org.rdmablock.protocol.scsi.PersistentReserveData.APTPL_BIT;
import static org.rdmablock.protocol.scsi.PersistentReserveData.ATP_C;
import static org.rdmablock.protocol.scsi.PersistentReserveData.BASIC_PARAMETER_LIST_LENGTH;
import static org.rdmablock.protocol.scsi.PersistentReserveData.CAPABILITIES_FLAGS_OFFSET;
import static org.rdmablock.protocol.scsi.PersistentReserveData.CAPABILITIES_LENGTH;
import static org.rdmablock.protocol.scsi.PersistentReserveData.CAPABILITIES_LENGTH_OFFSET;
import static org.rdmablock.protocol.scsi.PersistentReserveData.CAPABILITIES_TYPES_OFFSET;
import static org.rdmablock.protocol.scsi.PersistentReserveData.CLEAR;
import static org.rdmablock.protocol.scsi.PersistentReserveData.CRH;
import static org.rdmablock.protocol.scsi.PersistentReserveData.EXCLUSIVE_ACCESS_REGISTRANTS_ONLY;
import static org.rdmablock.protocol.scsi.PersistentReserveData.FLAGS_OFFSET;
import static org.rdmablock.protocol.scsi.PersistentReserveData.FULL_STATUS_ALL_TG_PT;
import static org.rdmablock.protocol.scsi.PersistentReserveData.FULL_STATUS_DESCRIPTOR_HEADER;
import static org.rdmablock.protocol.scsi.PersistentReserveData.FULL_STATUS_FLAGS_OFFSET;
import static org.rdmablock.protocol.scsi.PersistentReserveData.FULL_STATUS_KEY_OFFSET;
import static org.rdmablock.protocol.scsi.PersistentReserveData.FULL_STATUS_RELATIVE_TARGET_PORT_OFFSET;
import static org.rdmablock.protocol.scsi.PersistentReserveData.FULL_STATUS_R_HOLDER;
import static org.rdmablock.protocol.scsi.PersistentReserveData.FULL_STATUS_SCOPE_TYPE_OFFSET;
import static org.rdmablock.protocol.scsi.PersistentReserveData.FULL_STATUS_TRANSPORT_ID_LENGTH_OFFSET;
import static org.rdmablock.protocol.scsi.PersistentReserveData.GENERATION_OFFSET;
import static org.rdmablock.protocol.scsi.PersistentReserveData.HEADER_LENGTH;
import static org.rdmablock.protocol.scsi.PersistentReserveData.KEY_LENGTH;
import static org.rdmablock.protocol.scsi.PersistentReserveData.LU_SCOPE;
import static org.rdmablock.protocol.scsi.PersistentReserveData.MOVE_FLAGS_OFFSET;
import static org.rdmablock.protocol.scsi.PersistentReserveData.PREEMPT;
import static org.rdmablock.protocol.scsi.PersistentReserveData.PREEMPT_AND_ABORT;
import static org.rdmablock.protocol.scsi.PersistentReserveData.PTPL_A;
import static org.rdmablock.protocol.scsi.PersistentReserveData.PTPL_C;
import static org.rdmablock.protocol.scsi.PersistentReserveData.READ_KEYS;
import static org.rdmablock.protocol.scsi.PersistentReserveData.READ_RESERVATION;
import static org.rdmablock.protocol.scsi.PersistentReserveData.REGISTER;
import static org.rdmablock.protocol.scsi.PersistentReserveData.REGISTER_AND_IGNORE_EXISTING_KEY;
import static org.rdmablock.protocol.scsi.PersistentReserveData.REGISTER_AND_MOVE;
import static org.rdmablock.protocol.scsi.PersistentReserveData.RELATIVE_TARGET_PORT_OFFSET;
import static org.rdmablock.protocol.scsi.PersistentReserveData.RELEASE;
import static org.rdmablock.protocol.scsi.PersistentReserveData.REPORT_CAPABILITIES;
import static org.rdmablock.protocol.scsi.PersistentReserveData.RESERVATION_DESCRIPTOR_LENGTH;
import static org.rdmablock.protocol.scsi.PersistentReserveData.RESERVATION_KEY_IN_DESCRIPTOR;
import static org.rdmablock.protocol.scsi.PersistentReserveData.RESERVATION_KEY_OFFSET;
import static org.rdmablock.protocol.scsi.PersistentReserveData.RESERVE;
import static org.rdmablock.protocol.scsi.PersistentReserveData.SCOPE_TYPE_IN_DESCRIPTOR;
import static org.rdmablock.protocol.scsi.PersistentReserveData.SERVICE_ACTION_RESERVATION_KEY_OFFSET;
import static org.rdmablock.protocol.scsi.PersistentReserveData.SPEC_I_PT;
import static org.rdmablock.protocol.scsi.PersistentReserveData.SPEC_I_PT_BIT;
import static org.rdmablock.protocol.scsi.PersistentReserveData.TMV;
import static org.rdmablock.protocol.scsi.PersistentReserveData.TRANSPORT_ID_LENGTH_OFFSET;
import static org.rdmablock.protocol.scsi.PersistentReserveData.TRANSPORT_ID_OFFSET;
import static org.rdmablock.protocol.scsi.PersistentReserveData.TYPE_MASK_OFFSET;
import static org.rdmablock.protocol.scsi.PersistentReserveData.UNREG;
import static org.rdmablock.protocol.scsi.PersistentReserveData.WRITE_EXCLUSIVE_REGISTRANTS_ONLY;
import static org.rdmablock.protocol.scsi.PersistentReserveData.allRegistrants;
import static org.rdmablock.protocol.scsi.PersistentReserveData.registrantsAdmitted;
import static org.rdmablock.protocol.scsi.PersistentReserveData.validType;

/**
 * The reservations of one logical unit: SPC-4 5.13's persistent reservations (PERSISTENT RESERVE IN and OUT: every
 * service action but the specified-initiator-ports form of REGISTER, all six types, the logical unit scope) and SPC-2's
 * RESERVE(6)/RELEASE(6) beside them as SPC-4 5.13.3 asks (CRH=1).
 *
 * <p>The state is immutable and replaced whole under a lock that only these commands take. Every other command reads
 * one volatile field ({@link #reserved()}), null while no reservation of either kind exists, so registrations alone
 * cost the data path nothing; when one exists, {@link #conflicts} walks the registrations (a handful).
 *
 * <p>Unit attentions go to the nexuses a change touches (SPC-4 5.13.11): REGISTRATIONS PREEMPTED to those preempted,
 * RESERVATIONS PREEMPTED to those a CLEAR removed, RESERVATIONS RELEASED to the other registrants when a Registrants
 * Only or All Registrants reservation is released or a preemption changes its type.
 *
 * <p>PREEMPT AND ABORT aborts the preempted nexuses' commands to the unit through the transport's
 * {@link TaskSetControl} and answers once they have ended. With a {@link ReservationStore} ({@link #persistIn}), an
 * initiator may ask for the state to persist through power loss (APTPL): from then on each change is durable in the
 * store before it is answered or seen, and a restart takes it back. Without one, REPORT CAPABILITIES says PTPL_C=0
 * and APTPL is refused. A PERSISTENT RESERVE OUT that writes the store waits on the device; the caller moves it to a
 * thread that may ({@link #writesStore}).
 */
public final class PersistentReservations {
    /** The most registrations a unit keeps; one more is INSUFFICIENT REGISTRATION RESOURCES. */
    static final int MAX_REGISTRATIONS = 256;

    /** One registered I_T nexus (or, with {@code allTargetPorts}, its initiator port at every target port) and its key. */
    record Registration(Nexus nexus, long key, boolean allTargetPorts) {
        boolean matches(final Nexus n) {
            return nexus == n || allTargetPorts && nexus.sameInitiatorPort(n);
        }
    }

    /** One state of the unit's reservations: replaced whole, never changed. */
    static final class State {
        static final State EMPTY = new State(0, new Registration[0], 0, null, null, false);

        final int generation;
        final Registration[] registrations;
        /** The persistent reservation's type, 0 when there is none. */
        final int type;
        /** Who holds it: null for the All Registrants types, which every registrant holds, and when there is none. */
        final Registration holder;
        /** The nexus holding an SPC-2 reservation, or null. */
        final Nexus spc2Holder;
        /** Activate Persist Through Power Loss, as the last REGISTER or REGISTER AND MOVE set it. */
        final boolean aptpl;

        State(final int generation, final Registration[] registrations, final int type, final Registration holder,
              final Nexus spc2Holder, final boolean aptpl) {
            this.generation = generation;
            this.registrations = registrations;
            this.type = type;
            this.holder = holder;
            this.spc2Holder = spc2Holder;
            this.aptpl = aptpl;
        }

        Registration registrationOf(final Nexus n) {
            for (final Registration r : registrations) {
                if (r.matches(n)) {
                    return r;
                }
            }
            return null;
        }

        boolean holds(final Nexus n) {
            if (type == 0 || n == null) {
                return false;
            }
            return allRegistrants(type) ? registrationOf(n) != null : holder.matches(n);
        }

        boolean reserved() {
            return type != 0 || spc2Holder != null;
        }

        State withRegistrations(final Registration[] next, final int nextType, final Registration nextHolder) {
            return new State(generation + 1, next, nextType, nextHolder, spc2Holder, aptpl);
        }

        State withReservation(final int nextType, final Registration nextHolder) {
            return new State(generation, registrations, nextType, nextHolder, spc2Holder, aptpl);
        }

        State withSpc2Holder(final Nexus n) {
            return new State(generation, registrations, type, holder, n, aptpl);
        }

        State withAptpl(final boolean persist) {
            return new State(generation, registrations, type, holder, spc2Holder, persist);
        }
    }

    private final int lun;
    private final Object lock = new Object();
    /** Where the state is kept through power loss, or null: APTPL refused (PTPL_C=0). Set before the unit serves. */
    private volatile ReservationStore store;
    /** The unit's serial number: a saved state of another unit at this LUN number is not taken. */
    private String serial;
    /** The whole state; read and replaced under {@link #lock}. */
    private volatile State state = State.EMPTY;
    /** {@link #state} while a reservation of either kind exists, null otherwise: what every command reads once. */
    private volatile State reserved;

    PersistentReservations(final int lun) {
        this.lun = lun;
    }

    /**
     * Whether the PERSISTENT RESERVE OUT {@code d} decoded may write the store (the state persists, or the parameter
     * list asks it to): what makes the engine run it where a call may wait. {@code parameters} is the data-out.
     */
    boolean writesStore(final CdbDecoder d, final MemorySegment parameters, final long offset, final long available) {
        if (store == null || d.kind() != CommandKind.PERSISTENT_RESERVE_OUT) {
            return false;
        }
        if (state.aptpl) {
            return true;
        }
        final int at = d.serviceAction() == REGISTER_AND_MOVE ? MOVE_FLAGS_OFFSET : FLAGS_OFFSET;
        return available > at && (get8(parameters, offset + at) & APTPL) != 0;
    }

    /** The state while a reservation exists, or null (one volatile read). */
    State reserved() {
        return reserved;
    }

    /** The PR generation (SPC-4 6.15.2): counts REGISTER, CLEAR, PREEMPT and REGISTER AND MOVE. */
    public int generation() {
        return state.generation;
    }

    /** How many I_T nexuses are registered. */
    public int registrationCount() {
        return state.registrations.length;
    }

    /**
     * The state in a few words, for operators: "" when nothing is registered or reserved; otherwise the reservation
     * (its type's short name and the holder's key, or SPC-2's holder), the registrations and the generation.
     */
    public String describe() {
        final State s = state;
        final StringBuilder out = new StringBuilder();
        if (s.spc2Holder != null) {
            out.append("SPC-2 RESERVE by ").append(s.spc2Holder);
        }
        if (s.type != 0) {
            out.append(TYPE_NAMES[s.type]).append(s.holder == null ? " (all registrants)"
                    : " by 0x" + Long.toHexString(s.holder.key()));
        }
        if (s.registrations.length > 0) {
            out.append(out.isEmpty() ? "" : ", ").append(s.registrations.length).append(" registered, generation ")
                    .append(Integer.toUnsignedString(s.generation)).append(s.aptpl ? ", persists (APTPL)" : "");
        }
        return out.toString();
    }

    /** Short names of the reservation types, by type code. */
    private static final String[] TYPE_NAMES = {"", "WE", "", "EA", "", "WE-RO", "EA-RO", "WE-AR", "EA-AR"};

    /** The persistent reservation's type, or 0 without one. */
    public int reservationType() {
        return state.type;
    }

    private void publish(final State next) {
        state = next;
        reserved = next.reserved() ? next : null;
    }

    // ---- persistence through power loss (APTPL) ----

    /** The first line of a saved state, with its format's version. */
    static final String FORMAT = "rdmablock-reservations 1";

    /**
     * Keeps the state in {@code where} from now on, whenever an initiator asks for persistence (APTPL), and takes the
     * state saved there, if any, unless it was saved for a unit of another serial number than {@code unitSerial}. Call
     * before the unit serves. Returns whether a saved state was taken.
     *
     * @throws IllegalStateException when the saved state cannot be read, naming where and which line
     */
    public boolean persistIn(final ReservationStore where, final NexusRegistry registry, final String unitSerial)
            throws IOException {
        synchronized (lock) {
            this.serial = unitSerial;
            this.store = where;
            final String text = where.load();
            if (text == null) {
                return false;
            }
            final State restored = decode(text, registry, where.describe());
            if (restored == null) {
                return false;
            }
            publish(restored);
            return true;
        }
    }

    /** The state as its store keeps it: a line of text per fact. */
    private String encode(final State s) {
        final StringBuilder out = new StringBuilder(FORMAT).append('\n');
        out.append("unit ").append(serial).append('\n');
        out.append("generation ").append(Integer.toUnsignedString(s.generation)).append('\n');
        int holderIndex = -1;
        for (int i = 0; i < s.registrations.length; i++) {
            final Registration r = s.registrations[i];
            out.append("registration ").append(HexFormat.of().formatHex(r.nexus().transportId())).append(' ')
                    .append(r.nexus().relativeTargetPort()).append(' ').append(r.allTargetPorts() ? "all-ports" : "one-port")
                    .append(' ').append(Long.toHexString(r.key())).append('\n');
            holderIndex = r == s.holder ? i : holderIndex;
        }
        if (s.type != 0) {
            out.append("reservation ").append(s.type).append(' ').append(holderIndex).append('\n');
        }
        return out.toString();
    }

    /** The state {@code text} holds, or null when it is another unit's; throws naming the line it cannot read. */
    private State decode(final String text, final NexusRegistry registry, final String where) {
        final String[] lines = text.split("\n");
        if (lines.length < 3 || !lines[0].equals(FORMAT)) {
            throw new IllegalStateException(where + ", line 1: not a saved reservation state (\"" + FORMAT + "\" expected)");
        }
        if (!lines[1].equals("unit " + serial)) {
            return null;
        }
        int generation = 0;
        final List<Registration> registrations = new ArrayList<>();
        int type = 0;
        Registration holder = null;
        for (int i = 2; i < lines.length; i++) {
            final String[] f = lines[i].trim().split(" ");
            try {
                switch (f[0]) {
                    case "generation" -> generation = Integer.parseUnsignedInt(f[1]);
                    case "registration" -> registrations.add(new Registration(
                            registry.of(HexFormat.of().parseHex(f[1]), Integer.parseInt(f[2])),
                            Long.parseUnsignedLong(f[4], 16), f[3].equals("all-ports")));
                    case "reservation" -> {
                        type = Integer.parseInt(f[1]);
                        final int index = Integer.parseInt(f[2]);
                        if (!validType(type) || (index < 0) != allRegistrants(type)) {
                            throw new IllegalArgumentException("type " + type + " with holder " + index);
                        }
                        holder = index < 0 ? null : registrations.get(index);
                    }
                    default -> throw new IllegalArgumentException("unknown entry " + f[0]);
                }
            } catch (RuntimeException e) {
                throw new IllegalStateException(where + ", line " + (i + 1) + ": cannot read \"" + lines[i] + "\" ("
                        + e.getMessage() + ")", e);
            }
        }
        return new State(generation, registrations.toArray(new Registration[0]), type, holder, null, true);
    }

    // ---- the check every command makes while a reservation exists ----

    /** Whether {@code s} (a reserved state) refuses the command {@code d} decoded from nexus {@code n}. */
    static boolean conflicts(final State s, final Nexus n, final CdbDecoder d) {
        final ReservationTable.Access access = ReservationTable.classOf(d);
        if (s.spc2Holder != null) {
            return spc2Conflicts(s.spc2Holder, n, d.kind());
        }
        return access != ReservationTable.Access.OWN_RULES && persistentConflicts(s, n, access);
    }

    /** Whether the persistent reservation in {@code s} refuses a command of {@code access} from {@code n} (SPC-4 5.13.1). */
    private static boolean persistentConflicts(final State s, final Nexus n, final ReservationTable.Access access) {
        return !s.holds(n) && !ReservationTable.allowed(access, s.type, n != null && s.registrationOf(n) != null);
    }

    /**
     * SPC-2 5.5.1: under a RESERVE, every command from another nexus conflicts but INQUIRY, REQUEST SENSE, REPORT LUNS
     * and RELEASE; PERSISTENT RESERVE IN and OUT conflict from every nexus, the holder's too (SPC-4 5.13.3). LIO lets
     * only INQUIRY and RELEASE through.
     */
    private static boolean spc2Conflicts(final Nexus holder, final Nexus n, final CommandKind kind) {
        if (kind == CommandKind.PERSISTENT_RESERVE_IN || kind == CommandKind.PERSISTENT_RESERVE_OUT) {
            return true;
        }
        if (holder == n) {
            return false;
        }
        return !(kind == CommandKind.INQUIRY || kind == CommandKind.REQUEST_SENSE || kind == CommandKind.REPORT_LUNS
                || kind == CommandKind.RELEASE);
    }

    /**
     * Whether a command of {@code access} from {@code n} would meet RESERVATION CONFLICT now: an EXTENDED COPY's reads
     * from and writes to a copy target (under an SPC-2 reservation, anything from another nexus conflicts).
     */
    boolean refuses(final Nexus n, final ReservationTable.Access access) {
        final State s = reserved;
        if (s == null) {
            return false;
        }
        if (s.spc2Holder != null) {
            return s.spc2Holder != n;
        }
        return persistentConflicts(s, n, access);
    }

    /** Whether a WRITE decoded in {@code d} from {@code n} would meet RESERVATION CONFLICT now. */
    boolean refuses(final Nexus n, final CdbDecoder d) {
        final State s = reserved;
        return s != null && conflicts(s, n, d);
    }

    // ---- PERSISTENT RESERVE IN ----

    void in(final ScsiCommand cmd, final CdbDecoder d) {
        final State s = state;
        final long allocation = d.allocationLength();
        switch (d.serviceAction()) {
            case READ_KEYS -> {
                final int length = HEADER_LENGTH + KEY_LENGTH * s.registrations.length;
                final MemorySegment out = header(cmd, length, s);
                for (int i = 0; i < s.registrations.length; i++) {
                    put64(out, HEADER_LENGTH + (long) KEY_LENGTH * i, s.registrations[i].key());
                }
                cmd.completeWithData(length, allocation);
            }
            case READ_RESERVATION -> {
                final int length = HEADER_LENGTH + (s.type == 0 ? 0 : RESERVATION_DESCRIPTOR_LENGTH);
                final MemorySegment out = header(cmd, length, s);
                if (s.type != 0) {
                    // SPC-4 6.15.3.2: an All Registrants reservation reports key 0
                    put64(out, HEADER_LENGTH + RESERVATION_KEY_IN_DESCRIPTOR, s.holder == null ? 0 : s.holder.key());
                    put8(out, HEADER_LENGTH + SCOPE_TYPE_IN_DESCRIPTOR, LU_SCOPE << 4 | s.type);
                }
                cmd.completeWithData(length, allocation);
            }
            case REPORT_CAPABILITIES -> {
                final MemorySegment out = cmd.scratch(CAPABILITIES_LENGTH);
                put16(out, CAPABILITIES_LENGTH_OFFSET, CAPABILITIES_LENGTH);
                put8(out, CAPABILITIES_FLAGS_OFFSET, CRH | ATP_C | (store != null ? PTPL_C : 0));
                put8(out, CAPABILITIES_TYPES_OFFSET, TMV | (s.aptpl ? PTPL_A : 0));
                put16(out, TYPE_MASK_OFFSET, ALL_TYPES_MASK);
                cmd.completeWithData(CAPABILITIES_LENGTH, allocation);
            }
            default -> readFullStatus(cmd, s, allocation);
        }
    }

    private static MemorySegment header(final ScsiCommand cmd, final int length, final State s) {
        final MemorySegment out = cmd.scratch(length);
        put32(out, GENERATION_OFFSET, Integer.toUnsignedLong(s.generation));
        put32(out, ADDITIONAL_LENGTH_OFFSET, length - HEADER_LENGTH);
        return out;
    }

    private static void readFullStatus(final ScsiCommand cmd, final State s, final long allocation) {
        int length = HEADER_LENGTH;
        for (final Registration r : s.registrations) {
            length += FULL_STATUS_DESCRIPTOR_HEADER + r.nexus().transportId().length;
        }
        final MemorySegment out = header(cmd, length, s);
        int at = HEADER_LENGTH;
        for (final Registration r : s.registrations) {
            put64(out, at + FULL_STATUS_KEY_OFFSET, r.key());
            final boolean holds = s.type != 0 && (s.holder == null || s.holder == r);
            put8(out, at + FULL_STATUS_FLAGS_OFFSET, (r.allTargetPorts() ? FULL_STATUS_ALL_TG_PT : 0)
                    | (holds ? FULL_STATUS_R_HOLDER : 0));
            if (holds) {
                put8(out, at + FULL_STATUS_SCOPE_TYPE_OFFSET, LU_SCOPE << 4 | s.type);
            }
            put16(out, at + FULL_STATUS_RELATIVE_TARGET_PORT_OFFSET, r.allTargetPorts() ? 0 : r.nexus().relativeTargetPort());
            final int idLength = r.nexus().writeTransportId(out, at + FULL_STATUS_DESCRIPTOR_HEADER);
            put32(out, at + FULL_STATUS_TRANSPORT_ID_LENGTH_OFFSET, idLength);
            at += FULL_STATUS_DESCRIPTOR_HEADER + idLength;
        }
        cmd.completeWithData(length, allocation);
    }

    // ---- PERSISTENT RESERVE OUT ----

    void out(final ScsiCommand cmd, final CdbDecoder d, final SenseFormat format) {
        final Nexus n = cmd.nexus();
        final int action = d.serviceAction();
        final long length = d.parameterListLength();
        if (action == REGISTER_AND_MOVE ? length < TRANSPORT_ID_OFFSET : length != BASIC_PARAMETER_LIST_LENGTH) {
            cmd.accountDataOut(length);
            parameterError(cmd, format, SenseCode.PARAMETER_LIST_LENGTH_ERROR, SenseData.NO_FIELD, -1);
            return;
        }
        if (!cmd.accountDataOut(length)) {
            cmd.checkCondition(format, SenseCode.INVALID_FIELD_IN_CDB, -1, 5, true, -1);
            return;
        }
        final MemorySegment data = cmd.dataBuffer();
        final long base = cmd.dataBufferOffset();
        final long key = get64(data, base + RESERVATION_KEY_OFFSET);
        final long serviceActionKey = get64(data, base + SERVICE_ACTION_RESERVATION_KEY_OFFSET);
        final int flags = action == REGISTER_AND_MOVE ? 0 : get8(data, base + FLAGS_OFFSET);
        if ((flags & SPEC_I_PT) != 0) {
            // SIP_C=0: no registering of other initiator ports
            parameterError(cmd, format, SenseCode.INVALID_FIELD_IN_PARAMETER_LIST, FLAGS_OFFSET, SPEC_I_PT_BIT);
            return;
        }
        synchronized (lock) {
            final State s = state;
            if (s.spc2Holder != null) {
                cmd.reservationConflict();
                return;
            }
            final Registration mine = s.registrationOf(n);
            switch (action) {
                case REGISTER, REGISTER_AND_IGNORE_EXISTING_KEY -> register(cmd, format, s, n, mine, key, serviceActionKey,
                        flags, action == REGISTER_AND_IGNORE_EXISTING_KEY);
                default -> {
                    if (mine == null || mine.key() != key) {
                        cmd.reservationConflict();
                        return;
                    }
                    switch (action) {
                        case RESERVE -> reserve(cmd, format, d, s, n, mine);
                        case RELEASE -> release(cmd, format, d, s, n);
                        case CLEAR -> clear(cmd, format, s, n);
                        case PREEMPT, PREEMPT_AND_ABORT -> preempt(cmd, format, d, s, n, mine, serviceActionKey,
                                action == PREEMPT_AND_ABORT);
                        default -> registerAndMove(cmd, format, s, n, mine, serviceActionKey, data, base, length);
                    }
                }
            }
        }
    }

    private void register(final ScsiCommand cmd, final SenseFormat format, final State s, final Nexus n,
                          final Registration mine, final long key, final long newKey, final int flags, final boolean ignoreKey) {
        final boolean aptpl = (flags & APTPL) != 0;
        if (aptpl && store == null) {
            // PTPL_C=0 without a place to keep the state: it cannot survive a power loss here
            parameterError(cmd, format, SenseCode.INVALID_FIELD_IN_PARAMETER_LIST, FLAGS_OFFSET, APTPL_BIT);
            return;
        }
        if (mine == null) {
            if (!ignoreKey && key != 0) {
                cmd.reservationConflict();
                return;
            }
            if (newKey == 0) {
                cmd.complete(); // unregistered to unregistered: nothing changes
                return;
            }
            if (s.registrations.length >= MAX_REGISTRATIONS) {
                parameterError(cmd, format, SenseCode.INSUFFICIENT_REGISTRATION_RESOURCES, SenseData.NO_FIELD, -1);
                return;
            }
            final Registration[] next = append(s.registrations, new Registration(n, newKey, (flags & ALL_TG_PT) != 0));
            if (commit(cmd, format, s, s.withRegistrations(next, s.type, s.holder).withAptpl(aptpl))) {
                cmd.complete();
            }
            return;
        }
        if (!ignoreKey && key != mine.key()) {
            cmd.reservationConflict();
            return;
        }
        if (newKey != 0) {
            final Registration rekeyed = new Registration(mine.nexus(), newKey, mine.allTargetPorts());
            final State next = s.withRegistrations(replace(s.registrations, mine, rekeyed), s.type,
                    s.holder == mine ? rekeyed : s.holder).withAptpl(aptpl);
            if (commit(cmd, format, s, next)) {
                cmd.complete();
            }
            return;
        }
        final Registration[] remaining = without(s.registrations, List.of(mine));
        final boolean released = s.holder == mine || allRegistrants(s.type) && remaining.length == 0;
        final State next = released ? s.withRegistrations(remaining, 0, null) : s.withRegistrations(remaining, s.type, s.holder);
        if (!commit(cmd, format, s, next.withAptpl(aptpl))) {
            return;
        }
        if (released && (s.type == WRITE_EXCLUSIVE_REGISTRANTS_ONLY || s.type == EXCLUSIVE_ACCESS_REGISTRANTS_ONLY)) {
            // SPC-4 5.13.11.2.2: the holder unregistered, so the reservation went; RO's registrants are told
            tell(remaining, n, SenseCode.RESERVATIONS_RELEASED);
        }
        cmd.complete();
    }

    private void reserve(final ScsiCommand cmd, final SenseFormat format, final CdbDecoder d, final State s, final Nexus n,
                         final Registration mine) {
        if (!validScopeAndType(cmd, format, d)) {
            return;
        }
        if (s.type == 0) {
            if (commit(cmd, format, s, s.withReservation(d.reservationType(), allRegistrants(d.reservationType()) ? null : mine))) {
                cmd.complete();
            }
        } else if (s.holds(n) && s.type == d.reservationType()) {
            cmd.complete(); // SPC-4 5.13.9: the same reservation again changes nothing
        } else {
            cmd.reservationConflict();
        }
    }

    private void release(final ScsiCommand cmd, final SenseFormat format, final CdbDecoder d, final State s, final Nexus n) {
        if (s.type == 0 || !s.holds(n)) {
            cmd.complete(); // SPC-4 5.13.11.2.1: nothing held by this nexus to release, and no error
            return;
        }
        if (d.reservationScope() != LU_SCOPE || d.reservationType() != s.type) {
            parameterError(cmd, format, SenseCode.INVALID_RELEASE_OF_PERSISTENT_RESERVATION, SenseData.NO_FIELD, -1);
            return;
        }
        if (!commit(cmd, format, s, s.withReservation(0, null))) {
            return;
        }
        if (registrantsAdmitted(s.type)) {
            tell(s.registrations, n, SenseCode.RESERVATIONS_RELEASED);
        }
        cmd.complete();
    }

    private void clear(final ScsiCommand cmd, final SenseFormat format, final State s, final Nexus n) {
        if (commit(cmd, format, s, s.withRegistrations(new Registration[0], 0, null))) {
            tell(s.registrations, n, SenseCode.RESERVATIONS_PREEMPTED);
            cmd.complete();
        }
    }

    private void preempt(final ScsiCommand cmd, final SenseFormat format, final CdbDecoder d, final State s, final Nexus n,
                         final Registration mine, final long victimKey, final boolean abort) {
        if (!validScopeAndType(cmd, format, d)) {
            return;
        }
        final int newType = d.reservationType();
        final List<Registration> removed = new ArrayList<>();
        final boolean takesReservation;
        if (s.type != 0 && allRegistrants(s.type) && victimKey == 0) {
            // SPC-4 5.13.11.4.4: every other registration goes, and a new reservation is the preempter's
            for (final Registration r : s.registrations) {
                if (r != mine) {
                    removed.add(r);
                }
            }
            takesReservation = true;
        } else if (s.type != 0 && s.holder != null && s.holder.key() == victimKey) {
            // SPC-4 5.13.11.4.3: the holder's key (the preempter's own key included) moves the reservation
            collect(s.registrations, victimKey, mine, removed);
            takesReservation = true;
        } else {
            if (victimKey == 0) {
                parameterError(cmd, format, SenseCode.INVALID_FIELD_IN_PARAMETER_LIST, SERVICE_ACTION_RESERVATION_KEY_OFFSET, -1);
                return;
            }
            collect(s.registrations, victimKey, mine, removed);
            if (removed.isEmpty()) {
                cmd.reservationConflict(); // no registration has that key
                return;
            }
            takesReservation = false;
        }
        final Registration[] remaining = without(s.registrations, removed);
        final State next = takesReservation
                ? s.withRegistrations(remaining, newType, allRegistrants(newType) ? null : mine)
                : s.withRegistrations(remaining, s.type, s.holder);
        if (!commit(cmd, format, s, next)) {
            return;
        }
        tell(removed.toArray(new Registration[0]), n, SenseCode.REGISTRATIONS_PREEMPTED);
        if (takesReservation && s.type != newType) {
            tell(remaining, n, SenseCode.RESERVATIONS_RELEASED);
        }
        if (abort && !removed.isEmpty()) {
            // the answer waits until no command of the preempted nexuses can still change the medium
            final Nexus[] preempted = removed.stream().map(Registration::nexus).distinct().toArray(Nexus[]::new);
            cmd.taskSets().abortTasks(this, preempted, cmd, cmd::complete);
            return;
        }
        cmd.complete();
    }

    private void registerAndMove(final ScsiCommand cmd, final SenseFormat format, final State s, final Nexus n,
                                 final Registration mine, final long newKey, final MemorySegment data, final long base,
                                 final long length) {
        final long idLength = get32(data, base + TRANSPORT_ID_LENGTH_OFFSET);
        if (idLength > length - TRANSPORT_ID_OFFSET) {
            parameterError(cmd, format, SenseCode.PARAMETER_LIST_LENGTH_ERROR, SenseData.NO_FIELD, -1);
            return;
        }
        if (s.type == 0 || allRegistrants(s.type) || !s.holds(n)) {
            cmd.reservationConflict(); // SPC-4 5.13.8: only the holder of a reservation of one nexus moves it
            return;
        }
        final int moveFlags = get8(data, base + MOVE_FLAGS_OFFSET);
        final boolean aptpl = (moveFlags & APTPL) != 0;
        if (aptpl && store == null) {
            parameterError(cmd, format, SenseCode.INVALID_FIELD_IN_PARAMETER_LIST, MOVE_FLAGS_OFFSET, APTPL_BIT);
            return;
        }
        if (newKey == 0) {
            parameterError(cmd, format, SenseCode.INVALID_FIELD_IN_PARAMETER_LIST, SERVICE_ACTION_RESERVATION_KEY_OFFSET, -1);
            return;
        }
        final int relativePort = get16(data, base + RELATIVE_TARGET_PORT_OFFSET);
        if (relativePort != n.relativeTargetPort()) {
            parameterError(cmd, format, SenseCode.INVALID_FIELD_IN_PARAMETER_LIST, RELATIVE_TARGET_PORT_OFFSET, -1);
            return;
        }
        final int parsed = Nexus.transportIdLength(data, base + TRANSPORT_ID_OFFSET, idLength);
        if (parsed < 0) {
            parameterError(cmd, format, SenseCode.INVALID_FIELD_IN_PARAMETER_LIST, TRANSPORT_ID_OFFSET, -1);
            return;
        }
        final byte[] transportId = data.asSlice(base + TRANSPORT_ID_OFFSET, parsed).toArray(ValueLayout.JAVA_BYTE);
        final Nexus destination = n.registry().of(transportId, relativePort);
        if (destination == n) {
            parameterError(cmd, format, SenseCode.INVALID_FIELD_IN_PARAMETER_LIST, TRANSPORT_ID_OFFSET, -1);
            return;
        }
        final Registration existing = s.registrationOf(destination);
        final Registration moved = new Registration(destination, newKey, existing != null && existing.allTargetPorts());
        Registration[] next = existing != null ? replace(s.registrations, existing, moved) : append(s.registrations, moved);
        if ((moveFlags & UNREG) != 0) {
            next = without(next, List.of(mine));
        }
        if (commit(cmd, format, s, s.withRegistrations(next, s.type, moved).withAptpl(aptpl))) {
            cmd.complete();
        }
    }

    /**
     * Makes {@code next} the state: first durable, when the state persists through power loss (APTPL) now or did
     * before, then seen by every command. False, with the command answered INTERNAL TARGET FAILURE and nothing
     * changed, when the store could not take it.
     */
    private boolean commit(final ScsiCommand cmd, final SenseFormat format, final State s, final State next) {
        if (store != null && (s.aptpl || next.aptpl)) {
            try {
                if (next.aptpl) {
                    store.save(encode(next));
                } else {
                    store.delete();
                }
            } catch (IOException | RuntimeException e) {
                cmd.checkCondition(format, SenseCode.INTERNAL_TARGET_FAILURE, -1, SenseData.NO_FIELD, false, -1);
                return false;
            }
        }
        publish(next);
        return true;
    }

    // ---- SPC-2 RESERVE(6) / RELEASE(6) ----

    /**
     * SPC-2 RESERVE(6) ({@code reserve}) or RELEASE(6): beside registrations, SPC-4 5.13.3's rules; otherwise a RESERVE
     * by another nexus than the holder conflicts, and a RELEASE of what another holds is no error and changes nothing
     * (SPC-2 7.17).
     */
    void spc2(final ScsiCommand cmd, final boolean reserve) {
        final Nexus n = cmd.nexus();
        synchronized (lock) {
            final State s = state;
            if (s.registrations.length > 0) {
                compatibleWithPersistent(cmd, s, n);
            } else if (reserve && s.spc2Holder != null && s.spc2Holder != n) {
                cmd.reservationConflict();
            } else {
                if (reserve || s.spc2Holder == n) {
                    publish(s.withSpc2Holder(reserve ? n : null));
                }
                cmd.complete();
            }
        }
    }

    /**
     * SPC-4 5.13.3 with CRH=1: beside registrations, RESERVE and RELEASE from the holder of the persistent reservation
     * (or a registrant under a Registrants Only or All Registrants type) succeed and change nothing; from anyone else
     * they conflict.
     */
    private static void compatibleWithPersistent(final ScsiCommand cmd, final State s, final Nexus n) {
        if (s.holds(n) || s.type != 0 && registrantsAdmitted(s.type) && s.registrationOf(n) != null) {
            cmd.complete();
        } else {
            cmd.reservationConflict();
        }
    }

    /** A LOGICAL UNIT RESET (SPC-2 5.5.1): the SPC-2 reservation goes; persistent ones stay. */
    public void logicalUnitReset() {
        synchronized (lock) {
            if (state.spc2Holder != null) {
                publish(state.withSpc2Holder(null));
            }
        }
    }

    /** Nexus {@code n} is gone (its last channel ended): an SPC-2 reservation it held goes with it. */
    public void nexusLost(final Nexus n) {
        synchronized (lock) {
            if (state.spc2Holder == n) {
                publish(state.withSpc2Holder(null));
            }
        }
    }

    // ---- helpers ----

    private static boolean validScopeAndType(final ScsiCommand cmd, final SenseFormat format, final CdbDecoder d) {
        if (d.reservationScope() != LU_SCOPE) {
            cmd.checkCondition(format, SenseCode.INVALID_FIELD_IN_CDB, -1, 2, true, 7);
            return false;
        }
        if (!validType(d.reservationType())) {
            cmd.checkCondition(format, SenseCode.INVALID_FIELD_IN_CDB, -1, 2, true, 3);
            return false;
        }
        return true;
    }

    /** Raises {@code condition} for this unit on every registrant's nexus but {@code except}. */
    private void tell(final Registration[] registrations, final Nexus except, final SenseCode condition) {
        for (final Registration r : registrations) {
            if (!r.matches(except)) {
                r.nexus().attentions().raise(lun, condition);
            }
        }
    }

    private static void collect(final Registration[] registrations, final long key, final Registration mine,
                                final List<Registration> into) {
        for (final Registration r : registrations) {
            if (r.key() == key && r != mine) {
                into.add(r);
            }
        }
    }

    private static Registration[] without(final Registration[] registrations, final List<Registration> removed) {
        return Arrays.stream(registrations).filter(r -> !removed.contains(r)).toArray(Registration[]::new);
    }

    private static Registration[] replace(final Registration[] registrations, final Registration old, final Registration with) {
        final Registration[] next = registrations.clone();
        for (int i = 0; i < next.length; i++) {
            if (next[i] == old) {
                next[i] = with;
            }
        }
        return next;
    }

    private static Registration[] append(final Registration[] registrations, final Registration added) {
        final Registration[] next = Arrays.copyOf(registrations, registrations.length + 1);
        next[registrations.length] = added;
        return next;
    }

    private static void parameterError(final ScsiCommand cmd, final SenseFormat format, final SenseCode code, final int field,
                                       final int bit) {
        cmd.checkCondition(format, code, -1, field, false, bit);
    }
}

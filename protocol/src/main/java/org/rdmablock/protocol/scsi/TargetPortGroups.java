package org.rdmablock.protocol.scsi;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

import static org.rdmablock.protocol.scsi.BigEndian.put16;
import static org.rdmablock.protocol.scsi.BigEndian.put32;
import static org.rdmablock.protocol.scsi.BigEndian.put8;

/**
 * A target's ports in their target port groups, each group in an asymmetric access state (SPC-4 5.16, implicit ALUA):
 * what REPORT TARGET PORT GROUPS returns, what the Device Identification page names per I_T nexus, and which commands a
 * nexus through a port in the standby or unavailable state may send. Immutable: a change of states is a new instance,
 * published by {@link NexusRegistry#portGroups(TargetPortGroups)} (the target's nexuses all read it there). Every LUN
 * is in every group.
 */
public final class TargetPortGroups {
    /** An asymmetric access state (SPC-4 table 57) with the name a config gives it. */
    public enum AccessState {
        ACTIVE_OPTIMIZED(0x0, "active/optimized"),
        ACTIVE_NON_OPTIMIZED(0x1, "active/non-optimized"),
        STANDBY(0x2, "standby"),
        UNAVAILABLE(0x3, "unavailable");

        private final int code;
        private final String configName;

        AccessState(final int code, final String configName) {
            this.code = code;
            this.configName = configName;
        }

        /** The ASYMMETRIC ACCESS STATE code REPORT TARGET PORT GROUPS carries. */
        public int code() {
            return code;
        }

        /** How a config names it ("active/optimized", ...). */
        public String configName() {
            return configName;
        }

        /** The state a config names, or null. */
        public static AccessState ofConfigName(final String name) {
            for (final AccessState s : values()) {
                if (s.configName.equals(name.toLowerCase(Locale.ROOT))) {
                    return s;
                }
            }
            return null;
        }
    }

    /**
     * One target port group: its identifier (1..65535), its state, and the relative target port identifiers of its
     * ports.
     */
    public record Group(int id, AccessState state, List<Integer> ports) {
        public Group {
            if (id < 1 || id > 0xFFFF) {
                throw new IllegalArgumentException("a target port group id is 1..65535, not " + id);
            }
            ports = List.copyOf(ports);
        }
    }

    /** The relative target port a target with one port has: 1 (SPC-4 7.8.6.5: 0 is reserved). */
    public static final int FIRST_PORT = 1;
    /** One group (1) of one port (1), active/optimized: a target with no groups configured. */
    public static final TargetPortGroups SINGLE = new TargetPortGroups(List.of(new Group(1, AccessState.ACTIVE_OPTIMIZED,
            List.of(FIRST_PORT))));

    /** RTPG's parameter data (SPC-4 6.36): the length, then the extended header's format and transition time. */
    static final int RTPG_LENGTH_OFFSET = 0;
    static final int RTPG_EXTENDED_FORMAT_OFFSET = 4;
    static final int RTPG_EXTENDED_HEADER = 8;
    /** FORMAT TYPE 001b in bits 6-4 of byte 4: the extended header is there. */
    static final int RTPG_FORMAT_EXTENDED = 0x10;
    /** A target port group descriptor: state (byte 0), supported states (1), id (2-3), status (5), port count (7). */
    static final int GROUP_DESCRIPTOR = 8;
    static final int GROUP_SUPPORTED_OFFSET = 1;
    static final int GROUP_ID_OFFSET = 2;
    static final int GROUP_STATUS_OFFSET = 5;
    static final int GROUP_PORT_COUNT_OFFSET = 7;
    /** Each port: 2 reserved bytes, then its relative target port identifier. */
    static final int PORT_DESCRIPTOR = 4;
    static final int PORT_ID_OFFSET = 2;
    /** The states every group may be in: AO_SUP, AN_SUP, S_SUP, U_SUP. */
    static final int SUPPORTED_STATES = 0x0F;
    /** STATUS CODE 02h: the state was last changed by implicit ALUA behaviour (the target's own configuration). */
    static final int STATUS_IMPLICIT = 0x02;

    private final Group[] groups;
    /** Indexed by relative target port: its group's position in {@link #groups}, or -1. */
    private final int[] groupOfPort;
    private final boolean allActive;
    private final boolean changed;

    /** The groups given, each port in exactly one. */
    public TargetPortGroups(final List<Group> groups) {
        this(groups, false);
    }

    private TargetPortGroups(final List<Group> groups, final boolean changed) {
        this.groups = groups.toArray(new Group[0]);
        int highest = 0;
        boolean active = true;
        for (final Group g : this.groups) {
            for (final int port : g.ports()) {
                if (port < 1 || port > 0xFFFF) {
                    throw new IllegalArgumentException("a relative target port is 1..65535, not " + port);
                }
                highest = Math.max(highest, port);
            }
            active &= g.state() == AccessState.ACTIVE_OPTIMIZED || g.state() == AccessState.ACTIVE_NON_OPTIMIZED;
        }
        this.groupOfPort = new int[highest + 1];
        Arrays.fill(groupOfPort, -1);
        for (int i = 0; i < this.groups.length; i++) {
            for (int j = 0; j < i; j++) {
                if (this.groups[j].id() == this.groups[i].id()) {
                    throw new IllegalArgumentException("target port group " + this.groups[i].id() + " is given twice");
                }
            }
            for (final int port : this.groups[i].ports()) {
                if (groupOfPort[port] >= 0) {
                    throw new IllegalArgumentException("port " + port + " is in two target port groups");
                }
                groupOfPort[port] = i;
            }
        }
        this.allActive = active;
        this.changed = changed;
    }

    /** The same groups with the states {@code next} gives them, marked as changed by the target (STATUS CODE 02h). */
    public TargetPortGroups changedTo(final List<Group> next) {
        return new TargetPortGroups(next, true);
    }

    public List<Group> groups() {
        return List.of(groups);
    }

    /** Whether every group is active (optimized or not): no command is refused for its port's state. */
    public boolean allActive() {
        return allActive;
    }

    /** The state of the group relative target port {@code port} is in (active/optimized for a port in none). */
    public AccessState stateOf(final int port) {
        final int g = port >= 0 && port < groupOfPort.length ? groupOfPort[port] : -1;
        return g < 0 ? AccessState.ACTIVE_OPTIMIZED : groups[g].state();
    }

    /** The id of the group port {@code port} is in, or 0 for a port in none. */
    public int groupOf(final int port) {
        final int g = port >= 0 && port < groupOfPort.length ? groupOfPort[port] : -1;
        return g < 0 ? 0 : groups[g].id();
    }

    /**
     * Whether a command of {@code kind} may be processed through a port in {@code state} (SPC-4 5.16.2.4): every one
     * while active; in standby the commands SPC-4 lists (INQUIRY, MODE SENSE and SELECT, REPORT LUNS, REPORT TARGET
     * PORT GROUPS, REQUEST SENSE, PERSISTENT RESERVE IN and OUT) and, as it lets a device server add, REPORT SUPPORTED
     * OPERATION CODES and READ CAPACITY (LIO lets READ CAPACITY(16) through too, so that sd sizes a standby path);
     * unavailable, only INQUIRY, REPORT LUNS, REPORT TARGET PORT GROUPS, REQUEST SENSE and REPORT SUPPORTED OPERATION
     * CODES.
     */
    public static boolean allows(final AccessState state, final CommandKind kind) {
        return switch (state) {
            case ACTIVE_OPTIMIZED, ACTIVE_NON_OPTIMIZED -> true;
            case STANDBY -> switch (kind) {
                case INQUIRY, MODE_SENSE, MODE_SELECT, REPORT_LUNS, REPORT_TARGET_PORT_GROUPS, REQUEST_SENSE,
                     PERSISTENT_RESERVE_IN, PERSISTENT_RESERVE_OUT, REPORT_SUPPORTED_OPERATION_CODES, READ_CAPACITY_10,
                     READ_CAPACITY_16 -> true;
                default -> false;
            };
            case UNAVAILABLE -> switch (kind) {
                case INQUIRY, REPORT_LUNS, REPORT_TARGET_PORT_GROUPS, REQUEST_SENSE, REPORT_SUPPORTED_OPERATION_CODES -> true;
                default -> false;
            };
        };
    }

    /** The NOT READY condition a refused command gets in {@code state} (standby or unavailable). */
    public static SenseCode refusal(final AccessState state) {
        return state == AccessState.STANDBY ? SenseCode.LOGICAL_UNIT_NOT_ACCESSIBLE_TARGET_PORT_IN_STANDBY_STATE
                : SenseCode.LOGICAL_UNIT_NOT_ACCESSIBLE_TARGET_PORT_IN_UNAVAILABLE_STATE;
    }

    /** Bytes REPORT TARGET PORT GROUPS' answer takes. */
    int reportLength() {
        int length = RTPG_EXTENDED_HEADER;
        for (final Group g : groups) {
            length += GROUP_DESCRIPTOR + PORT_DESCRIPTOR * g.ports().size();
        }
        return length;
    }

    /**
     * Writes REPORT TARGET PORT GROUPS' parameter data at the start of {@code out}, with the extended header when
     * {@code extended} (PARAMETER DATA FORMAT 001b); returns its length.
     */
    int report(final MemorySegment out, final boolean extended) {
        int at = extended ? RTPG_EXTENDED_HEADER : 4;
        if (extended) {
            put8(out, RTPG_EXTENDED_FORMAT_OFFSET, RTPG_FORMAT_EXTENDED); // implicit transition time (byte 5): 0 s
        }
        for (final Group g : groups) {
            put8(out, at, g.state().code());                // PREF 0
            put8(out, at + GROUP_SUPPORTED_OFFSET, SUPPORTED_STATES);
            put16(out, at + GROUP_ID_OFFSET, g.id());
            put8(out, at + GROUP_STATUS_OFFSET, changed ? STATUS_IMPLICIT : 0);
            put8(out, at + GROUP_PORT_COUNT_OFFSET, g.ports().size());
            at += GROUP_DESCRIPTOR;
            for (final int port : g.ports()) {
                put16(out, at + PORT_ID_OFFSET, port);
                at += PORT_DESCRIPTOR;
            }
        }
        put32(out, RTPG_LENGTH_OFFSET, at - 4);
        return at;
    }

    @Override
    public String toString() {
        return Arrays.toString(groups);
    }
}

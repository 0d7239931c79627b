package org.rdmablock.target.config;

import org.rdmablock.protocol.scsi.TargetPortGroups;
import org.rdmablock.protocol.scsi.TargetPortGroups.AccessState;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The target's SRP ports and their target port groups (implicit ALUA, SPC-4 5.16): [listen] is relative target port 1;
 * each [[port]] is another address and rdma_cm port the daemon listens on, a target port of its own; each
 * [[port_group]] gives a group's asymmetric access state. Initiators see every LUN through every port; multipath
 * groups the paths by the states REPORT TARGET PORT GROUPS returns. A reload may change the states, not the ports
 * or which group a port is in.
 *
 * @param listenGroup the group of port 1 ([listen] group)
 * @param ports       [[port]]: relative target ports 2 and up, in the file's order
 * @param groups      [[port_group]]: the states of the groups declared; a group a port names and none declares is
 *                    active/optimized
 */
public record PortsConfig(int listenGroup, List<Port> ports, List<Group> groups) {
    /** The group a port is in unless it names one, and the state of a group no [[port_group]] declares. */
    public static final int DEFAULT_GROUP = 1;
    public static final AccessState DEFAULT_STATE = AccessState.ACTIVE_OPTIMIZED;
    /** One port, [listen]'s, in group 1, active/optimized. */
    public static final PortsConfig NONE = new PortsConfig(DEFAULT_GROUP, List.of(), List.of());

    /**
     * One [[port]].
     *
     * @param id      its relative target port identifier, 2 to 65535 (1 is [listen]), each once
     * @param address the IP address or host name to bind
     * @param port    the rdma_cm port (the TCP port for soft)
     * @param group   the target port group it is in
     */
    public record Port(int id, String address, int port, int group) {
        public Port {
            Objects.requireNonNull(address);
        }
    }

    /**
     * One [[port_group]].
     *
     * @param id    its target port group identifier, 1 to 65535, each once
     * @param state its asymmetric access state
     */
    public record Group(int id, AccessState state) {
        public Group {
            Objects.requireNonNull(state);
        }
    }

    public PortsConfig {
        ports = List.copyOf(ports);
        groups = List.copyOf(groups);
    }

    /** What the engine serves: each group (declared ones in order, then ones only named by a port) with its ports. */
    public TargetPortGroups portGroups() {
        final Map<Integer, List<Integer>> members = new LinkedHashMap<>();
        final Map<Integer, AccessState> states = new LinkedHashMap<>();
        groups.forEach(g -> {
            states.put(g.id(), g.state());
            members.put(g.id(), new ArrayList<>());
        });
        members.computeIfAbsent(listenGroup, id -> new ArrayList<>()).add(TargetPortGroups.FIRST_PORT);
        ports.forEach(p -> members.computeIfAbsent(p.group(), id -> new ArrayList<>()).add(p.id()));
        final List<TargetPortGroups.Group> out = new ArrayList<>();
        members.forEach((id, portIds) -> out.add(new TargetPortGroups.Group(id, states.getOrDefault(id, DEFAULT_STATE), portIds)));
        return new TargetPortGroups(out);
    }

    /** Whether {@code other} has the same ports in the same groups, whatever the groups' states. */
    public boolean sameLayout(final PortsConfig other) {
        return listenGroup == other.listenGroup && ports.equals(other.ports)
                && groups.stream().map(Group::id).toList().equals(other.groups.stream().map(Group::id).toList());
    }
}

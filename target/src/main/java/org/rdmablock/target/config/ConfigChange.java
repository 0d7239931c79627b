package org.rdmablock.target.config;

import org.rdmablock.protocol.scsi.TargetPortGroups;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * What a config reread on SIGHUP changes against the running one. LUNs (added, removed, changed), timeouts and the
 * states of the target port groups can be applied while the daemon runs; listen, the ports and their groups, target,
 * channel, pipeline and metrics are fixed once it listens (sockets, identity, negotiated limits, queue sizes, the
 * metrics endpoint), so a change there refuses the whole reload until a restart.
 *
 * @param added             LUNs the reread config has and the running one lacks, by number
 * @param removed           LUNs the running config has and the reread one lacks, by number
 * @param changed           LUNs in both whose settings differ, by number
 * @param timeoutsChanged   whether [timeouts] differs
 * @param portStatesChanged whether the ports' layout is the same and only [[port_group]] states differ
 * @param restartNeeded     the sections that differ and cannot be applied without a restart: {@code listen},
 *                          {@code port} (ports added, removed or moved, [listen] group, the groups declared),
 *                          {@code target}, {@code channel}, {@code pipeline}, {@code metrics}; empty when the reload
 *                          can be applied
 * @param portStateChanges  the groups whose state changes, in the order of the groups; empty unless
 *                          {@code portStatesChanged}
 */
public record ConfigChange(List<LunConfig> added, List<LunConfig> removed, List<LunChange> changed,
                           boolean timeoutsChanged, boolean portStatesChanged, List<String> restartNeeded,
                           List<PortStateChange> portStateChanges) {
    public ConfigChange {
        added = List.copyOf(added);
        removed = List.copyOf(removed);
        changed = List.copyOf(changed);
        restartNeeded = List.copyOf(restartNeeded);
        portStateChanges = List.copyOf(portStateChanges);
    }

    /** Compares the running config with the reread one. */
    public static ConfigChange between(TargetConfig running, TargetConfig reread) {
        Map<Integer, LunConfig> before = byNumber(running.luns());
        Map<Integer, LunConfig> after = byNumber(reread.luns());
        List<LunConfig> added = new ArrayList<>();
        List<LunChange> changed = new ArrayList<>();
        after.forEach((number, lun) -> {
            LunConfig old = before.get(number);
            if (old == null) {
                added.add(lun);
            } else if (!new LunChange(old, lun).changedKeys().isEmpty()) {
                changed.add(new LunChange(old, lun));
            }
        });
        List<LunConfig> removed = before.values().stream().filter(lun -> !after.containsKey(lun.number())).toList();

        List<String> restartNeeded = new ArrayList<>();
        restartUnless(running.listen().equals(reread.listen()), "listen", restartNeeded);
        boolean sameLayout = running.ports().sameLayout(reread.ports());
        restartUnless(sameLayout, "port", restartNeeded);
        restartUnless(running.identity().equals(reread.identity()), "target", restartNeeded);
        restartUnless(running.channel().equals(reread.channel()), "channel", restartNeeded);
        restartUnless(running.pipeline().equals(reread.pipeline()), "pipeline", restartNeeded);
        restartUnless(running.metrics().equals(reread.metrics()), "metrics", restartNeeded);
        restartUnless(running.admin().equals(reread.admin()), "admin", restartNeeded);
        restartUnless(running.nvme().equals(reread.nvme()), "nvme", restartNeeded);
        boolean portStatesChanged = sameLayout && !running.ports().equals(reread.ports());
        return new ConfigChange(added, removed, changed, !running.timeouts().equals(reread.timeouts()),
                portStatesChanged, restartNeeded,
                portStatesChanged ? PortStateChange.between(running.ports(), reread.ports()) : List.of());
    }

    private static void restartUnless(boolean same, String section, List<String> restartNeeded) {
        if (!same) {
            restartNeeded.add(section);
        }
    }

    private static Map<Integer, LunConfig> byNumber(List<LunConfig> luns) {
        // TargetConfig keeps LUNs sorted by number, so the maps (and the lists made from them) are in LUN order
        return luns.stream().collect(Collectors.toMap(LunConfig::number, Function.identity(),
                (a, b) -> {
                    throw new IllegalArgumentException("LUN " + a.number() + " twice");
                }, LinkedHashMap::new));
    }

    /** Whether the reread config is the running one (nothing to apply). */
    public boolean isEmpty() {
        return added.isEmpty() && removed.isEmpty() && changed.isEmpty() && !timeoutsChanged && !portStatesChanged
                && restartNeeded.isEmpty();
    }

    /** Whether the reload must be refused: a section that only a restart applies has changed. */
    public boolean needsRestart() {
        return !restartNeeded.isEmpty();
    }

    /** The changed LUNs whose allowed initiators differ (with or without other changes). */
    public List<LunChange> accessChanged() {
        return changed.stream().filter(c -> c.changedKeys().contains("allowed_initiators")).toList();
    }

    /**
     * Why the reload is refused, for the log, e.g. "[listen], [channel] changed: a restart is needed to apply
     * them (a reload applies only [[lun]], [timeouts] and [[port_group]] states); the running config stays". Only when
     * {@link #needsRestart()}.
     */
    public String restartMessage() {
        if (!needsRestart()) {
            throw new IllegalStateException("nothing needs a restart");
        }
        return restartNeeded.stream().map(s -> "[" + s + "]").collect(Collectors.joining(", "))
                + " changed: a restart is needed to apply " + (restartNeeded.size() == 1 ? "it" : "them")
                + " (a reload applies only [[lun]], [timeouts] and [[port_group]] states); the running config stays";
    }

    /**
     * One line for the log: "LUN 2 added; LUN 0 removed; LUN 1 changed (size, read_only); timeouts changed; port group
     * 2: standby -> active/optimized".
     */
    public String summary() {
        List<String> parts = new ArrayList<>();
        added.forEach(lun -> parts.add("LUN " + lun.number() + " added"));
        removed.forEach(lun -> parts.add("LUN " + lun.number() + " removed"));
        changed.forEach(c -> parts.add("LUN " + c.number() + " changed (" + String.join(", ", c.changedKeys()) + ")"));
        if (timeoutsChanged) {
            parts.add("timeouts changed");
        }
        portStateChanges.forEach(p -> parts.add(p.toString()));
        restartNeeded.forEach(s -> parts.add(s + " changed (needs a restart)"));
        return parts.isEmpty() ? "no change" : String.join("; ", parts);
    }

    /**
     * A target port group whose asymmetric access state a reload changes.
     *
     * @param group  its target port group identifier
     * @param before its running state
     * @param after  its state in the reread config
     */
    public record PortStateChange(int group, TargetPortGroups.AccessState before, TargetPortGroups.AccessState after) {
        public PortStateChange {
            Objects.requireNonNull(before);
            Objects.requireNonNull(after);
        }

        /** The groups declared in both whose state differs, in the order of {@code after}'s groups. */
        static List<PortStateChange> between(PortsConfig before, PortsConfig after) {
            Map<Integer, TargetPortGroups.AccessState> was = new HashMap<>();
            before.groups().forEach(g -> was.put(g.id(), g.state()));
            return after.groups().stream().filter(g -> was.containsKey(g.id()) && was.get(g.id()) != g.state())
                    .map(g -> new PortStateChange(g.id(), was.get(g.id()), g.state())).toList();
        }

        /** "port group 2: standby -> active/optimized". */
        @Override
        public String toString() {
            return "port group " + group + ": " + before.configName() + " -> " + after.configName();
        }
    }

    /**
     * A LUN present before and after, with its settings before and after.
     *
     * @param before the running LUN
     * @param after  the same LUN number in the reread config
     */
    public record LunChange(LunConfig before, LunConfig after) {
        public LunChange {
            Objects.requireNonNull(before);
            Objects.requireNonNull(after);
            if (before.number() != after.number()) {
                throw new IllegalArgumentException("LUN " + before.number() + " against LUN " + after.number());
            }
        }

        /** The LUN number. */
        public int number() {
            return after.number();
        }

        /**
         * The TOML keys whose values differ, in the order of the file. allowed_initiators compares as a set: the
         * order they are listed in changes nothing.
         */
        public List<String> changedKeys() {
            List<String> keys = new ArrayList<>();
            differs(LunConfig::backend, "backend", keys);
            differs(LunConfig::path, "path", keys);
            differs(LunConfig::sizeBytes, "size", keys);
            differs(LunConfig::blockSize, "block_size", keys);
            differs(LunConfig::readOnly, "read_only", keys);
            differs(LunConfig::writeCache, "write_cache", keys);
            differs(LunConfig::directIo, "direct_io", keys);
            differs(LunConfig::blockCacheBytes, "block_cache", keys);
            differs(lun -> new HashSet<>(lun.allowedInitiators()), "allowed_initiators", keys);
            // create and grow are not compared: they say how to open storage, and a running LUN's is open
            return keys;
        }

        /** Whether only the allowed initiators changed: the LUN stays open, only its access check changes. */
        public boolean accessOnly() {
            return changedKeys().equals(List.of("allowed_initiators"));
        }

        private void differs(Function<LunConfig, Object> field, String key, List<String> keys) {
            if (!Objects.equals(field.apply(before), field.apply(after))) {
                keys.add(key);
            }
        }
    }
}

package org.rdmablock.target.admin;

import com.fasterxml.jackson.databind.JsonNode;
import org.rdmablock.target.CommandLines;
import org.rdmablock.target.LunInventory;
import org.rdmablock.target.RunningConfiguration;
import org.rdmablock.target.config.InitiatorPortId;
import org.rdmablock.target.config.LunConfig;
import org.rdmablock.target.config.TargetConfig;
import org.rdmablock.target.metrics.IoSnapshot;
import org.rdmablock.target.metrics.SessionStats;
import org.rdmablock.target.metrics.TargetStatistics;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;

/**
 * What the management socket answers, by method name: {@code status}, {@code luns} and {@code sessions}, each a
 * snapshot read beside the data path (the statistics' own snapshots, the inventory under its lock); {@code reload},
 * the SIGHUP reload; {@code logout}, an initiator port's channels logged out; {@code ports}, {@code port.down} and
 * {@code port.up}, the SRP target ports listed, taken down (a path pulled) and brought up; {@code lun.add}, {@code lun.remove},
 * {@code lun.resize}, {@code lun.set} and {@code apply}, changes of the running configuration made as a reload makes
 * them ({@link RunningConfiguration}); {@code save}, the running configuration written to its file. Results are plain
 * records, written as JSON by the endpoint. Runs on the endpoint's client threads.
 */
public final class AdminMethods {
    private final Map<String, Function<JsonNode, Object>> methods = new LinkedHashMap<>();

    /** A method name the endpoint does not serve. */
    static final class UnknownMethodException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        UnknownMethodException(final String message) {
            super(message, null, false, false);
        }
    }

    /** The daemon's answers. */
    public record Status(String version, String config, String provider, String address, int port, String targetPortId,
                         String started, long uptimeSeconds, int luns, int sessions, int channels, long loginsAccepted,
                         long loginsRejected) {
    }

    /** One LUN: its configuration and its I/O so far. */
    public record Lun(int number, String backend, String path, long sizeBytes, int blockSize, boolean readOnly,
                      String writeCache, List<String> allowedInitiators, long readCommands, long writeCommands,
                      long readBytes, long writeBytes, long errors, long inFlight, String reservation) {
    }

    /**
     * One session (I_T nexus): an initiator port's channels and its I/O so far; an NVMe host's session is keyed by its
     * host identifier and named by its host NQN ({@code name}, "" for SRP).
     */
    public record Session(String initiator, String address, int channels, int creditsPerChannel, long inFlight,
                          String since, long readCommands, long writeCommands, long readBytes, long writeBytes,
                          long errors, long creditsExhausted, long answeredBusy, String name) {
    }

    /**
     * What a change did ({@code reload}, {@code apply}, the {@code lun.*} verbs): whether it changed anything, what (or
     * why not) as the daemon's log says, and a line per LUN it changed, or with {@code dry_run} would change.
     */
    public record Applied(boolean applied, boolean dryRun, String summary, List<String> changes) {
        static Applied of(final RunningConfiguration.Outcome outcome, final boolean dryRun) {
            return new Applied(outcome.applied(), dryRun, outcome.summary(), outcome.changes());
        }
    }

    /** What {@code save} wrote: the config file, and where the previous one is kept. */
    public record Saved(String file, String previous) {
    }

    /** What {@code logout} did: the initiator port, and how many of its channels were asked to log out. */
    public record LoggedOut(String initiator, int channels) {
    }

    /** One SRP target port: where it listens, its target port group and that group's state, its channels. */
    public record Port(int id, String address, int port, int group, String state, boolean listening, int channels) {
    }

    /** What {@code port.down} and {@code port.up} did: the port, and how many channels a down disconnected. */
    public record PortChanged(int port, boolean listening, int disconnected) {
    }

    /** The target's ports as management sees and changes them (the SRP target's own). */
    public interface PortControl {
        List<Port> ports();

        /** Takes port {@code id} down; returns the channels disconnected (IllegalArgumentException: no such port, down). */
        int down(int id);

        /** Brings port {@code id} up (IllegalArgumentException: no such port, up already). */
        void up(int id);
    }

    /** Where the daemon's facts come from, its configuration's changes, and its logout of an initiator's channels. */
    public record Sources(TargetConfig config, Supplier<String> provider, Supplier<java.net.InetSocketAddress> address,
                         Supplier<String> targetPortId, LunInventory inventory, TargetStatistics statistics,
                         Instant started, RunningConfiguration running, ToIntFunction<InitiatorPortId> logOut,
                         PortControl ports) {
    }

    /** Methods given by name, in order (the endpoint's own tests serve a few of their own). */
    static AdminMethods of(final Map<String, Function<JsonNode, Object>> byName) {
        final AdminMethods m = new AdminMethods();
        m.methods.putAll(byName);
        return m;
    }

    /** The daemon's methods over {@code sources}. */
    public static AdminMethods of(final Sources sources) {
        final AdminMethods m = new AdminMethods();
        final RunningConfiguration running = sources.running();
        m.methods.put("status", params -> status(sources));
        m.methods.put("luns", params -> luns(sources));
        m.methods.put("sessions", params -> sessions(sources));
        m.methods.put("reload", params -> Applied.of(running.reload(), false));
        m.methods.put("logout", params -> logout(sources, params));
        m.methods.put("ports", params -> sources.ports().ports());
        m.methods.put("port.down", params -> {
            final int id = portOf(params, "port.down");
            return new PortChanged(id, false, sources.ports().down(id));
        });
        m.methods.put("port.up", params -> {
            final int id = portOf(params, "port.up");
            sources.ports().up(id);
            return new PortChanged(id, true, 0);
        });
        m.methods.put("lun.add", params -> change(running, params, "lun add", c -> LunVerbs.add(c, params,
                running.baseDirectory())));
        m.methods.put("lun.remove", params -> change(running, params, "lun remove " + LunVerbs.number(params),
                c -> LunVerbs.remove(c, params)));
        m.methods.put("lun.resize", params -> change(running, params, "lun resize " + LunVerbs.number(params),
                c -> LunVerbs.resize(c, params)));
        m.methods.put("lun.set", params -> change(running, params, "lun set " + LunVerbs.number(params),
                c -> LunVerbs.set(c, params)));
        m.methods.put("apply", params -> {
            final TargetConfig desired = LunVerbs.desired(params, running.baseDirectory());
            return change(running, params, "apply of " + params.path("name").asText("a configuration"), c -> desired);
        });
        m.methods.put("save", params -> save(running));
        return m;
    }

    /** A change of the running configuration, with the {@code force} and {@code dry_run} every changing verb takes. */
    private static Applied change(final RunningConfiguration running, final JsonNode params, final String origin,
                                  final java.util.function.UnaryOperator<TargetConfig> change) {
        final boolean dryRun = LunVerbs.flag(params, "dry_run");
        final RunningConfiguration.Outcome outcome = running.apply(change, LunVerbs.flag(params, "force"), dryRun, origin);
        if (outcome.refused()) {
            throw new IllegalArgumentException(outcome.summary()); // an error answer: the verb did not do what it was asked
        }
        return Applied.of(outcome, dryRun);
    }

    private static Saved save(final RunningConfiguration running) {
        try {
            final java.nio.file.Path file = running.save();
            return new Saved(file.toString(), file + ".bak");
        } catch (IllegalStateException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException("cannot save the configuration: " + e.getMessage()
                    + " (the previous file is untouched)", e);
        }
    }

    /** The method names, in the order they were added. */
    public List<String> names() {
        return List.copyOf(methods.keySet());
    }

    /**
     * Runs {@code method}.
     *
     * @throws UnknownMethodException no such method
     * @throws IllegalArgumentException its parameters are wrong (the message says how)
     */
    Object call(final String method, final JsonNode params) {
        final Function<JsonNode, Object> f = methods.get(method);
        if (f == null) {
            throw new UnknownMethodException("no method " + method + "; the methods are " + String.join(", ", names()));
        }
        return f.apply(params);
    }

    /** {@code {"port": N}}: a relative target port. */
    private static int portOf(final JsonNode params, final String method) {
        final JsonNode given = params.path("port");
        if (!given.canConvertToInt() || !given.isIntegralNumber()) {
            throw new IllegalArgumentException(method + " takes {\"port\": N}, a relative target port (rdmablock admin ports)");
        }
        return given.asInt();
    }

    /** {@code {"initiator": "32 hex digits"}}: every channel of that initiator port logs out. */
    private static LoggedOut logout(final Sources s, final JsonNode params) {
        final JsonNode given = params.path("initiator");
        if (!given.isTextual()) {
            throw new IllegalArgumentException("logout takes {\"initiator\": \"<32 hex digits>\"}, the session's port id");
        }
        final InitiatorPortId initiator = InitiatorPortId.parse(given.asText());
        final int channels = s.logOut().applyAsInt(initiator);
        if (channels == 0) {
            throw new IllegalArgumentException("initiator " + initiator + " has no channel logged in");
        }
        return new LoggedOut(initiator.toString(), channels);
    }

    private static Status status(final Sources s) {
        final java.net.InetSocketAddress address = s.address().get();
        final TargetStatistics stats = s.statistics();
        return new Status(CommandLines.Version.version(), s.config().source(), s.provider().get(),
                address.getAddress().getHostAddress(), address.getPort(), s.targetPortId().get(), s.started().toString(),
                Duration.between(s.started(), Instant.now()).toSeconds(), s.inventory().numbers().size(),
                stats.sessions().size(), stats.channels(), stats.loginsAccepted(), stats.loginsRejected());
    }

    private static List<Lun> luns(final Sources s) {
        return s.inventory().configs().stream().map(c -> {
            final org.rdmablock.target.metrics.IoStats stats = s.statistics().lun(c.number());
            final IoSnapshot io = stats != null ? stats.snapshot() : new org.rdmablock.target.metrics.IoStats().snapshot();
            return new Lun(c.number(), c.backend().name().toLowerCase(Locale.ROOT),
                    c.path() == null ? null : c.path().toString(), c.sizeBytes(), c.blockSize(), c.readOnly(),
                    c.writeCache() == LunConfig.WriteCachePolicy.WRITE_BACK ? "write-back" : "write-through",
                    c.allowedInitiators().stream().map(Object::toString).toList(), io.readCommands(), io.writeCommands(),
                    io.readBytes(), io.writeBytes(), io.errors(), io.queueDepth(), reservationOf(s, c.number()));
        }).toList();
    }

    /** The LUN's persistent (or SPC-2) reservation and registrations in a few words; "" when it has none. */
    private static String reservationOf(final Sources s, final int number) {
        final org.rdmablock.protocol.scsi.LogicalUnit unit = s.inventory().unit(number);
        return unit == null ? "" : unit.reservations().describe();
    }

    private static List<Session> sessions(final Sources s) {
        final int credits = s.config().channel().credits();
        return s.statistics().sessions().stream().map(session -> session(session, credits)).toList();
    }

    private static Session session(final SessionStats session, final int credits) {
        final IoSnapshot io = session.io.snapshot();
        return new Session(session.initiator.toString(), session.address(), session.channels(), credits, io.queueDepth(),
                session.since.toString(), io.readCommands(), io.writeCommands(), io.readBytes(), io.writeBytes(), io.errors(),
                session.creditsExhaustedCount(), session.busyCount(), session.name());
    }
}

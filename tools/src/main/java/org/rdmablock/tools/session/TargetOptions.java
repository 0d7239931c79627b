package org.rdmablock.tools.session;

import org.rdmablock.initiator.InitiatorConfig;
import org.rdmablock.target.config.Quantities;
import picocli.CommandLine.Option;

import java.time.Duration;

/**
 * The options that name a target and this initiator, shared by {@code rdmablock bench}, {@code mount} and
 * {@code powercut} (a picocli mixin): {@code --target}, {@code --connect-timeout}, {@code --provider},
 * {@code --id-ext}, {@code --ioc-guid}, {@code --initiator-id}, and for NVMe over Fabrics {@code --nvme} and
 * {@code --host-nqn}.
 */
public final class TargetOptions {
    @Option(names = "--target", paramLabel = "HOST:PORT", defaultValue = "127.0.0.1:5555",
            description = "the target's address (default: ${DEFAULT-VALUE})")
    String target;

    @Option(names = "--connect-timeout", paramLabel = "DURATION", defaultValue = "10s", description = "how long connecting "
            + "and logging in may take (default: ${DEFAULT-VALUE})")
    String connectTimeout;

    @Option(names = "--provider", defaultValue = "soft", description = "verbs provider: soft, native or auto (default: ${DEFAULT-VALUE})")
    String provider;

    @Option(names = "--id-ext", paramLabel = "HEX", description = "the target port id's id_ext (default: derived from the "
            + "address and port, as the target derives it)")
    String idExt;

    @Option(names = "--ioc-guid", paramLabel = "HEX", description = "the target port id's ioc_guid (default: the id_ext)")
    String iocGuid;

    @Option(names = "--initiator-id", paramLabel = "HEX", description = "this initiator's port id, 32 hex digits (default: "
            + "derived from this host's name and this process's id, so each run is an initiator of its own); give one "
            + "where the target's allowed_initiators names it")
    String initiatorId;

    @Option(names = "--nvme", paramLabel = "NQN", description = "speak NVMe over Fabrics to this subsystem (our target's "
            + "[nvme] subsystem, or Linux nvmet's) instead of SRP: --target then names its NVMe port (usually 4420), and "
            + "LUNs are namespace ids (from 1)")
    String nvmeSubsystem;

    @Option(names = "--host-nqn", paramLabel = "NQN", description = "with --nvme: this host's NQN (default: one derived "
            + "from this host's name and this process's id); give one where the subsystem's allowed_hosts names it")
    String hostNqn;

    /** The verbs provider's name. */
    public String provider() {
        return provider;
    }

    /** The NVMe subsystem {@code --nvme} names, or null: SRP. */
    public String nvmeSubsystem() {
        return nvmeSubsystem;
    }

    /** The LUN a tool uses when none is named: LUN 0 over SRP, namespace 1 over NVMe. */
    public int defaultLun() {
        return nvmeSubsystem != null ? 1 : 0;
    }

    /** {@code --target} as given. */
    public String target() {
        return target;
    }

    /**
     * The session's config: for {@code embedded} when not null (its address and id), else for {@code --target} with the
     * ids given or derived; with {@code --initiator-id} when given.
     *
     * @throws IllegalArgumentException an option does not parse (the message names it)
     */
    public InitiatorConfig config(final EmbeddedTarget embedded) {
        if (hostNqn != null && nvmeSubsystem == null) {
            throw new IllegalArgumentException("--host-nqn names an NVMe host: it goes with --nvme");
        }
        final InitiatorConfig config = embedded != null
                ? InitiatorConfig.of(provider, EmbeddedTarget.ADDRESS,
                        (nvmeSubsystem != null ? embedded.nvmeAddress() : embedded.address()).getPort())
                        .withTargetPortId(embedded.idExt(), embedded.idExt())
                : targetConfig(target);
        final Duration timeout = Quantities.parseDuration(connectTimeout);
        if (timeout.isZero() || timeout.isNegative()) {
            throw new IllegalArgumentException("--connect-timeout must be positive, not " + connectTimeout);
        }
        final InitiatorConfig session = withInitiatorId(config).withConnectTimeout(timeout);
        if (nvmeSubsystem == null) {
            return session;
        }
        return hostNqn != null ? session.withNvme(nvmeSubsystem, hostNqn) : session.withNvme(nvmeSubsystem);
    }

    /** The session's config for {@code host:port} ({@code [v6]:port} too), with the ids given or derived. */
    private InitiatorConfig targetConfig(final String address) {
        final int colon = address.lastIndexOf(':');
        if (colon <= 0 || colon == address.length() - 1) {
            throw new IllegalArgumentException("--target must be HOST:PORT, not " + address);
        }
        String host = address.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        final int port;
        try {
            port = Integer.parseInt(address.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--target's port must be a number: " + address);
        }
        InitiatorConfig config = InitiatorConfig.of(provider, host, port);
        if (idExt != null || iocGuid != null) {
            final long ext = idExt != null ? hex64(idExt, "--id-ext") : config.idExt();
            final long guid = iocGuid != null ? hex64(iocGuid, "--ioc-guid") : ext;
            config = config.withTargetPortId(ext, guid);
        }
        return config;
    }

    private InitiatorConfig withInitiatorId(final InitiatorConfig config) {
        if (initiatorId == null) {
            return config;
        }
        final String digits = stripHexPrefix(initiatorId);
        if (digits.isEmpty() || digits.length() > 32) {
            throw new IllegalArgumentException("--initiator-id must be up to 32 hex digits, not " + initiatorId);
        }
        final String padded = "0".repeat(32 - digits.length()) + digits;
        return config.withInitiatorPortId(hex64(padded.substring(0, 16), "--initiator-id"), hex64(padded.substring(16), "--initiator-id"));
    }

    private static long hex64(final String text, final String option) {
        final String digits = stripHexPrefix(text);
        if (digits.isEmpty() || digits.length() > 16) {
            throw new IllegalArgumentException(option + " must be up to 16 hex digits, not " + text);
        }
        try {
            return Long.parseUnsignedLong(digits, 16);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " must be hex digits, not " + text);
        }
    }

    private static String stripHexPrefix(final String text) {
        final String t = text.strip();
        return t.startsWith("0x") || t.startsWith("0X") ? t.substring(2) : t;
    }
}

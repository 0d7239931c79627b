package org.rdmablock.target.config;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * The whole configuration of one target daemon, as read from its TOML file (or the embedded default). Immutable
 * and validated: every value in it is one the daemon can run with.
 *
 * @param source   where it was read from (a file, or {@code <embedded default>}); errors and logs name it
 * @param listen   where the daemon listens for initiators
 * @param identity what initiators name the target by
 * @param channel  per-channel (per RDMA connection) limits negotiated at login
 * @param pipeline the command pipeline's sizes and modes
 * @param timeouts when idle channels and stuck commands are given up
 * @param luns     the logical units, sorted by number, numbers unique
 * @param metrics  the Prometheus endpoint and the summary line
 * @param admin    the management socket
 * @param nvme     the NVMe over Fabrics front end ({@link NvmeConfig#NONE}: SRP only)
 * @param ports    the SRP ports beyond [listen]'s and their target port groups ({@link PortsConfig#NONE}: [listen] alone)
 */
public record TargetConfig(String source, ListenConfig listen, IdentityConfig identity, ChannelConfig channel,
                           PipelineConfig pipeline, TimeoutConfig timeouts, List<LunConfig> luns, MetricsConfig metrics,
                           AdminConfig admin, NvmeConfig nvme, PortsConfig ports) {
    public TargetConfig {
        Objects.requireNonNull(source);
        Objects.requireNonNull(listen);
        Objects.requireNonNull(identity);
        Objects.requireNonNull(channel);
        Objects.requireNonNull(pipeline);
        Objects.requireNonNull(timeouts);
        Objects.requireNonNull(metrics);
        Objects.requireNonNull(admin);
        Objects.requireNonNull(nvme);
        Objects.requireNonNull(ports);
        luns = List.copyOf(luns);
    }

    /** A configuration with [listen]'s port alone. */
    public TargetConfig(String source, ListenConfig listen, IdentityConfig identity, ChannelConfig channel,
                        PipelineConfig pipeline, TimeoutConfig timeouts, List<LunConfig> luns, MetricsConfig metrics,
                        AdminConfig admin, NvmeConfig nvme) {
        this(source, listen, identity, channel, pipeline, timeouts, luns, metrics, admin, nvme, PortsConfig.NONE);
    }

    /** A configuration without the NVMe front end. */
    public TargetConfig(String source, ListenConfig listen, IdentityConfig identity, ChannelConfig channel,
                        PipelineConfig pipeline, TimeoutConfig timeouts, List<LunConfig> luns, MetricsConfig metrics,
                        AdminConfig admin) {
        this(source, listen, identity, channel, pipeline, timeouts, luns, metrics, admin, NvmeConfig.NONE);
    }

    /** A configuration without a management socket. */
    public TargetConfig(String source, ListenConfig listen, IdentityConfig identity, ChannelConfig channel,
                        PipelineConfig pipeline, TimeoutConfig timeouts, List<LunConfig> luns, MetricsConfig metrics) {
        this(source, listen, identity, channel, pipeline, timeouts, luns, metrics, AdminConfig.NONE);
    }

    /** A configuration with the default [metrics]: no endpoint (embedded targets, tests). */
    public TargetConfig(String source, ListenConfig listen, IdentityConfig identity, ChannelConfig channel,
                        PipelineConfig pipeline, TimeoutConfig timeouts, List<LunConfig> luns) {
        this(source, listen, identity, channel, pipeline, timeouts, luns, MetricsConfig.DEFAULT);
    }

    /** This configuration with its pipeline {@link PipelineConfig#resolve resolved} for its LUNs: what a target runs. */
    public TargetConfig withPipelineResolved() {
        return new TargetConfig(source, listen, identity, channel, pipeline.resolve(luns), timeouts, luns, metrics, admin, nvme,
                ports);
    }

    /** This configuration with other LUNs (sorted by number here, as the reader sorts them). */
    public TargetConfig withLuns(List<LunConfig> replaced) {
        return new TargetConfig(source, listen, identity, channel, pipeline, timeouts,
                replaced.stream().sorted(java.util.Comparator.comparingInt(LunConfig::number)).toList(), metrics, admin, nvme,
                ports);
    }

    /** This configuration with other ports and port groups. */
    public TargetConfig withPorts(PortsConfig replaced) {
        return new TargetConfig(source, listen, identity, channel, pipeline, timeouts, luns, metrics, admin, nvme, replaced);
    }

    /** Directory that relative LUN paths are resolved against: the config file's directory, or the working directory. */
    public static Path baseDirectory(Path configFile) {
        Path parent = configFile == null ? null : configFile.toAbsolutePath().getParent();
        return parent != null ? parent : Path.of("").toAbsolutePath();
    }
}

package org.rdmablock.target.config;

import java.time.Duration;

/**
 * The daemon's metrics: where it serves them in the Prometheus text format, and how often it logs a one-line summary.
 *
 * @param host            the address the HTTP endpoint binds; null when there is no endpoint (the default)
 * @param port            the endpoint's port; 0 takes any free one (the banner prints which)
 * @param summaryInterval how often the summary line is logged; zero: never
 */
public record MetricsConfig(String host, int port, Duration summaryInterval) {
    /**
     * Default summary interval: one line a minute, often enough to see a trend in the log, rare enough not to drown
     * the logins and errors around it.
     */
    public static final Duration DEFAULT_SUMMARY_INTERVAL = Duration.ofSeconds(60);
    /** The shortest summary interval but zero: a line more often than this is noise. */
    public static final Duration MIN_SUMMARY_INTERVAL = Duration.ofSeconds(1);
    /** The defaults: no endpoint (metrics are served only where the config says so), a summary line a minute. */
    public static final MetricsConfig DEFAULT = new MetricsConfig(null, 0, DEFAULT_SUMMARY_INTERVAL);

    /** Whether the Prometheus endpoint is served. */
    public boolean served() {
        return host != null;
    }
}

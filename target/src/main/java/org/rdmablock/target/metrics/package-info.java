/**
 * What the target counts and how it is read: the pipeline's intake stage records each command into its LUN's and its
 * session's {@link org.rdmablock.target.metrics.IoStats} (single-writer counters and HdrHistogram recorders: no lock,
 * no allocation per command); {@link org.rdmablock.target.metrics.TargetStatistics} holds them and the target-wide
 * counts; {@link org.rdmablock.target.metrics.PrometheusEndpoint} builds Prometheus snapshots from them at scrape time,
 * {@link org.rdmablock.target.metrics.SummaryLine} the periodic log line.
 */
package org.rdmablock.target.metrics;

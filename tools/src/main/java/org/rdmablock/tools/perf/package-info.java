/**
 * Perf tools mirroring perftest ({@code ib_write_bw}, {@code ib_read_bw}, {@code ib_send_lat},
 * {@code ib_write_lat}) on the verbs API, raw TCP baselines measured the same way, and the comparison that
 * reports the soft provider's cost as ratios against those baselines.
 */
package org.rdmablock.tools.perf;

/**
 * {@code rdmablock soak} ({@link org.rdmablock.tools.soak.SoakCommand}): verified I/O through the initiator library for
 * a given time against a target daemon that is killed or stopped and started again every few minutes, with the
 * daemon's memory, threads and file descriptors sampled over time and drawn as a chart (issue 41).
 */
package org.rdmablock.tools.soak;

/**
 * {@code rdmablock bench}: a fio-like block benchmark against an SRP or NVMe target through the initiator library
 * ({@link org.rdmablock.tools.bench.BenchCommand}), with a verify mode that writes a pattern encoding LBA and
 * generation and checks every block it reads ({@link org.rdmablock.tools.bench.VerifyPattern}), HdrHistogram latency
 * percentiles and a JSON report; {@code tools/bench/compare-nbdkit.sh} sets it against fio on nbdkit.
 */
package org.rdmablock.tools.bench;

/**
 * The fio table's chart ({@link org.rdmablock.tools.fio.FioChart}): {@code tools/fio/compare.sh} runs the job files in
 * {@code tools/fio/} against our FUSE volume, nbdkit + nbdfuse and the local file, and draws the medians with it.
 */
package org.rdmablock.tools.fio;

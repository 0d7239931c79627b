#!/bin/bash
# The power cut's first boot (deploy/qemu/powercut-loop.sh; run.sh --disk IMAGE --cut-after powercut/writing SECONDS):
# the virtio disk formatted ext4 and mounted; our daemon (soft provider on loopback) serves four LUNs from it: file
# and RocksDB, each write-through and write-back; `rdmablock powercut write` writes all four, journalling what it
# sends and what is acknowledged (and, on the write-back LUNs, its FUA writes and SYNCHRONIZE CACHEs) to $OUT/powercut,
# on the host. Once every LUN has an acknowledged write it makes $OUT/powercut/writing, and the host kills QEMU
# some seconds later. The second boot (powercut-verify.sh) reads it all back.
. $REPO/deploy/qemu/plans/powercut-lib.sh
step powercut_disk powercut_mount format
step powercut_daemon_up powercut_daemon_up
step powercut_write powercut_write
# the power goes here; a plan that gets past this bound was not cut
for _ in $(seq 1 600); do sleep 1; done
step powercut_not_cut false

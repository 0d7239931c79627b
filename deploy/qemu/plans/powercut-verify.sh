#!/bin/bash
# The power cut's second boot (deploy/qemu/powercut-loop.sh): the same disk mounted again (ext4 replays its journal),
# the daemon started on the config the first boot wrote to it (RocksDB replays its log), and `rdmablock powercut
# verify` against the journals the first boot left on the host ($POWERCUT_JOURNAL): every block read back, whole, its
# own, and no older than what the rules make durable. Its report: $OUT/powercut-verify.txt.
. $REPO/deploy/qemu/plans/powercut-lib.sh
step powercut_disk powercut_mount
step powercut_daemon_up powercut_daemon_start
step powercut_verify powercut_verify
step powercut_daemon_down daemon_stop $PC_MNT

#!/bin/bash
# Sourced by ib-srp.sh while our daemon is up with ib_srp attached: Linux's ib_srp against LIO's ib_srpt (64 MiB
# ramdisk) and against our daemon (its 64 MiB memory LUN 4 and file LUN 0, 512-byte blocks like LIO's ramdisk) in the
# same boot, the jobs of compare-lib.sh on each ($OUT/srp-compare.md; fio's JSON in $OUT/srp-compare/round-N.json).
. $REPO/deploy/qemu/plans/lio-lib.sh
. $REPO/deploy/qemu/plans/compare-lib.sh

# the three disks, name:lun:vendor, in round 1's order; LIO's is the one entry whose vendor is LIO-ORG
COMPARE_LIO=lio:0:LIO-ORG
COMPARE_DISKS=($COMPARE_LIO memory:4:RDMABLK file:0:RDMABLK)

# the block device of a COMPARE_DISKS entry, or a failure naming the entry
compare_dev() {
  local name lun vendor dev
  IFS=: read -r name lun vendor <<< "$1"
  dev=$(ibsrp_dev $lun $vendor)
  [ -b "$dev" ] || { echo "no disk for $1" >&2; return 1; }
  echo $dev
}

# LIO up, and ib_srp logged in to it too
compare_lio_up() (
  set -eo pipefail
  lio_up
  local ioc i disk list=""
  ioc=$(cat /sys/module/ib_srpt/parameters/srpt_service_guid)
  ibsrp_add_target "id_ext=$ioc,ioc_guid=$ioc,dest=192.0.2.15:$LIO_PORT"
  for i in $(seq 1 60); do compare_dev $COMPARE_LIO >/dev/null 2>&1 && break; sleep 0.5; done
  compare_dev $COMPARE_LIO >/dev/null || { echo "LIO's disk did not appear"; exit 1; }
  for disk in "${COMPARE_DISKS[@]}"; do list+=" ${disk%%:*} $(compare_dev $disk)"; done
  echo "disks:$list"
)

# ib_srp logged out of LIO (its SCSI host's remote port deleted), LIO down
compare_lio_down() (
  set -eo pipefail
  local dev host
  dev=$(compare_dev $COMPARE_LIO)
  host=$(basename "$(readlink -f /sys/block/${dev#/dev/}/device)"); host=${host%%:*}
  echo 1 > /sys/class/srp_remote_ports/port-$host:1/delete
  lio_down
)

step srp_compare_lio_up compare_lio_up
step srp_compare compare_run srp-compare
step srp_compare_lio_down compare_lio_down

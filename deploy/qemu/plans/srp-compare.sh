#!/bin/bash
# Sourced by ib-srp.sh while our daemon is up with ib_srp attached: Linux's ib_srp against LIO's ib_srpt (64 MiB
# ramdisk) and against our daemon (its 64 MiB memory LUN 4 and file LUN 0, 512-byte blocks like LIO's ramdisk) in the
# same boot, the same fio jobs on each: 1 MiB sequential write and read at iodepth 4, 4 KiB random write and read at
# iodepth 16 (libaio, direct), each for COMPARE_RUNTIME seconds after COMPARE_RAMP, in COMPARE_ROUNDS rounds that take
# the three disks in turn per job. srp-compare-table.py prints the medians and our ratio to LIO per row
# ($OUT/srp-compare.md; fio's JSON in $OUT/srp-compare/round-N.json). Under emulation the absolute figures mean little;
# the ratio shows what our Java path costs. A step fails when fio fails or a figure is missing, not when a ratio is
# low: the table is a measurement.
COMPARE_RUNTIME=${COMPARE_RUNTIME:-5}
COMPARE_RAMP=${COMPARE_RAMP:-1}
COMPARE_ROUNDS=${COMPARE_ROUNDS:-3}
# untimed 4 KiB random writes and reads on our two disks before round 1, each job this many seconds (0: none). Our
# daemon is a fresh JVM here (ib_srp's restart steps just killed and restarted it), and under emulation its JIT takes
# the first round: in two boots round 1 had our 4 KiB rows at 0.33 - 0.84 of LIO, rounds 2 and 3 at 0.57 - 1.35.
# LIO is kernel code with nothing to compile; a daemon that has been running has its hot paths compiled. 5 s per job
# was too short: its four jobs went 309, 542, 764, 970 IOPS (rounds: about 3 000), and round 1's random writes stayed
# at 0.31 - 0.33 of LIO while its random reads came up to 0.93 - 0.95.
COMPARE_WARMUP=${COMPARE_WARMUP:-15}
. $REPO/deploy/qemu/plans/lio-lib.sh

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

# fio's [global] section: $1 seconds per job, then any further options, one per argument
compare_global() {
  local runtime=$1; shift
  printf '[global]\nioengine=libaio\ndirect=1\nsize=64m\ntime_based\nruntime=%d\nrandrepeat=0\n' $runtime
  [ $# -eq 0 ] || printf '%s\n' "$@"
}

# one fio run per round (fio's start-up takes seconds under emulation): every job on each of the three disks in turn,
# each job section stonewalled so that they run one after another; the disks' order rotates every round (LIO, memory,
# file; then memory, file, LIO; ...), so that no side always runs first after a change of workload
compare_jobs() {
  local round=$1 job rw bs depth disk dev i
  compare_global $COMPARE_RUNTIME ramp_time=$COMPARE_RAMP
  for job in write:1m:4 read:1m:4 randwrite:4k:16 randread:4k:16; do
    IFS=: read -r rw bs depth <<< "$job"
    for i in 0 1 2; do
      disk=${COMPARE_DISKS[$(( (i + round - 1) % 3 ))]}
      dev=$(compare_dev $disk) || return 1
      printf '[%s-%s-%s]\nstonewall\nfilename=%s\nrw=%s\nbs=%s\niodepth=%d\n' ${disk%%:*} $rw $bs $dev $rw $bs $depth
    done
  done
}

# the warm-up's jobs: 4 KiB random writes, then reads, on our disks (COMPARE_DISKS' RDMABLK entries), untimed
compare_warmup() {
  local rw disk dev
  compare_global $COMPARE_WARMUP bs=4k iodepth=16
  for rw in randwrite randread; do
    for disk in "${COMPARE_DISKS[@]}"; do
      [ "${disk##*:}" = RDMABLK ] || continue
      dev=$(compare_dev $disk) || return 1
      printf '[warmup-%s-%s]\nstonewall\nfilename=%s\nrw=%s\n' ${disk%%:*} $rw $dev $rw
    done
  done
}

compare_run() (
  set -eo pipefail
  local dir=$OUT/srp-compare round
  mkdir -p $dir
  if [ "$COMPARE_WARMUP" -gt 0 ]; then
    compare_warmup > $dir/warmup.fio
    fio --output=$dir/warmup.txt $dir/warmup.fio || { cat $dir/warmup.txt; exit 1; }
    echo "warm-up done"
  fi
  for round in $(seq 1 $COMPARE_ROUNDS); do
    compare_jobs $round > $dir/jobs-$round.fio
    [ $round -gt 1 ] || cat $dir/jobs-1.fio
    fio --output-format=json --output=$dir/round-$round.json $dir/jobs-$round.fio
    echo "round $round done"
  done
  python3 $REPO/deploy/qemu/plans/srp-compare-table.py $dir $COMPARE_ROUNDS | tee $OUT/srp-compare.md
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
step srp_compare compare_run
step srp_compare_lio_down compare_lio_down

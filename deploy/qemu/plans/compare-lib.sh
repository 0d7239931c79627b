#!/bin/bash
# Sourced by srp-compare.sh and nvme-rdma.sh: the same fio jobs on a reference disk (the kernel's own target) and on
# our disks, in the same boot: 1 MiB sequential write and read at iodepth 4, 4 KiB random write and read at iodepth 16
# (libaio, direct), each for COMPARE_RUNTIME seconds after COMPARE_RAMP, in COMPARE_ROUNDS rounds that take the disks
# in turn per job. The caller sets COMPARE_DISKS (name:..., the reference first) and defines compare_dev (the block
# device of an entry). compare-table.py prints the medians and our ratio to the reference per row; fio's JSON is in
# $OUT/<name>/round-N.json. Under emulation the absolute figures mean little; the ratio shows what our Java path costs.
# A step fails when fio fails or a figure is missing, not when a ratio is low: the table is a measurement.
COMPARE_RUNTIME=${COMPARE_RUNTIME:-5}
COMPARE_RAMP=${COMPARE_RAMP:-1}
COMPARE_ROUNDS=${COMPARE_ROUNDS:-3}   # check.sh sets 1: a figure and the machinery checked; the records take three
# untimed 4 KiB random writes and reads on our disks before round 1, each job this many seconds (0: none). Our
# daemon is a fresh JVM (ib_srp's restart steps just killed and restarted it), and under emulation its JIT takes
# the first round: in two boots round 1 had our 4 KiB rows at 0.33 - 0.84 of LIO, rounds 2 and 3 at 0.57 - 1.35.
# The kernel's target is kernel code with nothing to compile; a daemon that has been running has its hot paths
# compiled. 5 s per job was too short: its four jobs went 309, 542, 764, 970 IOPS (rounds: about 3 000), and round 1's
# random writes stayed at 0.31 - 0.33 of LIO while its random reads came up to 0.93 - 0.95.
COMPARE_WARMUP=${COMPARE_WARMUP:-15}

# fio's [global] section: $1 seconds per job, then any further options, one per argument
compare_global() {
  local runtime=$1; shift
  printf '[global]\nioengine=libaio\ndirect=1\nsize=64m\ntime_based\nruntime=%d\nrandrepeat=0\n' $runtime
  [ $# -eq 0 ] || printf '%s\n' "$@"
}

# one fio run per round (fio's start-up takes seconds under emulation): every job on each disk in turn, each job
# section stonewalled so that they run one after another; the disks' order rotates every round (reference, memory,
# file; then memory, file, reference; ...), so that no side always runs first after a change of workload
compare_jobs() {
  local round=$1 job rw bs depth disk dev i n=${#COMPARE_DISKS[@]}
  compare_global $COMPARE_RUNTIME ramp_time=$COMPARE_RAMP
  for job in write:1m:4 read:1m:4 randwrite:4k:16 randread:4k:16; do
    IFS=: read -r rw bs depth <<< "$job"
    for i in $(seq 0 $((n - 1))); do
      disk=${COMPARE_DISKS[$(( (i + round - 1) % n ))]}
      dev=$(compare_dev $disk) || return 1
      printf '[%s-%s-%s]\nstonewall\nfilename=%s\nrw=%s\nbs=%s\niodepth=%d\n' ${disk%%:*} $rw $bs $dev $rw $bs $depth
    done
  done
}

# the warm-up's jobs: 4 KiB random writes, then reads, on our disks (every COMPARE_DISKS entry but the first, the
# reference), untimed
compare_warmup() {
  local rw disk dev
  compare_global $COMPARE_WARMUP bs=4k iodepth=16
  for rw in randwrite randread; do
    for disk in "${COMPARE_DISKS[@]:1}"; do
      dev=$(compare_dev $disk) || return 1
      printf '[warmup-%s-%s]\nstonewall\nfilename=%s\nrw=%s\n' ${disk%%:*} $rw $dev $rw
    done
  done
}

# the warm-up, then COMPARE_ROUNDS rounds into $OUT/$1/, the table into $OUT/$1.md (further arguments: the table's
# reference and goals, as compare-table.py takes them)
compare_run() (
  set -eo pipefail
  local name=$1 dir=$OUT/$1 round
  shift
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
  python3 $REPO/deploy/qemu/plans/compare-table.py $dir $COMPARE_ROUNDS "$@" | tee $OUT/$name.md
)


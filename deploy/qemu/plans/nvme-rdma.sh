#!/bin/bash
# Linux's own NVMe over Fabrics host (nvme-rdma, driven by nvme-cli) against our target daemon's NVMe front end on the
# native provider over rxe0 (192.0.2.15:4420), SRP listening beside it: nvme discover lists the subsystem, nvme
# connect brings its namespaces up as /dev/nvmeXnY (a memory LUN with 512-byte blocks, a file and a RocksDB LUN with
# 4096-byte ones), id-ctrl and id-ns say what the config says, fio verifies 4 KiB random and 1 MiB sequential writes read back,
# a discarded range reads zeroes, nvme flush answers, nvme compare finds equal data and a byte off, a namespace resized through the management socket shows its new
# size without a rescan (the Asynchronous Event makes the host rescan), the data is still there after a disconnect and a
# connect again,
# and after the daemon is killed (SIGKILL) and started again under the connected host, which reconnects by itself;
# ib_srp logs in to the same daemon meanwhile, and fio verifies writes through SRP and NVMe at once (one pipeline).
# Then Linux's own nvmet-rdma (configfs, a 64 MiB brd ramdisk) beside it in the same boot: compare-lib.sh's fio jobs
# on both ($OUT/nvme-compare.md; goal: 0.8 of nvmet-rdma on the 4 KiB rows, 1.0 on the 1 MiB rows). Our initiator
# library speaks NVMe to both too (NvmeInteropTest: 64 MiB written and read back, verified). Runs while rxe
# is up; leaves the host disconnected, nvmet down and the daemon stopped. The daemon's log is $OUT/nvme-target.log,
# the kernel's nvme lines $OUT/nvme-dmesg.log.
NVME_DIR=/tmp/nvme-rdma
NVME_LOG=$OUT/nvme-target.log
NVME_NQN=nqn.2026-12.org.rdmablock:qemu
NVME_ADDR=192.0.2.15
NVME_PORT=4420
NVME_LUNS="0:memory:512 1:file:4096 2:rocksdb:4096"   # namespace n is LUN n-1
NVME_SIZE_MIB=64
NVMET_NQN=nqn.2026-12.org.rdmablock:nvmet
NVMET_PORT=4421
NVMET=/sys/kernel/config/nvmet

. $REPO/deploy/qemu/plans/daemon-lib.sh

nvme_config() {
  mkdir -p $NVME_DIR
  {
    printf '[listen]\nprovider = "native"\naddress = "%s"\nport = 5557\n' $NVME_ADDR
    printf '[pipeline]\ncompletions = "event"\nbackend_threads = 0\nblocking_threads = 0\n'
    printf '[nvme]\nsubsystem = "%s"\nport = %d\nserial = "RDMABLOCK-QEMU"\n' $NVME_NQN $NVME_PORT
    printf '[admin]\nsocket = "%s/admin.sock"\n' $NVME_DIR
    daemon_luns $NVME_DIR $NVME_SIZE_MIB $NVME_LUNS
  } > $NVME_DIR/target.toml
}

# the block device of namespace $1 of subsystem $2 (default: ours; empty if none): the multipath head under the
# subsystem, or (nvme_core.multipath=N) the controller's own
nvme_dev() {
  local s d
  for s in /sys/class/nvme-subsystem/nvme-subsys* /sys/class/nvme/nvme*; do
    [ "$(cat $s/subsysnqn 2>/dev/null)" = "${2:-$NVME_NQN}" ] || continue
    for d in $s/nvme*n$1; do
      [ -e "$d" ] && [ -b "/dev/$(basename $d)" ] && [[ $(basename $d) != *c*n* ]] && { echo /dev/$(basename $d); return 0; }
    done
  done
}

nvme_wait_namespaces() {
  local i l ok
  for i in $(seq 1 120); do
    ok=1
    for l in $NVME_LUNS; do [ -b "$(nvme_dev $((${l%%:*} + 1)))" ] || ok=0; done
    [ $ok = 1 ] && return 0
    sleep 0.5
  done
  echo "not every namespace appeared:"; ls /sys/block; nvme list; return 1
}

# reconnect after 1 s, for up to 2 minutes (a JVM's start under emulation takes half of that)
nvme_connect() {
  nvme connect -t rdma -a $NVME_ADDR -s $NVME_PORT -n $NVME_NQN --reconnect-delay=1 --ctrl-loss-tmo=120
  nvme_wait_namespaces
}

# starts the daemon (with the Java options in $NVME_JAVA_OPTS, for an A/B boot); waits for its $1-th ready line
# (default: the first)
nvme_start_target() {
  daemon_start $NVME_DIR $NVME_LOG "${1:-1}" "${NVME_JAVA_OPTS:-}"
}

nvme_up() (
  set -eo pipefail
  nvme_config
  : > $NVME_LOG
  nvme_start_target
  grep -q '^NVMe over Fabrics: subsystem' $NVME_LOG || { echo "no NVMe line in the banner"; tail -20 $NVME_LOG; exit 1; }
  modprobe nvme-rdma
  nvme discover -t rdma -a $NVME_ADDR -s $NVME_PORT | tee $NVME_DIR/discover
  grep -q "subnqn: *$NVME_NQN" $NVME_DIR/discover || { echo "discovery log without $NVME_NQN"; exit 1; }
  grep -q "trsvcid: *$NVME_PORT" $NVME_DIR/discover
  nvme_connect
  nvme list
  for l in $NVME_LUNS; do echo "LUN ${l%%:*} ($l): $(nvme_dev $((${l%%:*} + 1)))"; done
)

# id-ctrl: model, serial, subsystem NQN, the capsule sizes nvme-rdma needs; id-ns: capacity and the LBA format
nvme_identity() (
  set -eo pipefail
  local l n b bs dev
  nvme id-ctrl $(nvme_dev 1) | tee $NVME_DIR/id-ctrl
  grep -qE '^mn +: rdmablock' $NVME_DIR/id-ctrl
  grep -qE '^sn +: RDMABLOCK-QEMU' $NVME_DIR/id-ctrl
  grep -qE "^subnqn +: $NVME_NQN" $NVME_DIR/id-ctrl
  grep -qE '^ioccsz +: 260' $NVME_DIR/id-ctrl
  grep -qE '^mdts +: 8' $NVME_DIR/id-ctrl
  for l in $NVME_LUNS; do
    IFS=: read -r n b bs <<< "$l"
    dev=$(nvme_dev $((n + 1)))
    nvme id-ns $dev | tee $NVME_DIR/id-ns
    grep -qE "^nsze +: 0x$(printf '%x' $((NVME_SIZE_MIB * 1048576 / bs)))\$" $NVME_DIR/id-ns \
      || { echo "namespace $((n + 1)): nsze"; exit 1; }
    [ "$(blockdev --getss $dev)" = $bs ] || { echo "$dev: logical block size $(blockdev --getss $dev), not $bs"; exit 1; }
    [ "$(blockdev --getsize64 $dev)" = $((NVME_SIZE_MIB * 1048576)) ] || { echo "$dev: size"; exit 1; }
    echo "namespace $((n + 1)) ($dev): identity, capacity and block size as configured"
  done
)

nvme_fio() (
  set -eo pipefail
  local l n dev
  for l in $NVME_LUNS; do
    n=$((${l%%:*} + 1)); dev=$(nvme_dev $n)
    fio --name=rand4k-ns$n --filename=$dev --ioengine=libaio --direct=1 --rw=randwrite --bs=4k --iodepth=16 \
      --size=8m --verify=crc32c --do_verify=1 --verify_fatal=1 --randrepeat=0 --output=$NVME_DIR/fio.out
    cat $NVME_DIR/fio.out
    fio --name=seq1m-ns$n --filename=$dev --ioengine=libaio --direct=1 --rw=write --bs=1m --iodepth=4 \
      --size=16m --offset=32m --verify=crc32c --do_verify=1 --verify_fatal=1 --output=$NVME_DIR/fio.out
    cat $NVME_DIR/fio.out
    echo "namespace $n ($dev): fio verified 8 MiB of 4 KiB random and 16 MiB of 1 MiB sequential writes"
  done
)

# a pattern on each namespace's first 4 MiB; blkdiscard of 1..3 MiB reads zeroes, the rest is untouched; nvme flush;
# nvme compare of its first 4 KiB: equal, then with one byte off (Compare Failure)
nvme_discard() (
  set -eo pipefail
  local l n dev bs
  for l in $NVME_LUNS; do
    n=$((${l%%:*} + 1)); dev=$(nvme_dev $n)
    head -c 4M /dev/urandom > $NVME_DIR/pattern-$n
    dd if=$NVME_DIR/pattern-$n of=$dev bs=1M oflag=direct status=none
    blkdiscard -o 1048576 -l 2097152 $dev
    dd if=$dev of=$NVME_DIR/back-$n bs=1M count=4 iflag=direct status=none
    cmp -n 1048576 $NVME_DIR/pattern-$n $NVME_DIR/back-$n
    cmp -i 3145728 -n 1048576 $NVME_DIR/pattern-$n $NVME_DIR/back-$n
    [ "$(dd if=$NVME_DIR/back-$n bs=1M skip=1 count=2 status=none | tr -d '\0' | wc -c)" = 0 ] \
      || { echo "namespace $n: the discarded range does not read zeroes"; exit 1; }
    dd if=$NVME_DIR/pattern-$n of=$dev bs=1M count=1 seek=1 skip=1 oflag=direct status=none
    dd if=$NVME_DIR/pattern-$n of=$dev bs=1M count=1 seek=2 skip=2 oflag=direct status=none
    nvme flush $dev
    echo "namespace $n ($dev): 2 MiB discarded read zeroes, the rest intact; flushed"
    bs=${l##*:}
    head -c 4096 $NVME_DIR/pattern-$n > $NVME_DIR/same-$n
    nvme compare $dev -s 0 -c $((4096 / bs - 1)) -z 4096 -d $NVME_DIR/same-$n
    flipped_copy $NVME_DIR/pattern-$n 4096 3000 $NVME_DIR/off-$n
    if nvme compare $dev -s 0 -c $((4096 / bs - 1)) -z 4096 -d $NVME_DIR/off-$n > $NVME_DIR/compare-$n 2>&1; then
      echo "namespace $n: Compare of a differing byte succeeded"; exit 1
    fi
    cat $NVME_DIR/compare-$n
    grep -qiE 'compare.?fail' $NVME_DIR/compare-$n
    echo "namespace $n ($dev): Compare: equal data succeeds, one byte off is Compare Failure"
  done
)

# namespace 2 (file LUN 1) grown and shrunk back through the management socket: the host sees each new size by itself
# (Namespace Attribute Changed, then its rescan), and the pattern reads back
nvme_resize() (
  set -eo pipefail
  local dev i size
  dev=$(nvme_dev 2)
  for size in $((NVME_SIZE_MIB * 2)) $NVME_SIZE_MIB; do
    daemon_admin $NVME_DIR lun resize 1 ${size}MiB --force
    for i in $(seq 1 40); do [ "$(blockdev --getsize64 $dev)" = $((size * 1048576)) ] && break; sleep 0.5; done
    [ "$(blockdev --getsize64 $dev)" = $((size * 1048576)) ] \
      || { echo "$dev: $(blockdev --getsize64 $dev) bytes 20 s after the resize to $size MiB"; exit 1; }
    echo "namespace 2 ($dev): $size MiB, seen by the host without a rescan"
  done
  dd if=$dev of=$NVME_DIR/back-2 bs=1M count=4 iflag=direct status=none
  cmp $NVME_DIR/pattern-2 $NVME_DIR/back-2
  grep -q 'Namespace Attribute Changed' $NVME_LOG || { echo "the daemon logged no Asynchronous Event"; exit 1; }
)

# nvme disconnect, then connect again: every namespace's pattern reads back
nvme_reconnect() (
  set -eo pipefail
  local l n
  nvme disconnect -n $NVME_NQN
  for i in $(seq 1 60); do [ -z "$(nvme_dev 1)" ] && break; sleep 0.5; done
  [ -z "$(nvme_dev 1)" ] || { echo "the namespaces did not go"; exit 1; }
  nvme_connect
  for l in $NVME_LUNS; do
    n=$((${l%%:*} + 1))
    dd if=$(nvme_dev $n) of=$NVME_DIR/back-$n bs=1M count=4 iflag=direct status=none
    cmp $NVME_DIR/pattern-$n $NVME_DIR/back-$n
    echo "namespace $n: 4 MiB read back equal after a disconnect and a connect"
  done
)

# Linux's ib_srp logged in to the same daemon (its SRP front end, on the same pipeline as the NVMe one): fio verifies
# writes on LUN 1 through SRP and on namespace 1 (LUN 0) through NVMe at the same time; then ib_srp logs out
nvme_srp_beside() (
  set -eo pipefail
  local d h sd="" i srp nvm
  modprobe sd_mod; modprobe ib_srp
  srp_add_target $NVME_LOG
  for i in $(seq 1 120); do
    for d in /sys/block/sd*; do
      [ "$(tr -d ' ' < $d/device/vendor 2>/dev/null)" = RDMABLK ] || continue
      h=$(basename "$(readlink -f $d/device)"); [ "${h##*:}" = 1 ] && sd=/dev/$(basename $d)
    done
    [ -n "$sd" ] && break; sleep 0.5
  done
  [ -b "$sd" ] || { echo "ib_srp's disk of LUN 1 did not appear"; exit 1; }
  fio --name=srp-lun1 --filename=$sd --ioengine=libaio --direct=1 --rw=randwrite --bs=4k --iodepth=16 --offset=40m \
    --size=8m --verify=crc32c --do_verify=1 --verify_fatal=1 --randrepeat=0 --output=$NVME_DIR/fio-srp.out & srp=$!
  fio --name=nvme-ns1 --filename=$(nvme_dev 1) --ioengine=libaio --direct=1 --rw=randwrite --bs=4k --iodepth=16 \
    --offset=8m --size=8m --verify=crc32c --do_verify=1 --verify_fatal=1 --randrepeat=0 --output=$NVME_DIR/fio-nvme.out &
  nvm=$!
  wait $srp || { cat $NVME_DIR/fio-srp.out; echo "fio through ib_srp failed"; exit 1; }
  wait $nvm || { cat $NVME_DIR/fio-nvme.out; echo "fio through nvme-rdma failed"; exit 1; }
  grep -h 'IOPS=' $NVME_DIR/fio-srp.out $NVME_DIR/fio-nvme.out
  for d in /sys/class/srp_remote_ports/*; do [ -e $d/delete ] && echo 1 > $d/delete; done
  echo "LUN 1 through ib_srp ($sd) and namespace 1 through nvme-rdma: fio verified 8 MiB each, at the same time"
)

# the daemon killed (SIGKILL) under the connected host and started again: the host reconnects by itself (its
# reconnect delay), and the file namespace's pattern reads back (the memory one starts empty)
nvme_restart() (
  set -eo pipefail
  local pid i started ctrl
  ctrl=$(basename $(dirname $(grep -l "^$NVME_NQN\$" /sys/class/nvme/nvme*/subsysnqn | head -1)))
  pid=$(cat $NVME_DIR/target.pid); started=$(grep -c '^reach it' $NVME_LOG)
  kill -KILL $pid
  for i in $(seq 1 60); do kill -0 $pid 2>/dev/null || break; sleep 0.5; done
  nvme_start_target $((started + 1))
  for i in $(seq 1 240); do [ "$(cat /sys/class/nvme/$ctrl/state)" = live ] && break; sleep 0.5; done
  echo "$ctrl: $(cat /sys/class/nvme/$ctrl/state)"
  [ "$(cat /sys/class/nvme/$ctrl/state)" = live ] || { echo "nvme-rdma did not reconnect"; exit 1; }
  dd if=$(nvme_dev 2) of=$NVME_DIR/back-2 bs=1M count=4 iflag=direct status=none
  cmp $NVME_DIR/pattern-2 $NVME_DIR/back-2
  echo "namespace 2 (file): 4 MiB read back equal after the daemon was killed and started again under the host"
)

# Linux's nvmet-rdma on 192.0.2.15:4421 serving a 64 MiB brd ramdisk (512-byte blocks), connected
nvmet_up() (
  set -eo pipefail
  modprobe configfs; mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
  modprobe brd rd_nr=1 rd_size=$((NVME_SIZE_MIB * 1024))
  modprobe nvmet-rdma
  local s=$NVMET/subsystems/$NVMET_NQN p=$NVMET/ports/1 i
  mkdir $s; echo 1 > $s/attr_allow_any_host
  mkdir $s/namespaces/1; echo -n /dev/ram0 > $s/namespaces/1/device_path; echo 1 > $s/namespaces/1/enable
  mkdir $p
  echo rdma > $p/addr_trtype; echo ipv4 > $p/addr_adrfam; echo $NVME_ADDR > $p/addr_traddr; echo $NVMET_PORT > $p/addr_trsvcid
  ln -s $s $p/subsystems/$NVMET_NQN
  nvme connect -t rdma -a $NVME_ADDR -s $NVMET_PORT -n $NVMET_NQN
  for i in $(seq 1 60); do [ -b "$(nvme_dev 1 $NVMET_NQN)" ] && break; sleep 0.5; done
  [ -b "$(nvme_dev 1 $NVMET_NQN)" ] || { echo "nvmet-rdma's namespace did not appear"; nvme list; exit 1; }
  nvme list
)

nvmet_down() (
  set -eo pipefail
  nvme disconnect -n $NVMET_NQN
  local s=$NVMET/subsystems/$NVMET_NQN p=$NVMET/ports/1
  rm $p/subsystems/$NVMET_NQN; rmdir $p
  echo 0 > $s/namespaces/1/enable; rmdir $s/namespaces/1 $s
  modprobe -r nvmet-rdma nvmet brd
)

. $REPO/deploy/qemu/plans/compare-lib.sh
# name:nsid:subsystem, the reference first: nvmet-rdma's ramdisk, our memory namespace (512-byte blocks, as the
# ramdisk's), our file namespace (4096-byte blocks)
COMPARE_DISKS=(nvmet:1:$NVMET_NQN memory:1:$NVME_NQN file:2:$NVME_NQN)
compare_dev() {
  local name nsid nqn dev
  IFS=: read -r name nsid nqn <<< "$1"
  dev=$(nvme_dev $nsid $nqn)
  [ -b "$dev" ] || { echo "no namespace for $1" >&2; return 1; }
  echo $dev
}

# our initiator library (NvmeInteropTest, native provider) against port $1, subsystem $2; reports under $3
nvme_library() {
  $JAVA -XX:ErrorFile=$OUT/hs_err_pid%p.log --enable-native-access=ALL-UNNAMED -Xmx1g \
    -Drdmablock.target.provider=native -Drdmablock.nvme.address=$NVME_ADDR:$1 -Drdmablock.nvme.nqn=$2 \
    -Drdmablock.nvme.label=$3 \
    -jar $W/java/junit-console.jar execute --class-path "$(cat $W/java/initiator-test.classpath)" \
    --reports-dir "$OUT/reports/nvme-library-$3" --fail-if-no-tests --details=tree --disable-banner \
    --select-class org.rdmablock.initiator.NvmeInteropTest
}
. $REPO/deploy/qemu/plans/counted.sh
NVME_LIBRARY_TEST=$REPO/initiator/src/test/java/org/rdmablock/initiator/NvmeInteropTest.java

nvme_down() (
  set -eo pipefail
  nvme disconnect -n $NVME_NQN || true
  local pid i
  pid=$(cat $NVME_DIR/target.pid)
  kill -TERM $pid
  for i in $(seq 1 60); do kill -0 $pid 2>/dev/null || exit 0; sleep 0.5; done
  echo "the target did not stop on SIGTERM"; exit 1
)

step nvme_rdma_up nvme_up
step nvme_rdma_identity nvme_identity
step nvme_rdma_fio nvme_fio
step nvme_rdma_discard nvme_discard
step nvme_rdma_resize nvme_resize
step nvme_rdma_reconnect nvme_reconnect
step nvme_srp_beside nvme_srp_beside
step nvme_rdma_restart_kill nvme_restart
step nvmet_rdma_up nvmet_up
step nvme_compare compare_run nvme-compare nvmet "Linux nvmet-rdma, brd ramdisk" 0.8 1.0
step nvme_library_nvmet nvme_library $NVMET_PORT $NVMET_NQN nvmet
step nvme_library_nvmet_counted counted nvme-library-nvmet '^$' $NVME_LIBRARY_TEST
step nvme_library_ours nvme_library $NVME_PORT $NVME_NQN ours
step nvme_library_ours_counted counted nvme-library-ours '^$' $NVME_LIBRARY_TEST
step nvmet_rdma_down nvmet_down
step nvme_rdma_down nvme_down
dmesg | grep -iE 'nvme' > $OUT/nvme-dmesg.log || true

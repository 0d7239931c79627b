#!/bin/bash
# Linux's own NVMe over Fabrics host (nvme-rdma, driven by nvme-cli) against our target daemon's NVMe front end on the
# native provider over rxe0 (192.0.2.15:4420), SRP listening beside it: nvme discover lists the subsystem, nvme
# connect brings its namespaces up as /dev/nvmeXnY (a memory LUN with 512-byte blocks, a file LUN with 4096-byte
# ones), id-ctrl and id-ns say what the config says, fio verifies 4 KiB random and 1 MiB sequential writes read back,
# a discarded range reads zeroes, nvme flush answers, and the data is still there after a disconnect and a connect
# again. Runs while rxe is up; leaves the host disconnected and the daemon stopped. The daemon's log is
# $OUT/nvme-target.log, the kernel's nvme lines $OUT/nvme-dmesg.log.
NVME_DIR=/tmp/nvme-rdma
NVME_JAR=${NVME_JAR:-$REPO/target/build/rdmablock-target.jar}
NVME_LOG=$OUT/nvme-target.log
NVME_NQN=nqn.2026-12.org.rdmablock:qemu
NVME_ADDR=192.0.2.15
NVME_PORT=4420
NVME_LUNS="0:memory:512 1:file:4096"   # namespace n is LUN n-1
NVME_SIZE_MIB=64

nvme_config() {
  mkdir -p $NVME_DIR
  {
    printf '[listen]\nprovider = "native"\naddress = "%s"\nport = 5557\n' $NVME_ADDR
    printf '[pipeline]\ncompletions = "event"\nbackend_threads = 0\nblocking_threads = 0\n'
    printf '[nvme]\nsubsystem = "%s"\nport = %d\nserial = "RDMABLOCK-QEMU"\n' $NVME_NQN $NVME_PORT
    local l n b bs
    for l in $NVME_LUNS; do
      IFS=: read -r n b bs <<< "$l"
      printf '[[lun]]\nnumber = %d\nbackend = "%s"\nsize = "%dMiB"\nblock_size = %d\n' $n $b $NVME_SIZE_MIB $bs
      [ $b = memory ] || printf 'path = "%s/lun%d.%s"\ncreate = true\n' $NVME_DIR $n $b
    done
  } > $NVME_DIR/target.toml
}

# the block device of namespace $1 of our subsystem (empty if none): the multipath head under the subsystem, or
# (nvme_core.multipath=N) the controller's own
nvme_dev() {
  local s d
  for s in /sys/class/nvme-subsystem/nvme-subsys* /sys/class/nvme/nvme*; do
    [ "$(cat $s/subsysnqn 2>/dev/null)" = $NVME_NQN ] || continue
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

nvme_connect() {
  nvme connect -t rdma -a $NVME_ADDR -s $NVME_PORT -n $NVME_NQN -c 1 -l 10
  nvme_wait_namespaces
}

nvme_up() (
  set -eo pipefail
  nvme_config
  : > $NVME_LOG
  $JAVA -XX:ErrorFile=$OUT/hs_err_pid%p.log --enable-native-access=ALL-UNNAMED -Xmx1g \
    -cp "$NVME_JAR:$REPO/target/build/lib/*" org.rdmablock.target.TargetMain target --config $NVME_DIR/target.toml \
    >> $NVME_LOG 2>&1 &
  echo $! > $NVME_DIR/target.pid
  local i
  for i in $(seq 1 180); do
    grep -q '^reach it' $NVME_LOG && break
    kill -0 "$(cat $NVME_DIR/target.pid)" 2>/dev/null || { echo "target exited"; tail -20 $NVME_LOG; exit 1; }
    sleep 1
  done
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

# a pattern on each namespace's first 4 MiB; blkdiscard of 1..3 MiB reads zeroes, the rest is untouched; nvme flush
nvme_discard() (
  set -eo pipefail
  local l n dev
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
  done
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
step nvme_rdma_reconnect nvme_reconnect
step nvme_rdma_down nvme_down
dmesg | grep -iE 'nvme' > $OUT/nvme-dmesg.log || true

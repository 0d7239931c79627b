#!/bin/bash
# Sourced by powercut.sh and powercut-verify.sh: the virtio disk, the daemon on it, the powercut tool.
. $REPO/deploy/qemu/plans/daemon-lib.sh
PC_MNT=/tmp/powercut-disk
PC_PORT=5557
PC_LUNS=0:write-through,1:write-back,2:write-through,3:write-back
PC_TOOLS_CP="$REPO/tools/build/rdmablock-tools.jar:$REPO/tools/build/lib/*"

# powercut_mount [format]: /dev/vda (made ext4 first with "format") mounted on $PC_MNT
powercut_mount() (
  set -eo pipefail
  local i
  modprobe virtio_blk
  for i in $(seq 1 100); do [ -b /dev/vda ] && break; sleep 0.1; done
  [ -b /dev/vda ] || { echo "no /dev/vda: run.sh --disk IMAGE"; exit 1; }
  [ "${1:-}" != format ] || mkfs.ext4 -q -F /dev/vda
  mkdir -p $PC_MNT
  mount /dev/vda $PC_MNT
  df -h $PC_MNT
)

# the config: a file and a RocksDB LUN, each write-through and write-back, on the disk (written once, synced)
powercut_config() {
  local n policy b
  printf '[listen]\nprovider = "soft"\naddress = "127.0.0.1"\nport = %d\n' $PC_PORT
  for n in 0 1 2 3; do
    policy=write-through; [ $((n % 2)) = 0 ] || policy=write-back
    b=file; [ $n -lt 2 ] || b=rocksdb
    printf '[[lun]]\nnumber = %d\nbackend = "%s"\nsize = "64MiB"\nblock_size = 4096\npath = "%s/lun%d.%s"\n' $n $b $PC_MNT $n $b
    printf 'create = true\nwrite_cache = "%s"\n' $policy
  done
}

powercut_daemon_start() {
  daemon_start $PC_MNT $OUT/powercut-target.log
}

powercut_daemon_up() (
  set -eo pipefail
  powercut_config > $PC_MNT/target.toml
  sync
  powercut_daemon_start
)

powercut_tool() {
  $JAVA -XX:ErrorFile=$OUT/hs_err_pid%p.log --enable-native-access=ALL-UNNAMED -Xmx256m -cp "$PC_TOOLS_CP" \
    org.rdmablock.tools.powercut.PowerCutCommand "$@"
}

# the writer in the background; returns once every LUN has an acknowledged write (the host's cue)
powercut_write() (
  set -eo pipefail
  local i
  powercut_tool write --target 127.0.0.1:$PC_PORT --connect-timeout 60s --journal $OUT/powercut --lun $PC_LUNS --blocks 1024 \
    > $OUT/powercut-write.log 2>&1 &
  for i in $(seq 1 1200); do
    [ -e $OUT/powercut/writing ] && { echo "writing to LUNs $PC_LUNS"; exit 0; }
    kill -0 $! 2>/dev/null || { cat $OUT/powercut-write.log; exit 1; }
    sleep 0.5
  done
  echo "no acknowledged write on every LUN after 600 s"; cat $OUT/powercut-write.log; exit 1
)

powercut_verify() (
  set -eo pipefail
  [ -d "${POWERCUT_JOURNAL:-}" ] || { echo "POWERCUT_JOURNAL names no folder: '${POWERCUT_JOURNAL:-}'"; exit 1; }
  powercut_tool verify --target 127.0.0.1:$PC_PORT --connect-timeout 60s --journal $POWERCUT_JOURNAL | tee $OUT/powercut-verify.txt
)

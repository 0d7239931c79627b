#!/bin/bash
# Linux's own SRP initiator (ib_srp) against our target daemon on the native provider over rxe0 (192.0.2.15), then
# beside LIO (srp-compare.sh). Five LUNs (file and rocksdb backends with 512- and 4096-byte blocks, and a memory one for
# the comparison) appear as /dev/sdX with our identity; fio verifies 4 KiB random and 1 MiB sequential writes read back
# (crc32c); a discarded range reads zeros; the data survives the remote port deleted and added again, LUN 0 resized and
# write-protected through the management socket, and the target process restarted (SIGTERM, then SIGKILL; from the
# config that socket saved) under the attached initiator, which reconnects by itself; then persistent reservations
# through three nexuses, on LIO and on ours (pr.sh); then EXTENDED COPY by sg_xcopy between LUNs, inside the target, on
# LIO and on ours (xcopy.sh); then dm-multipath over a second daemon's two SRP ports with implicit ALUA (multipath.sh: two
# path groups, fio verified while the optimized port is taken down, failback when it is back, $OUT/multipath.md). Runs
# while rxe is up; leaves ib_srp logged out, our target stopped and LIO down. The daemon's log is $OUT/ib-srp-target.log,
# the kernel's SRP and SCSI lines $OUT/ib-srp-dmesg.log.
IBSRP_PORT=5556                       # LIO's ib_srpt takes 5555 (lio-initiator.sh)
IBSRP_DIR=/tmp/ib-srp                 # the guest's tmpfs overlay
IBSRP_LOG=$OUT/ib-srp-target.log
IBSRP_LUNS="0:file:512 1:file:4096 2:rocksdb:512 3:rocksdb:4096 4:memory:512"
IBSRP_SIZE_MIB=64
# [channel] stays at its defaults, what a user starts with (the default cq_size is more than rxe's CQ holds, so this
# also checks that the target fits its channels to the device). [pipeline] is set for a machine of two CPUs, which the
# guest is: completions "event", since the default busy polling (one spinning poller and, with the file LUNs here,
# the five pipeline stages "auto" gives them)
# takes the CPU the kernel's rxe, ib_srp and fio need (fio against LIO in the same boot ran 2 to 10 times slower beside
# a polling daemon), and no backend thread (backend_threads = 0: the poller thread runs each command), since every
# sleeping stage wakes on each publish (4 KiB random I/O, same boot: 0.39 - 0.48 of LIO with none, 0.40 - 0.46 with
# one; 0.25 - 0.27 with four, an earlier boot). No blocking-call thread either (blocking_threads = 0, where "auto"
# gives the file and RocksDB LUNs four): the LUN files here are in the guest's memory (tmpfs), so no call waits on a
# device, and each hand-off to a sleeping thread would be a wake-up. The polling path runs on rxe in target-native.sh.
IBSRP_PIPELINE=${IBSRP_PIPELINE:-'completions = "event"
backend_threads = 0
blocking_threads = 0'}
IBSRP_JAVA_OPTS=${IBSRP_JAVA_OPTS:-}  # e.g. -Drdmablock.poller.eventSpins=200 (CompletionPoller, CommandPipeline)
. $REPO/deploy/qemu/plans/daemon-lib.sh

ibsrp_config() {
  mkdir -p $IBSRP_DIR
  {
    printf '[listen]\nprovider = "native"\naddress = "192.0.2.15"\nport = %d\n' $IBSRP_PORT
    printf '[pipeline]\n%s\n' "$IBSRP_PIPELINE"
    printf '[admin]\nsocket = "%s/admin.sock"\n' $IBSRP_DIR
    daemon_luns $IBSRP_DIR $IBSRP_SIZE_MIB $IBSRP_LUNS
  } > $IBSRP_DIR/target.toml
}

# starts the daemon; waits for its $1-th ready line (the ib_srp line it prints; default: the first)
ibsrp_start_target() {
  daemon_start $IBSRP_DIR $IBSRP_LOG "${1:-1}" "$IBSRP_JAVA_OPTS"
}

# ib_srp's add_target: the target $1 (id_ext, ioc_guid, dest; default: the line our daemon printed), plus this port's
# initiator_ext and source address; max_sect=2048: 1 MiB commands (ib_srp's default is 512 KiB), so 1 MiB I/O goes as
# one multi-descriptor command
ibsrp_add_target() {
  srp_add_target $IBSRP_LOG "${1:-}" max_sect=2048
}

# the block device of LUN $1 (empty if none): the disk whose vendor is $2 (default: ours) and whose SCSI LUN is $1
ibsrp_dev() {
  local d hctl
  for d in /sys/block/sd*; do
    [ -e "$d/device/vendor" ] || continue
    [ "$(tr -d ' ' < $d/device/vendor)" = "${2:-RDMABLK}" ] || continue
    hctl=$(basename "$(readlink -f $d/device)")
    [ "${hctl##*:}" = "$1" ] && { echo /dev/$(basename $d); return 0; }
  done
}

# waits until every LUN of ours shows as a disk
ibsrp_wait_disks() {
  local i l ok
  for i in $(seq 1 120); do
    ok=1
    for l in $IBSRP_LUNS; do [ -b "$(ibsrp_dev ${l%%:*})" ] || ok=0; done
    [ $ok = 1 ] && return 0
    sleep 0.5
  done
  echo "not every LUN appeared:"; ls /sys/block; return 1
}

ibsrp_up() (
  set -eo pipefail
  ibsrp_config
  : > $IBSRP_LOG
  ibsrp_start_target
  modprobe sd_mod
  modprobe ib_srp
  ibsrp_add_target
  ibsrp_wait_disks
  for l in $IBSRP_LUNS; do echo "LUN ${l%%:*} ($l): $(ibsrp_dev ${l%%:*})"; done
)

# vendor, product, serial (VPD 80h: <id_ext>-<lun>), block limits (VPD B0h), capacity and block size (READ CAPACITY)
ibsrp_identity() (
  set -eo pipefail
  local idext l n b bs dev serial cap
  idext=$(sed -n 's/.*echo id_ext=\([0-9a-f]*\),.*/\1/p' $IBSRP_LOG | tail -1)
  for l in $IBSRP_LUNS; do
    IFS=: read -r n b bs <<< "$l"
    dev=$(ibsrp_dev $n)
    sg_inq $dev | tee $IBSRP_DIR/inq
    grep -q 'Vendor identification: RDMABLK' $IBSRP_DIR/inq
    grep -q 'Product identification: SRP DISK' $IBSRP_DIR/inq
    serial=$(sg_vpd -p sn $dev | sed -n 's/.*Unit serial number: *//p')
    [ "$serial" = "$idext-$n" ] || { echo "LUN $n: serial '$serial', expected '$idext-$n'"; exit 1; }
    cap=$(sg_readcap -l $dev)
    echo "$cap" | grep -q "Logical block length=$bs bytes" || { echo "LUN $n: block length"; echo "$cap"; exit 1; }
    echo "$cap" | grep -q "Number of logical blocks=$((IBSRP_SIZE_MIB * 1048576 / bs))" || { echo "LUN $n: capacity"; exit 1; }
    sg_vpd -p bl $dev | grep -q "Maximum transfer length: $((1048576 / bs)) blocks" \
      || { echo "LUN $n: VPD B0h maximum transfer length is not 1 MiB"; sg_vpd -p bl $dev; exit 1; }
    echo "LUN $n ($dev): identity, capacity and block limits as configured"
  done
)

# fio, verified: 4 KiB random writes at iodepth 16, then 1 MiB sequential writes at iodepth 4, each read back
ibsrp_fio() (
  set -eo pipefail
  local l n dev
  for l in $IBSRP_LUNS; do
    n=${l%%:*}; dev=$(ibsrp_dev $n)
    fio --name=rand4k-lun$n --filename=$dev --ioengine=libaio --direct=1 --rw=randwrite --bs=4k --iodepth=16 \
      --size=8m --verify=crc32c --do_verify=1 --verify_fatal=1 --randrepeat=0 --output=$IBSRP_DIR/fio.out
    cat $IBSRP_DIR/fio.out
    fio --name=seq1m-lun$n --filename=$dev --ioengine=libaio --direct=1 --rw=write --bs=1m --iodepth=4 \
      --size=16m --offset=32m --verify=crc32c --do_verify=1 --verify_fatal=1 --output=$IBSRP_DIR/fio.out
    cat $IBSRP_DIR/fio.out
    echo "LUN $n ($dev): fio verified 8 MiB of 4 KiB random and 16 MiB of 1 MiB sequential writes"
  done
)

# write: a pattern of random bytes on each LUN's first 4 MiB, kept in $IBSRP_DIR/pattern-N for the later checks;
# check "why": every LUN's first 4 MiB read back equal to its pattern (O_DIRECT: from the target, not the page cache);
# with $3 = persistent, the memory LUN (which a restart empties) is left out
ibsrp_patterns() (
  set -eo pipefail
  local l n
  for l in $IBSRP_LUNS; do
    n=${l%%:*}
    [ "${3:-}" = persistent ] && [[ $l == *:memory:* ]] && continue
    if [ "$1" = write ]; then
      head -c 4M /dev/urandom > $IBSRP_DIR/pattern-$n
      dd if=$IBSRP_DIR/pattern-$n of=$(ibsrp_dev $n) bs=1M oflag=direct status=none
    else
      dd if=$(ibsrp_dev $n) of=$IBSRP_DIR/back-$n bs=1M count=4 iflag=direct status=none
      cmp $IBSRP_DIR/pattern-$n $IBSRP_DIR/back-$n
      echo "LUN $n: 4 MiB read back equal to what was written $2"
    fi
  done
)

# blkdiscard of 1 MiB..3 MiB: that range reads zeros and GET LBA STATUS calls it deallocated, the rest of the pattern
# is untouched; then sg_verify's byte check
ibsrp_discard() (
  set -eo pipefail
  local l n dev bs rc lba blocks status
  ibsrp_patterns write
  for l in $IBSRP_LUNS; do
    n=${l%%:*}; dev=$(ibsrp_dev $n)
    blkdiscard -o 1M -l 2M $dev
    dd if=$dev of=$IBSRP_DIR/back-$n bs=1M count=4 iflag=direct status=none
    cmp -n 2M $IBSRP_DIR/back-$n /dev/zero -i 1M:0 || { echo "LUN $n: discarded range not zero"; exit 1; }
    cmp -n 1M $IBSRP_DIR/back-$n $IBSRP_DIR/pattern-$n
    cmp -n 1M -i 3M $IBSRP_DIR/back-$n $IBSRP_DIR/pattern-$n
    # GET LBA STATUS from 1 MiB: one run of 2 MiB deallocated (a punched hole, deleted groups, pages given back)
    bs=${l##*:}
    read -r lba blocks status _ < <(sg_get_lba_status -b --lba=$((1048576 / bs)) --maxlen=64 $dev | grep -m1 "^0x")
    [ $((lba)) = $((1048576 / bs)) ] && [ $((blocks)) = $((2097152 / bs)) ] && [ "$status" = 1 ] || {
      echo "LUN $n: GET LBA STATUS from 1 MiB said lba $lba, $blocks blocks, status $status; not 2 MiB deallocated"; exit 1; }
    # the patterns are whole again for the next steps
    dd if=$IBSRP_DIR/pattern-$n of=$dev bs=1M oflag=direct status=none
    echo "LUN $n ($dev): 2 MiB discarded read zeros and are one deallocated run, the data around them intact"
    # VERIFY (16) with BYTCHK 01b: equal data-out is GOOD, one byte off is MISCOMPARE (sg3-utils' exit status 14)
    bs=${l##*:}
    head -c 8192 $IBSRP_DIR/pattern-$n > $IBSRP_DIR/same-$n
    sg_verify --16 --lba=0 --count=$((8192 / bs)) --ndo=8192 --in=$IBSRP_DIR/same-$n $dev
    flipped_copy $IBSRP_DIR/pattern-$n 8192 5000 $IBSRP_DIR/off-$n
    rc=0; sg_verify --16 --lba=0 --count=$((8192 / bs)) --ndo=8192 --in=$IBSRP_DIR/off-$n $dev || rc=$?
    [ $rc = 14 ] || { echo "LUN $n: VERIFY of a differing byte exited $rc, not 14 (MISCOMPARE)"; exit 1; }
    echo "LUN $n ($dev): VERIFY with a byte check: equal data GOOD, one byte off MISCOMPARE"
  done
)

# the remote port deleted (ib_srp logs out, the disks go) and added again: the data is still there
ibsrp_readd() (
  set -eo pipefail
  local p i
  for p in /sys/class/srp_remote_ports/*; do echo 1 > $p/delete; done
  for i in $(seq 1 60); do [ -z "$(ibsrp_dev 0)" ] && break; sleep 0.5; done
  [ -z "$(ibsrp_dev 0)" ] || { echo "the disks stayed after the port was deleted"; exit 1; }
  ibsrp_add_target
  ibsrp_wait_disks
  ibsrp_patterns check "before the remote port was deleted and added again"
)

# rdmablock admin against the daemon's management socket
ibsrp_admin_cli() {
  daemon_admin $IBSRP_DIR "$@"
}

# the management socket under the attached ib_srp: LUN 0 grown in place (the kernel logs the unit attention, and a
# rescan sees the new size), made read-only (a rescan sees the WP bit) and writable again, shrunk back (--force), and
# the running configuration saved (the restarts below start from the file it wrote); the data reads back as written
ibsrp_admin() (
  set -eo pipefail
  local dev disk rescan bytes=$((IBSRP_SIZE_MIB * 1048576))
  dev=$(ibsrp_dev 0); disk=$(basename $dev)
  rescan=$(readlink -f /sys/block/$disk/device)/rescan
  ibsrp_admin_cli lun resize 0 $((IBSRP_SIZE_MIB * 2))MiB
  dd if=$dev of=/dev/null bs=4k count=1 iflag=direct status=none  # its next command gets the unit attention
  dmesg | grep -q 'Capacity data has changed' || { echo "the kernel logged no CAPACITY DATA HAS CHANGED"; exit 1; }
  echo 1 > $rescan
  [ "$(blockdev --getsize64 $dev)" = $((bytes * 2)) ] || { echo "LUN 0 after the rescan: $(blockdev --getsize64 $dev) bytes"; exit 1; }
  echo "LUN 0 ($dev) grown to $((IBSRP_SIZE_MIB * 2)) MiB under ib_srp"
  ibsrp_admin_cli lun set 0 --read-only
  echo 1 > $rescan
  [ "$(cat /sys/block/$disk/ro)" = 1 ] || { echo "LUN 0 is not read-only to the kernel after the rescan"; exit 1; }
  ibsrp_admin_cli lun set 0 --writable
  echo 1 > $rescan
  [ "$(cat /sys/block/$disk/ro)" = 0 ] || { echo "LUN 0 is still read-only to the kernel after the rescan"; exit 1; }
  echo "LUN 0 ($dev) made read-only and writable again under ib_srp"
  ibsrp_admin_cli lun resize 0 ${IBSRP_SIZE_MIB}MiB --force
  echo 1 > $rescan
  [ "$(blockdev --getsize64 $dev)" = $bytes ] || { echo "LUN 0 after the shrink: $(blockdev --getsize64 $dev) bytes"; exit 1; }
  ibsrp_admin_cli save
  [ -e $IBSRP_DIR/target.toml.bak ] || { echo "save kept no .bak"; exit 1; }
  ibsrp_patterns check "across the resizes and the write protection"
)

# the target process stopped by signal $1 and started again while ib_srp stays attached: ib_srp reconnects after
# its reconnect_delay (set to 1 s) and the disks keep their data
ibsrp_restart() (
  set -eo pipefail
  local p i started
  for p in /sys/class/srp_remote_ports/*; do echo 1 > $p/reconnect_delay; done
  started=$(grep -c '^reach it' $IBSRP_LOG)
  daemon_stop $IBSRP_DIR $1 || { echo "the target did not stop on SIG$1"; exit 1; }
  ibsrp_start_target $((started + 1))
  for i in $(seq 1 120); do
    grep -q running /sys/class/srp_remote_ports/*/state 2>/dev/null \
      && [ "$(grep -c 'logged in' $IBSRP_LOG)" -gt "$(cat $IBSRP_DIR/logins)" ] && break
    sleep 0.5
  done
  cat /sys/class/srp_remote_ports/*/state
  grep -q running /sys/class/srp_remote_ports/*/state || { echo "ib_srp did not reconnect"; exit 1; }
  [ -b "$(ibsrp_dev 0)" ] || { echo "the disks went away"; exit 1; }
  ibsrp_patterns check "before the target was stopped by SIG$1 and started again" persistent
)

ibsrp_down() (
  set -eo pipefail
  local p
  for p in /sys/class/srp_remote_ports/*; do [ -e $p/delete ] && echo 1 > $p/delete; done
  daemon_stop $IBSRP_DIR
)


# the logins the daemon has logged so far (ibsrp_restart waits for one more)
ibsrp_logins() { grep -c 'logged in' $IBSRP_LOG > $IBSRP_DIR/logins; }

step ib_srp_up ibsrp_up
step ib_srp_identity ibsrp_identity
step ib_srp_fio ibsrp_fio
step ib_srp_discard ibsrp_discard
step ib_srp_readd ibsrp_readd
step ib_srp_admin ibsrp_admin
ibsrp_logins; step ib_srp_restart_term ibsrp_restart TERM
ibsrp_logins; step ib_srp_restart_kill ibsrp_restart KILL
. $REPO/deploy/qemu/plans/srp-compare.sh
# persistent reservations through two nexuses and fence_scsi, on LIO (its own port group; srp-compare's is down) and
# on our memory LUN ($OUT/pr-compare.md); its extra ib_srp logins are gone again after
. $REPO/deploy/qemu/plans/pr.sh
# EXTENDED COPY(LID1) by sg_xcopy on LIO (three ramdisks of its own) and between our LUNs, the data compared
# ($OUT/xcopy-compare.md); LIO's login is gone again after
. $REPO/deploy/qemu/plans/xcopy.sh
# multipath-tools over two ports of a second daemon (one memory LUN, an address added to rdma0), failover under fio
# and failback ($OUT/multipath.md); its map, logins, daemon and address are gone again after
. $REPO/deploy/qemu/plans/multipath.sh
step ib_srp_down ibsrp_down
dmesg | grep -iE 'srp|scsi|sd[a-z]' > $OUT/ib-srp-dmesg.log

#!/bin/bash
# PID 1 of the QEMU guest (after switch_root): prepares the system, brings up the RDMA devices, runs the plan,
# powers off. Must never exit: power-off is by sysrq.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root
exec > /mnt/out/guest.log 2>&1
. /mnt/out/guest.env
export OUT=/mnt/out REPO W SIW
# what the plans run Java and the perf tools with (prepare-java.sh wrote java-home)
export JAVA="$(cat $W/java/java-home)/bin/java"
export PERF_CP="$REPO/tools/build/rdmablock-tools.jar:$REPO/tools/build/lib/*"
export PERF="$JAVA -XX:ErrorFile=$OUT/hs_err_pid%p.log --enable-native-access=ALL-UNNAMED -cp $PERF_CP org.rdmablock.tools.perf.PerfCommand"
S=$OUT/summary.txt; : > "$S"
step() {
  local name=$1 start rc; shift; start=$(date +%s.%N)
  echo "=== BEGIN $name: $*"
  "$@"; rc=$?
  echo "$name rc=$rc secs=$(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $start}")" | tee -a "$S"
  return $rc
}
export -f step; export S
poweroff_now() { sync; echo o > /proc/sysrq-trigger; sleep 30; }

mkdir -p /dev/pts /dev/shm /tmp; mount -t devpts devpts /dev/pts; mount -t tmpfs tmpfs /dev/shm
# /tmp stays the overlay's (writable, in guest RAM): a tmpfs there would hide a checkout that lives under the
# host's /tmp, as a CI clone often does.
mount -t tmpfs tmpfs /run; ln -sf /proc/self/fd /dev/fd
ip link set lo up
echo "userspace up at $(cut -d' ' -f1 /proc/uptime) s" | tee -a "$S"
ulimit -l unlimited

# Soft-RoCE on rdma0 (192.0.2.15); its veth peer rdma1 stays up without an address (RoCE needs GID index 1).
step rxe bash -c 'modprobe veth && ip link add rdma0 type veth peer name rdma1 && ip link set rdma1 up \
  && ip link set rdma0 up && ip addr add 192.0.2.15/24 dev rdma0 && modprobe -a rdma_rxe ib_uverbs rdma_ucm \
  && rdma link add rxe0 type rxe netdev rdma0 && ibv_devices'
if [ "$SIW" = 1 ]; then
  # siw on a veth pair whose far end lives in network namespace ns1, so its traffic crosses an interface:
  # host side iw0 192.0.3.1 (the soft provider), ns1 side iw1 192.0.3.2 with the siw device siw0.
  step siw bash -c 'modprobe -a ib_core ib_uverbs iw_cm rdma_cm rdma_ucm libcrc32c && insmod $W/siw/siw.ko \
    && ip netns add ns1 && ip link add iw0 type veth peer name iw1 && ip link set iw1 netns ns1 \
    && ip addr add 192.0.3.1/24 dev iw0 && ip link set iw0 up \
    && ip netns exec ns1 ip addr add 192.0.3.2/24 dev iw1 && ip netns exec ns1 ip link set iw1 up \
    && ip netns exec ns1 ip link set lo up && ip netns exec ns1 rdma link add siw0 type siw netdev iw1 && rdma link'
fi
step plan bash "$PLAN"
echo "plan done" | tee -a "$S"
if [ "$SERVE" = 1 ]; then
  echo "serving $OUT/inbox" | tee -a "$S"
  while true; do
    for job in "$OUT"/inbox/*.sh; do
      [ -f "$job" ] || continue
      mv "$job" "$job.running"
      bash "$job.running" > "${job%.sh}.log" 2>&1; echo $? > "${job%.sh}.rc"
      rm -f "$job.running"
      [ -f "$OUT/inbox/stop" ] && break 2
    done
    [ -f "$OUT/inbox/stop" ] && break
    sleep 1
  done
fi
poweroff_now

#!/bin/bash
# The last plan of check.sh's first boot (all.sh): Linux's nvme-rdma over siw (the kernel's soft iWARP) against our
# target on the soft provider: a kernel storage host on our software RDMA; fio verifies 4 KiB random and 1 MiB
# sequential writes read back. The daemon runs in ns1 (192.0.3.2, the soft provider over
# TCP); the kernel host in the root namespace reaches it through a second siw device on iw0 (nvme-rdma's rdma_cm ids
# live in init_net). Run: deploy/qemu/run.sh --siw --timeout 900 deploy/qemu/plans/nvme-siw.sh. With SIW_TARGET=nvmet
# (deploy/qemu/plans/nvmet-siw.sh) the control instead: Linux's own nvmet-rdma over the same siw device, on the root
# namespace's 192.0.3.1, nothing of ours in the path. What they showed: docs/benchmarks/siw-interop.md. SOFT_OPTS
# adds Java options to our daemon (-Drdmablock.soft.crc=false: MPA CRC off). Each run keeps its packets
# ($OUT/nvme-siw.pcap: iw0 for ours, lo for the control, whose host and target share the root namespace), read with
# deploy/qemu/mpa-stats.py.
D=/tmp/nvme-siw; mkdir -p $D
SIW_TARGET=${SIW_TARGET:-ours}
NQN=nqn.2026-12.org.rdmablock:siw
NVMET=/sys/kernel/config/nvmet
step siw_root_link bash -c 'rdma link add siw1 type siw netdev iw0 && rdma link'
if [ "$SIW_TARGET" = nvmet ]; then
  ADDR=192.0.3.1
  nvmet_siw_up() (
    set -eo pipefail
    modprobe configfs; mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
    modprobe brd rd_nr=1 rd_size=65536
    modprobe nvmet-rdma
    local s=$NVMET/subsystems/$NQN p=$NVMET/ports/1
    mkdir $s; echo 1 > $s/attr_allow_any_host
    mkdir $s/namespaces/1; echo -n /dev/ram0 > $s/namespaces/1/device_path; echo 1 > $s/namespaces/1/enable
    mkdir $p
    echo rdma > $p/addr_trtype; echo ipv4 > $p/addr_adrfam; echo $ADDR > $p/addr_traddr; echo 4420 > $p/addr_trsvcid
    ln -s $s $p/subsystems/$NQN
  )
  step siw_target_up nvmet_siw_up
else
  ADDR=192.0.3.2
  cat > $D/target.toml <<TOML
[listen]
provider = "soft"
address = "$ADDR"
port = 5558
[pipeline]
completions = "event"
backend_threads = 0
blocking_threads = 0
[nvme]
subsystem = "$NQN"
[[lun]]
number = 0
backend = "memory"
size = "64MiB"
TOML
  ip netns exec ns1 $JAVA --enable-native-access=ALL-UNNAMED -Xmx1g -cp "$REPO/target/build/rdmablock-target.jar:$REPO/target/build/lib/*" \
    ${SOFT_OPTS:-} org.rdmablock.target.TargetMain target --config $D/target.toml > $OUT/nvme-siw-target.log 2>&1 &
  for i in $(seq 1 120); do grep -q '^reach it' $OUT/nvme-siw-target.log && break; sleep 1; done
  step siw_target_up grep -q '^NVMe over Fabrics' $OUT/nvme-siw-target.log
fi
modprobe nvme-rdma
command -v tcpdump >/dev/null && { CAPIF=iw0; [ "$SIW_TARGET" = nvmet ] && CAPIF=lo; tcpdump -Z root -B 16384 -i $CAPIF -s 0 -w $D/nvme-siw.pcap tcp port 4420 > $OUT/nvme-siw-tcpdump.log 2>&1 & TCPDUMP_PID=$!; }
step nvme_siw_discover timeout 60 nvme discover -t rdma -a $ADDR -s 4420
step nvme_siw_connect timeout 90 nvme connect -t rdma -a $ADDR -s 4420 -n $NQN -l 60
sleep 3
nvme list > $OUT/nvme-siw-list.txt 2>&1
dev=$(for s in /sys/class/nvme-subsystem/nvme-subsys*; do [ "$(cat $s/subsysnqn)" = $NQN ] && ls -d $s/nvme*n1 2>/dev/null; done | head -1)
echo "device: $dev" >> $OUT/nvme-siw-list.txt
if [ -n "$dev" ]; then
  step nvme_siw_fio timeout 300 fio --name=siw --filename=/dev/$(basename $dev) --ioengine=libaio --direct=1 --rw=randwrite \
    --bs=4k --iodepth=16 --size=8m --verify=crc32c --do_verify=1 --verify_fatal=1 --output=$OUT/nvme-siw-fio.txt
  grep -q 'nvme_siw_fio rc=0' $OUT/summary.txt && step nvme_siw_fio_1m timeout 300 fio --name=siw1m --filename=/dev/$(basename $dev) --ioengine=libaio --direct=1 --rw=write \
    --bs=1m --iodepth=4 --size=16m --offset=32m --verify=crc32c --do_verify=1 --verify_fatal=1 \
    --output=$OUT/nvme-siw-fio-1m.txt
fi
dmesg > $OUT/dmesg-full.log; [ -n "$TCPDUMP_PID" ] && kill $TCPDUMP_PID; sleep 2; cp $D/nvme-siw.pcap $OUT/ 2>/dev/null
timeout 30 nvme disconnect -n $NQN
dmesg | grep -iE 'nvme|siw|iw_cm' > $OUT/nvme-siw-dmesg.log
sleep 1; pkill -f nvme-siw/target.toml
true

#!/bin/bash
# An experiment, not in check.sh: Linux's own nvme-rdma over siw against Linux's own nvmet-rdma over siw, both in the
# guest's root namespace on one siw device on iw0 (192.0.3.1; the host reaches the target's local address): does siw
# carry nvme-rdma's I/O with no part of ours in the path? The control for nvme-siw.sh, whose boots ended in a siw
# oops once the reads began. Run: deploy/qemu/run.sh --siw --timeout 900 deploy/qemu/plans/nvmet-siw.sh. What it
# showed: docs/benchmarks/siw-interop.md.
D=/tmp/nvmet-siw; mkdir -p $D
NQN=nqn.2026-12.org.rdmablock:nvmet-siw
NVMET=/sys/kernel/config/nvmet
step siw_root_link bash -c 'rdma link add siw1 type siw netdev iw0 && rdma link'
nvmet_siw_up() (
  set -eo pipefail
  modprobe configfs; mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
  modprobe brd rd_nr=1 rd_size=65536
  modprobe nvmet-rdma
  local s=$NVMET/subsystems/$NQN p=$NVMET/ports/1
  mkdir $s; echo 1 > $s/attr_allow_any_host
  mkdir $s/namespaces/1; echo -n /dev/ram0 > $s/namespaces/1/device_path; echo 1 > $s/namespaces/1/enable
  mkdir $p
  echo rdma > $p/addr_trtype; echo ipv4 > $p/addr_adrfam; echo 192.0.3.1 > $p/addr_traddr; echo 4420 > $p/addr_trsvcid
  ln -s $s $p/subsystems/$NQN
)
step nvmet_siw_up nvmet_siw_up
modprobe nvme-rdma
step nvme_siw_discover timeout 60 nvme discover -t rdma -a 192.0.3.1 -s 4420
step nvme_siw_connect timeout 90 nvme connect -t rdma -a 192.0.3.1 -s 4420 -n $NQN
sleep 3
nvme list > $OUT/nvmet-siw-list.txt 2>&1
dev=$(for s in /sys/class/nvme-subsystem/nvme-subsys*; do [ "$(cat $s/subsysnqn)" = $NQN ] && ls -d $s/nvme*n1 2>/dev/null; done | head -1)
echo "device: $dev" >> $OUT/nvmet-siw-list.txt
if [ -n "$dev" ]; then
  step nvmet_siw_fio_4k fio --name=siw4k --filename=/dev/$(basename $dev) --ioengine=libaio --direct=1 --rw=randwrite \
    --bs=4k --iodepth=16 --size=8m --verify=crc32c --do_verify=1 --verify_fatal=1 --output=$OUT/nvmet-siw-fio-4k.txt
  step nvmet_siw_fio_1m fio --name=siw1m --filename=/dev/$(basename $dev) --ioengine=libaio --direct=1 --rw=write \
    --bs=1m --iodepth=4 --size=16m --offset=32m --verify=crc32c --do_verify=1 --verify_fatal=1 \
    --output=$OUT/nvmet-siw-fio-1m.txt
fi
nvme disconnect -n $NQN
dmesg | grep -iE 'nvme|siw|iw_cm' > $OUT/nvmet-siw-dmesg.log
true

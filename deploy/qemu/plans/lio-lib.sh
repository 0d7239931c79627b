#!/bin/bash
# Sourced by lio-initiator.sh and srp-compare.sh: Linux LIO's ib_srpt on rxe0 (set up as the shared reference
# reference/qemu-rxe/srp-e2e.sh does), a 64 MiB ramdisk LUN that the RDMA/CM initiator 192.0.2.15 may see.
LIO_PORT=5555
LIO_IU=8260   # ib_srpt's srp_max_req_size: the IU length our initiator asks for
CFG=/sys/kernel/config/target
lio_tpg() {
  local gid0
  gid0=$(cat /sys/class/infiniband/rxe0/ports/1/gids/0); echo $CFG/srpt/${gid0#fe80:0000:0000:0000:}
}
lio_up() (
  set -e
  modprobe configfs; mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
  modprobe target_core_mod
  modprobe ib_srpt srp_max_req_size=$LIO_IU
  local wwn
  wwn=$(lio_tpg)
  mkdir -p $CFG/core/rd_mcp_0/ram0
  echo rd_pages=16384 > $CFG/core/rd_mcp_0/ram0/control   # 16384 pages of 4 KiB
  echo 1 > $CFG/core/rd_mcp_0/ram0/enable
  mkdir -p $CFG/srpt
  echo $LIO_PORT > $CFG/srpt/discovery_auth/rdma_cm_port
  T=$wwn/$(basename $wwn)
  mkdir -p $T
  mkdir -p $T/lun/lun_0 && ln -s $CFG/core/rd_mcp_0/ram0 $T/lun/lun_0/
  # ib_srpt names an RDMA/CM initiator by its IPv4 address (among others): the ACL lets 192.0.2.15 see LUN 0
  mkdir -p $T/acls/192.0.2.15/lun_0 && ln -s $T/lun/lun_0 $T/acls/192.0.2.15/lun_0/
  echo 1 > $T/enable
  echo "LIO up: ib_srpt on rxe0 port $LIO_PORT, $T, service guid $(cat /sys/module/ib_srpt/parameters/srpt_service_guid)"
)
lio_down() (
  set -e
  local wwn T
  wwn=$(lio_tpg); T=$wwn/$(basename $wwn)
  echo 0 > $T/enable
  rm $T/acls/192.0.2.15/lun_0/lun_0; rmdir $T/acls/192.0.2.15/lun_0 $T/acls/192.0.2.15
  rm $T/lun/lun_0/ram0; rmdir $T/lun/lun_0 $T $wwn
  rmdir $CFG/core/rd_mcp_0/ram0 $CFG/core/rd_mcp_0
  rmdir $CFG/srpt   # unregisters the fabric, which holds ib_srpt
  rmmod ib_srpt
)

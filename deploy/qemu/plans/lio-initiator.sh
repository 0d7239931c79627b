#!/bin/bash
# Our initiator library against a second target: Linux LIO's ib_srpt on rxe0 (as the shared reference
# reference/qemu-rxe/srp-e2e.sh sets it up), a 64 MiB ramdisk LUN, our native provider. LioInteropTest logs in,
# verifies 64 MiB written and read in 1 MiB sequential and 4 KiB random I/O, and logs out. Runs while rxe is up;
# takes LIO down again after. Reports go to $OUT/reports/lio-initiator.
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
lio_junit() {
  local ioc
  ioc=$(cat /sys/module/ib_srpt/parameters/srpt_service_guid)
  $JAVA -XX:ErrorFile=$OUT/hs_err_pid%p.log --enable-native-access=ALL-UNNAMED -Xmx1g \
    -Drdmablock.target.provider=native -Drdmablock.lio.address=192.0.2.15:$LIO_PORT \
    -Drdmablock.lio.idExt=$ioc -Drdmablock.lio.iocGuid=$ioc -Drdmablock.lio.iuLength=$LIO_IU \
    -jar $W/java/junit-console.jar execute --class-path "$(cat $W/java/initiator-test.classpath)" \
    --reports-dir "$OUT/reports/lio-initiator" --fail-if-no-tests --details=tree --disable-banner \
    --select-class org.rdmablock.initiator.LioInteropTest
}
step lio_up lio_up
step lio_initiator lio_junit
. $REPO/deploy/qemu/plans/counted.sh
# no skip is allowed: the test is skipped only where no LIO target is named
step lio_initiator_counted counted lio-initiator '^$' "$REPO/initiator/src/test/java/org/rdmablock/initiator/LioInteropTest.java"
step lio_down lio_down

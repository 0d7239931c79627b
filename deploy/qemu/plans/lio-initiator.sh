#!/bin/bash
# Our initiator library against a second target: Linux LIO's ib_srpt on rxe0 (as the shared reference
# reference/qemu-rxe/srp-e2e.sh sets it up), a 64 MiB ramdisk LUN, our native provider. LioInteropTest logs in,
# verifies 64 MiB written and read in 1 MiB sequential and 4 KiB random I/O, and logs out. Runs while rxe is up;
# takes LIO down again after. Reports go to $OUT/reports/lio-initiator.
. $REPO/deploy/qemu/plans/lio-lib.sh
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

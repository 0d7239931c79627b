#!/bin/bash
# The initiator library against our own target on the native provider: both in one JVM on Soft-RoCE (rxe0 on rdma0,
# 192.0.2.15), through librdmacm and libibverbs. Runs while rxe is up (after target-native.sh). Reports go to
# $OUT/reports/initiator-native.
# Left to the soft provider (bin/test): FaultTest (its daemon runs in a child JVM on the soft provider) and
# InitiatorAllocationTest (1 M operations take too long under emulation).
INITIATOR_CLASSES="InitiatorTest SchedulingTest"
ICP="$(cat $W/java/initiator-test.classpath)"
iselectors=()
for c in $INITIATOR_CLASSES; do iselectors+=(--select-class "org.rdmablock.initiator.$c"); done
initiator_junit() {
  $JAVA -XX:ErrorFile=$OUT/hs_err_pid%p.log --enable-native-access=ALL-UNNAMED -Xmx1g \
    -Drdmablock.target.provider=native -Drdmablock.target.address=192.0.2.15 \
    -jar $W/java/junit-console.jar execute --class-path "$ICP" --reports-dir "$OUT/reports/initiator-native" \
    --fail-if-no-tests --details=tree --disable-banner "${iselectors[@]}"
}
step initiator_native initiator_junit
isources=(); for c in $INITIATOR_CLASSES; do isources+=("$REPO/initiator/src/test/java/org/rdmablock/initiator/$c.java"); done
. $REPO/deploy/qemu/plans/counted.sh
step initiator_native_counted counted initiator-native 'private data' "${isources[@]}"

#!/bin/bash
# The target's end-to-end suite on the native provider: the SRP target and the test initiators in one JVM, both on
# Soft-RoCE (rxe0 on rdma0, 192.0.2.15), through librdmacm and libibverbs. Runs while rxe is up (after
# verbs-native.sh, before interop.sh deletes it). Reports go to $OUT/reports/target-native.
# Left to the soft provider (bin/test): BadInputTest (its RDMA protection errors end channels, and rxe does not flush
# after an error: rxe-no-flush-after-err), ResourceLeakTest (500 logins) and DaemonCrashTest (child JVMs), which take
# too long under emulation; the tests of the classes run here that need more connect private data than an IB/RoCE
# request carries (56 bytes) skip themselves, with that reason. The test initiators wait 30 s, not 10, for an address,
# a connection or a response: the JVM's first login under emulation once took longer than 10 s.
TARGET_CLASSES="SrpTargetTest ExternalDescriptorTableTest ScsiCommandsTest LoginTest SessionsTest CommandTimeoutTest"
ALLOWED_TARGET_SKIPS='private data'
TCP="$(cat $W/java/target-test.classpath)"
selectors=()
for c in $TARGET_CLASSES; do selectors+=(--select-class "org.rdmablock.target.srp.$c"); done
target_junit() {
  $JAVA -XX:ErrorFile=$OUT/hs_err_pid%p.log --enable-native-access=ALL-UNNAMED -Xmx1g \
    -Drdmablock.target.provider=native -Drdmablock.target.address=192.0.2.15 -Drdmablock.test.timeoutSeconds=30 \
    -jar $W/java/junit-console.jar execute --class-path "$TCP" --reports-dir "$OUT/reports/target-native" \
    --fail-if-no-tests --details=tree --disable-banner "${selectors[@]}"
}
step target_native target_junit
sources=(); for c in $TARGET_CLASSES; do sources+=("$REPO/target/src/test/java/org/rdmablock/target/srp/$c.java"); done
. $REPO/deploy/qemu/plans/counted.sh
step target_native_counted counted target-native "$ALLOWED_TARGET_SKIPS" "${sources[@]}"

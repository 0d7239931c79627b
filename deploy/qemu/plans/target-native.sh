#!/bin/bash
# The target's end-to-end suite on the native provider: the SRP target and the test initiators in one JVM, both on
# Soft-RoCE (rxe0 on rdma0, 192.0.2.15), through librdmacm and libibverbs. Runs while rxe is up (after
# verbs-native.sh, before interop.sh deletes it). Reports go to $OUT/reports/target-native.
# Left to the soft provider (bin/test): BadInputTest (its RDMA protection errors end channels, and rxe does not flush
# after an error: rxe-no-flush-after-err), ResourceLeakTest (500 logins) and DaemonCrashTest (child JVMs), which take
# too long under emulation; the tests of the classes run here that need more connect private data than an IB/RoCE
# request carries (56 bytes) skip themselves, with that reason.
TARGET_CLASSES="SrpTargetTest ExternalDescriptorTableTest ScsiCommandsTest LoginTest SessionsTest"
ALLOWED_TARGET_SKIPS='private data'
TCP="$(cat $W/java/target-test.classpath)"
selectors=()
for c in $TARGET_CLASSES; do selectors+=(--select-class "org.rdmablock.target.srp.$c"); done
target_junit() {
  $JAVA -XX:ErrorFile=$OUT/hs_err_pid%p.log --enable-native-access=ALL-UNNAMED -Xmx1g \
    -Drdmablock.target.provider=native -Drdmablock.target.address=192.0.2.15 \
    -jar $W/java/junit-console.jar execute --class-path "$TCP" --reports-dir "$OUT/reports/target-native" \
    --fail-if-no-tests --details=tree --disable-banner "${selectors[@]}"
}
# every declared test method of those classes ran, none failed, every skip has the allowed reason
target_counted() {
  local xml=$OUT/reports/target-native/TEST-junit-jupiter.xml declared=0 ran bad c
  [ -s "$xml" ] || { echo "no JUnit report $xml"; return 1; }
  for c in $TARGET_CLASSES; do
    declared=$(( declared + $(grep -cE '^\s*@(Test|ParameterizedTest)\b' $REPO/target/src/test/java/org/rdmablock/target/srp/$c.java) ))
  done
  ran=$(sed -n 's/.*<testcase name="\([^"(]*\)([^"]*" classname="\([^"]*\)".*/\2#\1/p' "$xml" | sort -u | wc -l)
  echo "target test methods declared: $declared; ran: $ran"
  grep -o '<testsuite [^>]*>' "$xml"
  grep -q '<testsuite [^>]* failures="0" errors="0"' "$xml" || { echo "failures or errors in $xml"; return 1; }
  [ "$declared" -gt 0 ] && [ "$ran" = "$declared" ] || { echo "not every declared test method ran"; return 1; }
  bad=$(grep -A1 '<skipped' "$xml" | sed -n 's/.*Assumption failed: //p' | grep -vE "$ALLOWED_TARGET_SKIPS")
  [ -z "$bad" ] || { echo "skips without an allowed reason:"; echo "$bad"; return 1; }
}
step target_native target_junit
step target_native_counted target_counted

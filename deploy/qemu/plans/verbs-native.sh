#!/bin/bash
# The native provider on Soft-RoCE: the verbs conformance suite (every test rxe supports), run with the JUnit
# console launcher against the build on the host; reports go to $OUT/reports.
# Linux 6.1's rxe has bugs the suite names (ProviderFixture's constants): each declared one is proven present by
# a test that fails once the kernel behaves, and the tests it would break are skipped with its name as reason
# (rxe-mw-error-leak: the window rights and range violations, whose teardown stalls 50 s per object).
# A broken build or classpath cannot pass: the launcher fails when it finds no tests, and the last step checks
# that every test method declared in the suite's sources ran and that every skip has a reason allowed here.
RXE_ISSUES=rxe-mw-error-leak,rxe-no-flush-after-err,rxe-kernel-wc-flags
# skips that are right on rxe: soft-only tests, and the window error paths of rxe-mw-error-leak
ALLOWED_SKIPS='only a soft device can be removed|transport must live in its process|rxe-mw-error-leak'
CP="$(cat $W/java/test.classpath)"
junit() { # junit <report dir> <selectors...>; $JUNIT_JVM_OPTS go to the JVM
  local reports=$1; shift
  $JAVA -XX:ErrorFile=$OUT/hs_err_pid%p.log $JUNIT_JVM_OPTS --enable-native-access=ALL-UNNAMED -Xmx1g -Drdmablock.conformance.providers=native \
    -Drdmablock.conformance.address=192.0.2.15 -Drdmablock.conformance.gidIndex=1 -Drdmablock.test.classpath="$CP" \
    -Drdmablock.conformance.knownIssues=$RXE_ISSUES "-Drdmablock.conformance.linkCommand=ip link set rdma0 %s" \
    -jar $W/java/junit-console.jar execute --class-path "$CP" --reports-dir "$OUT/reports/$reports" \
    --fail-if-no-tests --details=tree --disable-banner "$@"
}
. $REPO/deploy/qemu/plans/counted.sh
step native_devices bash -c "ibv_devices; rdma link"
# The proof of rxe-mw-error-leak stalls its teardown about 50 s in the kernel (asleep, not spinning): it runs alone
# in a JVM of its own beside the suite, and the suite skips it.
JUNIT_JVM_OPTS=-Drdmablock.conformance.proveWindowLeak=true junit window-leak --select-method \
  'org.rdmablock.verbs.conformance.ResourceConformanceTest#declaredWindowErrorLeakStillStallsTheTeardown(org.rdmablock.verbs.conformance.ProviderFixture)' \
  > $OUT/window-leak-proof.log 2>&1 &
proof=$!
step conformance_native junit conformance --select-package org.rdmablock.verbs.conformance
step conformance_native_counted counted conformance "$ALLOWED_SKIPS" $REPO/verbs/src/test/java/org/rdmablock/verbs/conformance/*.java
wait $proof; proof_rc=$?
cat $OUT/window-leak-proof.log
step rxe_window_leak_proven bash -c "test $proof_rc = 0 && grep -q ' 1 tests successful' $OUT/window-leak-proof.log"

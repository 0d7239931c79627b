#!/bin/bash
# The native provider on Soft-RoCE: the verbs conformance suite (every test rxe supports), run with the JUnit
# console launcher against the build on the host; reports go to $OUT/reports.
# Linux 6.1's rxe has bugs the suite names (ProviderFixture's constants) and works around or skips.
RXE_ISSUES=rxe-mw-error-leak,rxe-no-flush-after-err,rxe-kernel-wc-flags
CP="$(cat $W/java/test.classpath)"
junit() { # junit <report dir> <selectors...>
  local reports=$1; shift
  $JAVA --enable-native-access=ALL-UNNAMED -Xmx1g -Drdmablock.conformance.providers=native \
    -Drdmablock.conformance.address=192.0.2.15 -Drdmablock.conformance.gidIndex=1 -Drdmablock.test.classpath="$CP" \
    -Drdmablock.conformance.knownIssues=$RXE_ISSUES "-Drdmablock.conformance.linkCommand=ip link set rdma0 %s" \
    -jar $W/java/junit-console.jar execute --class-path "$CP" --reports-dir "$OUT/reports/$reports" \
    --details=tree --disable-banner "$@"
}
step native_devices bash -c "ibv_devices; rdma link"
step conformance_native junit conformance --select-package org.rdmablock.verbs.conformance

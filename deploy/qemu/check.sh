#!/usr/bin/env bash
# The QEMU harness's whole check, as .ci/run runs it (root; about 6 minutes here, most of it emulation):
#   boot 1 (single-threaded TCG, siw built): the native provider's conformance suite on Soft-RoCE (rxe), and the
#          soft provider against the kernel's siw with rping, both directions;
#   boot 2 (multi-threaded TCG): the native provider's perf tools against perftest on rxe.
# Results: .qemu-work/out-conformance and .qemu-work/out-perf (summary.txt, reports, logs).
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
W="${QEMU_WORK:-$repo/.qemu-work}"
rc=0
mkdir -p "$W"
bash "$repo/deploy/qemu/install-packages.sh"
bash "$repo/deploy/qemu/prepare-java.sh" "$W"
export QEMU_PREPARED=1
"$repo/deploy/qemu/run.sh" --siw "$repo/deploy/qemu/plans/all.sh" || rc=1
rm -rf "$W/out-conformance"; cp -r "$W/out" "$W/out-conformance"
QEMU_TCG_THREADS=multi "$repo/deploy/qemu/run.sh" "$repo/deploy/qemu/plans/perf.sh" || rc=1
rm -rf "$W/out-perf"; cp -r "$W/out" "$W/out-perf"
echo "QEMU harness: $([ $rc = 0 ] && echo passed || echo FAILED) (results in $W/out-conformance and $W/out-perf)"
exit $rc

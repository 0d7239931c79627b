#!/usr/bin/env bash
# The QEMU harness's whole check, as .ci/run runs it (root; about 48 minutes on a quiet 2-core machine, most of it
# emulation: boot 1 about 18, boot 2 about 2, boot 3 about 28; docs/benchmarks/qemu-harness-time.md):
#   boot 1 (single-threaded TCG, siw built): the native provider's conformance suite, the target's end-to-end suite
#          and the initiator library on Soft-RoCE (rxe), our initiator against LIO, and the soft provider against the
#          kernel's siw with rping, both directions;
#   boot 2 (multi-threaded TCG): the native provider's perf tools against perftest on rxe;
#   boot 3 (single-threaded TCG): Linux's ib_srp against our target daemon and beside LIO (persistent reservations
#          and sg_xcopy's EXTENDED COPY on both; dm-multipath with ALUA over two of our SRP ports: failover under fio
#          and failback), the distribution archive's daemon on rxe, and Linux's nvme-rdma against our NVMe front end.
# Results: .qemu-work/out-conformance, out-perf and out-srp (summary.txt, reports, logs, srp-compare.md,
# pr-compare.md, xcopy-compare.md, multipath.md).
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
W="${QEMU_WORK:-$repo/.qemu-work}"
rc=0
mkdir -p "$W"
bash "$repo/deploy/qemu/install-packages.sh"
bash "$repo/deploy/qemu/prepare-java.sh" "$W"
export QEMU_PREPARED=1
# the boots' limits leave room for a loaded host: boot 1 took 10 minutes on a quiet one, 17 beside two builds
"$repo/deploy/qemu/run.sh" --siw --timeout 1800 "$repo/deploy/qemu/plans/all.sh" || rc=1
rm -rf "$W/out-conformance"; cp -r "$W/out" "$W/out-conformance"
QEMU_TCG_THREADS=multi "$repo/deploy/qemu/run.sh" "$repo/deploy/qemu/plans/perf.sh" || rc=1
rm -rf "$W/out-perf"; cp -r "$W/out" "$W/out-perf"
# boot 3 took 20 minutes on a quiet host before pr.sh (about 2.5 more), near 29 beside two builds; xcopy.sh adds about
# 1 and multipath.sh about 4: room for all
# the fio comparisons against LIO and nvmet run one round here (about 160 s less each than the three a bench takes:
# COMPARE_ROUNDS=3 deploy/qemu/run.sh deploy/qemu/plans/srp.sh); their tables say how many rounds they hold
COMPARE_ROUNDS=${COMPARE_ROUNDS:-1} "$repo/deploy/qemu/run.sh" --timeout 2700 "$repo/deploy/qemu/plans/srp.sh" || rc=1
rm -rf "$W/out-srp"; cp -r "$W/out" "$W/out-srp"
echo "QEMU harness: $([ $rc = 0 ] && echo passed || echo FAILED) (results in $W/out-conformance, $W/out-perf and $W/out-srp)"
exit $rc

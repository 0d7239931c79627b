#!/usr/bin/env bash
# Boots the soft <-> siw interop plan again and again (not in CI): the evidence that it passes every time, not
# two boots in three. Counts the passes in a row and keeps the results of every failing boot (summary, guest
# log, rping logs, the packet capture of the veth and the guest's dmesg) in $W/interop-loop/fail-<n>.
#
#   deploy/qemu/interop-loop.sh [BOOTS]      # default 30; about 45 s a boot on 2 cores
#
# Stops at the first failure unless KEEP_GOING=1. Exit status 0 only when every boot passed.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
W="${QEMU_WORK:-$repo/.qemu-work}"
boots="${1:-30}"
log="$W/interop-loop"
mkdir -p "$W"; rm -rf "$log"; mkdir -p "$log"
bash "$repo/deploy/qemu/install-packages.sh"
bash "$repo/deploy/qemu/prepare-java.sh" "$W"
export QEMU_PREPARED=1
passed=0; failed=0; streak=0; best=0
for i in $(seq 1 "$boots"); do
  start=$(date +%s)
  if "$repo/deploy/qemu/run.sh" --siw "$repo/deploy/qemu/plans/interop.sh" > "$log/boot-$i.txt" 2>&1; then
    passed=$((passed + 1)); streak=$((streak + 1)); verdict=passed
  else
    failed=$((failed + 1)); streak=0; verdict=FAILED
    cp -r "$W/out" "$log/fail-$i"; cp "$W/console.log" "$log/fail-$i/"
  fi
  [ "$streak" -gt "$best" ] && best=$streak
  echo "boot $i: $verdict in $(( $(date +%s) - start )) s (passed $passed, failed $failed, in a row $streak)" | tee -a "$log/summary.txt"
  if [ "$verdict" = FAILED ] && [ "${KEEP_GOING:-0}" != 1 ]; then
    break
  fi
done
echo "interop loop: $passed of $((passed + failed)) boots passed, longest run of passes $best (results in $log)" | tee -a "$log/summary.txt"
[ "$failed" = 0 ] && [ "$passed" = "$boots" ]

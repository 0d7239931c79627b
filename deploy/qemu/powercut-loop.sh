#!/usr/bin/env bash
# Power cuts (issue 41 §1), outside CI: N times, a fresh disk image; a boot (plans/powercut.sh) that writes to four
# LUNs on it (file and RocksDB, write-through and write-back) with every step journalled to the host, and whose power
# is cut SECONDS after the writing began (QEMU killed: what the guest's page cache and the disk's volatile state
# held is gone, as in a power loss; the image keeps what reached it, cache=none); then a boot
# (plans/powercut-verify.sh) that mounts the disk, starts the daemon on it, and checks every block against the
# journal: acknowledged writes lost must be 0 on the write-through LUNs, and 0 after each acknowledged FUA write or
# SYNCHRONIZE CACHE on the write-back ones.
#
#   deploy/qemu/powercut-loop.sh [--cuts 10] [--after 20]       (root; about 3 minutes per cut)
#
# Prints a row per cut and the totals; each cut's reports are kept in $W/powercut-results/cut-N. Exit status 0 when
# every cut verified, 1 otherwise.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
W="${QEMU_WORK:-$repo/.qemu-work}"
cuts=10
after=20
while [ $# -gt 0 ]; do
  case "$1" in
    --cuts) cuts="$2"; shift 2 ;;
    --after) after="$2"; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
mkdir -p "$W"
if [ "${QEMU_PREPARED:-0}" != 1 ]; then
  bash "$repo/deploy/qemu/install-packages.sh"
  bash "$repo/deploy/qemu/prepare-java.sh" "$W"
fi
export QEMU_PREPARED=1
results="$W/powercut-results"
rm -rf "$results"; mkdir -p "$results"
image="$W/powercut.img"
failed=0
for cut in $(seq 1 "$cuts"); do
  keep="$results/cut-$cut"; mkdir -p "$keep"
  rm -f "$image"; truncate -s 1G "$image"
  if ! "$repo/deploy/qemu/run.sh" --timeout 900 --disk "$image" --cut-after powercut/writing "$after" \
      "$repo/deploy/qemu/plans/powercut.sh" > "$keep/write-boot.txt" 2>&1 || [ ! -e "$W/out/power-cut" ]; then
    cp -r "$W/out" "$keep/write-out" 2>/dev/null || true
    echo "cut $cut: the writing boot failed or was not cut ($keep/write-boot.txt)"; failed=$((failed + 1)); continue
  fi
  cp -r "$W/out" "$keep/write-out"
  rm -rf "$W/powercut-journal"; cp -r "$W/out/powercut" "$W/powercut-journal"
  if POWERCUT_JOURNAL="$W/powercut-journal" "$repo/deploy/qemu/run.sh" --timeout 900 --disk "$image" \
      "$repo/deploy/qemu/plans/powercut-verify.sh" > "$keep/verify-boot.txt" 2>&1; then
    verdict=verified
  else
    verdict="FAILED"; failed=$((failed + 1))
  fi
  cp -r "$W/out" "$keep/verify-out"
  echo "cut $cut: $verdict"
  sed 's/^/  /' "$W/out/powercut-verify.txt" 2>/dev/null || tail -20 "$keep/verify-boot.txt"
done
echo "power cuts: $cuts, after $after s of writing each; $((cuts - failed)) verified, $failed failed"
[ "$failed" = 0 ]

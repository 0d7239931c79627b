#!/usr/bin/env bash
# Boots Debian's own kernel under QEMU (software emulation) with the host's root filesystem shared read-only,
# brings up Soft-RoCE (rdma_rxe) on an in-guest veth pair (and, with --siw, the kernel's soft iWARP on another
# one), runs a test plan inside the guest and brings its results back. The guest has no QEMU network device:
# nothing leaves it.
#
#   deploy/qemu/run.sh [--siw] [--serve] [--timeout SECONDS] [--disk IMAGE] [--cut-after FILE SECONDS] [plan.sh]
#
# plan.sh (default: deploy/qemu/plans/verbs-native.sh) runs in the guest as root after the RDMA devices are up,
# with $OUT (the results folder, shared back to the host), $REPO (this checkout) and $W (the work folder) set;
# its `step NAME command...` helper logs each step's exit status and time to $OUT/summary.txt.
# --serve keeps the guest up after the plan and runs every script dropped into $W/out/inbox (developing).
# --disk gives the guest IMAGE (a raw file) as the virtio disk /dev/vda, without the host's cache (cache=none: what
# the guest writes and flushes is in the file when the flush returns). --cut-after cuts the guest's power: SECONDS
# after the plan makes $W/out/FILE, QEMU is killed (SIGKILL: no sync, no shutdown), $W/out/power-cut says when, and
# the boot counts as passed when no step failed before (deploy/qemu/powercut-loop.sh).
# The work folder is $QEMU_WORK or <repo>/.qemu-work (git-ignored); the guest console is in it (console.log).
# Needs root (apt-get, dpkg). One boot takes about a minute before the plan starts.
# QEMU_PREPARED=1 skips the package install and the build (the caller did them for this $W). COMPARE_* variables
# (plans/compare-lib.sh: rounds, runtime, warm-up of the fio comparisons against LIO and nvmet) and POWERCUT_* ones
# (plans/powercut.sh) reach the guest.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
W="${QEMU_WORK:-$repo/.qemu-work}"
siw=0; serve=0; timeout=840; plan="$repo/deploy/qemu/plans/verbs-native.sh"; disk=""; cut_file=""; cut_seconds=0
while [ $# -gt 0 ]; do
  case "$1" in
    --siw) siw=1 ;;
    --serve) serve=1; timeout=3600 ;;
    --timeout) timeout="$2"; shift ;;
    --disk) disk="$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"; shift ;;
    --cut-after) cut_file="$2"; cut_seconds="$3"; shift 2 ;;
    -*) echo "unknown option $1" >&2; exit 2 ;;
    *) plan="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")" ;;
  esac
  shift
done
mkdir -p "$W"
rm -rf "$W/out"; mkdir -p "$W/out/inbox"

if [ "${QEMU_PREPARED:-0}" != 1 ]; then # check.sh prepares once for its two boots
  bash "$repo/deploy/qemu/install-packages.sh"
  bash "$repo/deploy/qemu/prepare-java.sh" "$W"
fi

# ---- the kernel: exactly the package linux-image-amd64 depends on (a glob would pull every ABI)
KPKG=$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-6/{print $2; exit}')
KV=${KPKG#linux-image-}
if [ ! -f "$W/kpkg/boot/vmlinuz-$KV" ]; then
  rm -rf "$W/kpkg"; (cd "$W" && apt-get download -q "$KPKG" && dpkg -x "${KPKG}"_*.deb kpkg && rm -f "${KPKG}"_*.deb)
  depmod -b "$W/kpkg" "$KV"   # the .deb ships no modules.dep
fi
if [ "$siw" = 1 ] && [ ! -f "$W/siw/siw.ko" ]; then
  bash "$repo/deploy/qemu/build-siw.sh" "$W" "$KPKG"
fi

# ---- initramfs: busybox, the virtio/9p/overlay modules, and an init that switches to the shared host root
ird="$W/initramfs"; rm -rf "$ird"; mkdir -p "$ird"/{bin,dev,proc,sys,mods}
cp /bin/busybox "$ird/bin/"; mknod "$ird/dev/console" c 5 1
mods="virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev virtio_pci netfs fscache 9pnet 9pnet_virtio 9p overlay"
for m in $mods; do
  cp "$(modprobe -d "$W/kpkg" -S "$KV" -n -v "$m" | awk '{f=$2} END{print f}')" "$ird/mods/"
done
cat > "$ird/init" <<INIT
#!/bin/busybox sh
/bin/busybox --install -s /bin; export PATH=/bin
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
for m in $mods; do insmod /mods/\$m.ko; done
mkdir -p /lower /rw /newroot
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=524288,cache=loose hostroot /lower
mount -t tmpfs -o size=3g tmpfs /rw; mkdir -p /rw/u /rw/w
mount -t overlay overlay -o lowerdir=/lower,upperdir=/rw/u,workdir=/rw/w /newroot
mkdir -p /newroot/usr/lib/modules/$KV /newroot/mnt/out
mount --bind /newroot$W/kpkg/lib/modules/$KV /newroot/usr/lib/modules/$KV
mount -t 9p -o trans=virtio,version=9p2000.L,cache=none out /newroot/mnt/out
for d in proc sys dev; do mount --move /\$d /newroot/\$d; done
exec switch_root /newroot /bin/bash $repo/deploy/qemu/guest.sh
INIT
chmod +x "$ird/init"
(cd "$ird" && find . | cpio -o -H newc 2>/dev/null | gzip -1) > "$W/initrd.gz"
printf 'REPO=%q\nW=%q\nPLAN=%q\nSIW=%s\nSERVE=%s\n' "$repo" "$W" "$plan" "$siw" "$serve" > "$W/out/guest.env"
# the compare runs' settings (plans/compare-lib.sh: check.sh's single round, a bench's three) and the power cut's
for v in $(compgen -e | grep -E '^(COMPARE|POWERCUT)_' || true); do printf 'export %s=%q\n' "$v" "${!v}" >> "$W/out/guest.env"; done

echo "booting $KV under QEMU (TCG); plan $(basename "$plan"); console: $W/console.log" >&2
start=$(date +%s)
drive=()
[ -z "$disk" ] || drive=(-drive "file=$disk,format=raw,if=virtio,cache=none")
rm -f "$W/qemu.pid"
cutter=""
if [ -n "$cut_file" ]; then
  (
    for _ in $(seq 1 $((timeout * 10))); do [ -e "$W/out/$cut_file" ] && break; sleep 0.1; done
    [ -e "$W/out/$cut_file" ] || exit 0
    sleep "$cut_seconds"
    kill -KILL "$(cat "$W/qemu.pid")" 2>/dev/null || exit 0
    date +%s.%N > "$W/out/power-cut"
    echo "power cut: QEMU killed $cut_seconds s after $cut_file appeared" >&2
  ) &
  cutter=$!
fi
set +e
# no_timer_check: under emulation on a loaded host the kernel's early check that timer interrupts reach the
# IO-APIC can miss its window and panic ("IO-APIC + timer doesn't work!", seen once in 22 interop-loop boots while
# a build ran beside it); the parameter exists for virtual machines, whose timers are not in question.
# Single-threaded TCG: with multi-threaded TCG (QEMU 7.2), JVMs in the guest crashed in about 1 run in 20 with
# SIGSEGV/SIGILL at the entry of freshly JIT-compiled methods (code written on one vCPU, run on another); 0 in
# 60 runs single-threaded. QEMU_TCG_THREADS=multi is faster for runs that start few JVMs.
timeout --kill-after=10 "$timeout" qemu-system-x86_64 -accel tcg,thread=${QEMU_TCG_THREADS:-single} -cpu ${QEMU_CPU:-max} -m 6144 -smp 2 -machine q35 \
  -kernel "$W/kpkg/boot/vmlinuz-$KV" -initrd "$W/initrd.gz" -append "console=ttyS0 panic=-1 loglevel=4 no_timer_check" \
  -virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
  -virtfs local,path="$W/out",mount_tag=out,security_model=none \
  "${drive[@]}" -pidfile "$W/qemu.pid" \
  -nic none -display none -nographic -serial mon:stdio -monitor none -no-reboot </dev/null > "$W/console.log" 2>&1
rc=$?
[ -z "$cutter" ] || { kill "$cutter" 2>/dev/null; wait "$cutter" 2>/dev/null; }
set -e
echo "guest ran $(( $(date +%s) - start )) s (qemu exit $rc)" >&2
if [ ! -f "$W/out/summary.txt" ]; then
  echo "no results came back; the console's end:" >&2; tail -30 "$W/console.log" >&2; exit 1
fi
cat "$W/out/summary.txt"
# a failed step's own output (guest.log, between its BEGIN line and its rc line), its end, so a CI log says why
for failed in $(awk '/ rc=[1-9]/{print $1}' "$W/out/summary.txt"); do
  echo "---- the end of step $failed's output:"
  awk -v n="$failed" '$0 ~ "^=== BEGIN " n ":" {on=1; buf=""; next} on && $0 ~ "^" n " rc=" {on=0; out=buf} on {buf=buf $0 "\n"} END {printf "%s", out}' \
    "$W/out/guest.log" | tail -40
done
if [ -e "$W/out/power-cut" ]; then # cut on purpose: the plan ended there
  ! grep -q ' rc=[1-9]' "$W/out/summary.txt"; exit
fi
# the plan's verdict: every step recorded rc=0
! grep -q ' rc=[1-9]' "$W/out/summary.txt" && grep -q '^plan done' "$W/out/summary.txt"

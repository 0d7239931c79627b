#!/usr/bin/env bash
# Installs what the QEMU harness and the native provider's bindings need, from Debian's packages (root). fence-agents:
# Pacemaker's fence_scsi, which plans/pr.sh runs against LIO and our target. multipath-tools: dm-multipath's multipath
# and multipathd over our two SRP ports (plans/multipath.sh).
set -euo pipefail
need="qemu-system-x86 busybox-static kmod cpio iproute2 rdma-core ibverbs-providers ibverbs-utils rdmacm-utils
      perftest libibverbs-dev librdmacm-dev fio sg3-utils nvme-cli util-linux python3
      fence-agents multipath-tools"
missing=""
for p in $need; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
if [ -n "$missing" ]; then
  echo "installing:$missing" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q >&2
  apt-get install -y -q --no-install-recommends $missing >&2
fi

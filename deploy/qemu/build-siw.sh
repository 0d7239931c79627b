#!/usr/bin/env bash
# Builds the kernel's soft iWARP driver (siw), which Debian's kernel does not build (CONFIG_RDMA_SIW unset), as an
# out-of-tree module for the guest kernel: from Debian's linux-source package of exactly the kernel's version,
# against the matching linux-headers package. Usage: build-siw.sh <work dir> <linux-image package name>
set -euo pipefail
W="$1"; KPKG="$2"; KV=${KPKG#linux-image-}
version=$(apt-cache show "$KPKG" | awk '/^Version:/{print $2; exit}')
major=$(echo "$KV" | cut -d. -f1-2)
export DEBIAN_FRONTEND=noninteractive
dpkg -s "linux-headers-$KV" >/dev/null 2>&1 || apt-get install -y -q --no-install-recommends "linux-headers-$KV=$version" gcc make >&2
src="$W/siw-src"
if [ ! -d "$src/drivers/infiniband/sw/siw" ]; then
  rm -rf "$src"; mkdir -p "$src"
  (cd "$W" && apt-get download -q "linux-source-$major=$version" && dpkg -x linux-source-"$major"_*.deb "$W/linux-source" \
     && rm -f linux-source-"$major"_*.deb)
  tar -xf "$W/linux-source/usr/src/linux-source-$major.tar.xz" -C "$src" --strip-components=1 \
      "linux-source-$major/drivers/infiniband/sw/siw"
  rm -rf "$W/linux-source"
fi
make -s -C "/usr/src/linux-headers-$KV" M="$src/drivers/infiniband/sw/siw" CONFIG_RDMA_SIW=m modules >&2
mkdir -p "$W/siw"; cp "$src/drivers/infiniband/sw/siw/siw.ko" "$W/siw/"
echo "built $W/siw/siw.ko for $KV" >&2

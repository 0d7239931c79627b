#!/usr/bin/env bash
# Regenerates the native provider's FFM bindings (verbs/src/generated/java/org/rdmablock/verbs/ibv/bindings) from
# rdma-core's headers with jextract, using the committed options in bindings.args.
# Needs: jextract for JDK 25 on PATH (built against libclang 13: Debian's libclang-13-dev; newer libclang emits
# uncompilable names for the anonymous unions in ibv_send_wr), and the headers from libibverbs-dev and
# librdmacm-dev. The generated sources are committed; run this only to change what the bindings cover.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="$here/../src/generated/java"
command -v jextract >/dev/null || { echo "error: jextract is not on PATH" >&2; exit 1; }
[ -f /usr/include/infiniband/verbs.h ] && [ -f /usr/include/rdma/rdma_cma.h ] \
  || { echo "error: install libibverbs-dev and librdmacm-dev (the rdma-core headers)" >&2; exit 1; }
rm -rf "$out/org/rdmablock/verbs/ibv/bindings"
jextract --output "$out" @"$here/bindings.args" "$here/rdma.h"
echo "generated into $out/org/rdmablock/verbs/ibv/bindings ($(ls "$out/org/rdmablock/verbs/ibv/bindings" | wc -l) files)"

#!/bin/bash
# The distribution archive (deploy/build/rdmablock-VERSION.tar.gz, built by prepare-java.sh) as deploy/README.md
# installs it: unpacked, the daemon started from its launcher on the native provider over rxe0, its metrics scraped,
# SIGTERM answered with exit status 0, and the unit checked by systemd-analyze verify (deploy/check-archive.sh).
archive_native() {
  local archive
  archive=$(ls $REPO/deploy/build/rdmablock-*.tar.gz 2>/dev/null | head -1)
  [ -f "$archive" ] || { echo "no archive under $REPO/deploy/build (prepare-java.sh builds it)"; return 1; }
  bash $REPO/deploy/check-archive.sh "$archive" native 192.0.2.15
}
step archive_native archive_native

#!/usr/bin/env bash
# Sourced by prepare-java.sh (host side, after its build; $repo, $W and the JDK set): daemon_archive writes a
# class-data-sharing archive of the daemon's classes, $W/java/daemon.jsa, that the guest's daemons and
# `rdmablock admin` calls map instead of loading and verifying each class (daemon-lib.sh). Under TCG a JVM start
# costs tens of seconds, most of it in class loading; here it costs about one. Trained on the soft provider on
# loopback with a file, a RocksDB and a memory LUN, asked for its status over the management socket and stopped by
# SIGTERM, when the JVM writes the archive. The guest runs the same JDK on the same jar paths; where anything differs
# the JVM ignores the archive and loads classes as usual. Failing here fails nothing: there is no archive then.
daemon_archive() (
set +e
out="$W/java/daemon.jsa"
rm -f "$out"
work="$(mktemp -d "${TMPDIR:-/tmp}/rdmablock-cds.XXXXXX")"
trap 'rm -rf "$work"' EXIT
# the guest's own daemon helpers, run here: no archive yet, errors of a crashing JVM into the work folder
REPO=$repo JAVA=java OUT=$work DAEMON_CDS=
. "$repo/deploy/qemu/plans/daemon-lib.sh"
{
  printf '[listen]\nprovider = "soft"\naddress = "127.0.0.1"\nport = %d\n' $((20000 + RANDOM % 20000))
  printf '[admin]\nsocket = "%s/admin.sock"\n' "$work"
  daemon_luns "$work" 4 0:file:512 1:rocksdb:512 2:memory:512
} > "$work/target.toml"
if daemon_start "$work" "$work/daemon.log" 1 "-XX:ArchiveClassesAtExit=$out -Xlog:cds*=off -Xlog:aot*=off" > /dev/null; then
  daemon_admin "$work" status > /dev/null 2>&1
fi
kill -TERM "$(cat "$work/target.pid")" 2>/dev/null
wait
if [ -s "$out" ]; then
  echo "daemon-archive: $out ($(( $(stat -c %s "$out") / 1048576 )) MiB)" >&2
else
  echo "daemon-archive: no archive (the daemon's output: $(tail -3 "$work/daemon.log" | tr '\n' ' '))" >&2
fi
)

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
cp="$repo/target/build/rdmablock-target.jar:$repo/target/build/lib/*"
port=$((20000 + RANDOM % 20000))
cat > "$work/target.toml" <<TOML
[listen]
provider = "soft"
address = "127.0.0.1"
port = $port
[admin]
socket = "$work/admin.sock"
[[lun]]
number = 0
backend = "file"
size = "4MiB"
path = "$work/lun0.file"
create = true
[[lun]]
number = 1
backend = "rocksdb"
size = "4MiB"
path = "$work/lun1.rocksdb"
create = true
[[lun]]
number = 2
backend = "memory"
size = "4MiB"
TOML
java -XX:ArchiveClassesAtExit="$out" -Xlog:cds*=off -Xlog:aot*=off --enable-native-access=ALL-UNNAMED -Xmx1g \
  -cp "$cp" org.rdmablock.target.TargetMain target --config "$work/target.toml" > "$work/daemon.log" 2>&1 &
pid=$!
for _ in $(seq 1 120); do grep -q '^reach it' "$work/daemon.log" && break; kill -0 $pid 2>/dev/null || break; sleep 0.5; done
if grep -q '^reach it' "$work/daemon.log"; then
  java --enable-native-access=ALL-UNNAMED -cp "$cp" org.rdmablock.target.TargetMain admin --socket "$work/admin.sock" status > /dev/null 2>&1
fi
kill -TERM $pid 2>/dev/null
wait $pid
if [ -s "$out" ]; then
  echo "daemon-archive: $out ($(( $(stat -c %s "$out") / 1048576 )) MiB)" >&2
else
  echo "daemon-archive: no archive (the daemon's output: $(tail -3 "$work/daemon.log" | tr '\n' ' '))" >&2
fi
)

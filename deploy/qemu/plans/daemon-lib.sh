#!/bin/bash
# Sourced by ib-srp.sh and nvme-rdma.sh: our daemon in the guest, run from the built jar on a config the plan writes,
# Linux ib_srp's add_target for it, and a test file for the compare checks.
DAEMON_JAR=${DAEMON_JAR:-$REPO/target/build/rdmablock-target.jar}
# the daemon and `rdmablock admin` map their classes from the archive daemon-archive.sh wrote on the host (a JVM start
# under TCG costs tens of seconds, most of it loading classes); the JVM ignores an archive that does not match, and
# says nothing of it here. DAEMON_CDS= turns it off
DAEMON_CDS=${DAEMON_CDS-$([ -f $W/java/daemon.jsa ] && echo "-XX:SharedArchiveFile=$W/java/daemon.jsa -Xlog:cds*=off -Xlog:aot*=off")}

# daemon_luns <dir> <size MiB> <n:backend:block size>...: a [[lun]] each, the file and rocksdb ones kept in <dir>
daemon_luns() {
  local dir=$1 mib=$2 l n b bs
  shift 2
  for l in "$@"; do
    IFS=: read -r n b bs <<< "$l"
    printf '[[lun]]\nnumber = %d\nbackend = "%s"\nsize = "%dMiB"\nblock_size = %d\n' $n $b $mib $bs
    [ $b = memory ] || printf 'path = "%s/lun%d.%s"\ncreate = true\n' $dir $n $b
  done
}

# flipped_copy <file> <bytes> <offset> <to>: the first <bytes> of <file> into <to>, with the byte at <offset> inverted
# (a compare against it must find exactly that difference)
flipped_copy() {
  local b
  head -c $2 $1 > $4
  b=$(od -An -tu1 -j $3 -N 1 $4 | tr -d ' ')
  printf "\\$(printf %03o $((b ^ 255)))" | dd of=$4 bs=1 seek=$3 conv=notrunc status=none
}

# daemon_start <dir> <log> [n] [java options]: starts the daemon on <dir>/target.toml in the background (its pid in
# <dir>/target.pid, its output appended to <log>); waits for its n-th ready line (the "reach it" one; default: the first)
daemon_start() {
  local dir=$1 log=$2 n=${3:-1} opts=${4:-} i
  $JAVA -XX:ErrorFile=$OUT/hs_err_pid%p.log --enable-native-access=ALL-UNNAMED -Xmx1g $DAEMON_CDS $opts \
    -cp "$DAEMON_JAR:$REPO/target/build/lib/*" org.rdmablock.target.TargetMain target --config $dir/target.toml \
    >> $log 2>&1 &
  echo $! > $dir/target.pid
  for i in $(seq 1 180); do
    [ "$(grep -c '^reach it' $log)" -ge "$n" ] && return 0
    kill -0 "$(cat $dir/target.pid)" 2>/dev/null || { echo "target exited"; tail -20 $log; return 1; }
    sleep 1
  done
  echo "target not ready after 180 s"; return 1
}

# daemon_gone <pid>: waits up to 30 s for the process to end; says so and fails if it does not
daemon_gone() {
  local i
  for i in $(seq 1 60); do kill -0 $1 2>/dev/null || return 0; sleep 0.5; done
  echo "the daemon (pid $1) did not end in 30 s"; return 1
}

# daemon_stop <dir> [signal]: sends the daemon of <dir>/target.pid the signal (default TERM) and waits for its end
daemon_stop() {
  local pid
  pid=$(cat $1/target.pid)
  kill -${2:-TERM} $pid
  daemon_gone $pid
}

# daemon_admin <dir> <verb>...: bin/rdmablock admin on the daemon's management socket <dir>/admin.sock; a JVM that
# lives for one request: C1 only and the serial collector (no C2 or GC threads taking the emulated CPU), a third faster
daemon_admin() {
  local dir=$1
  shift
  $JAVA $DAEMON_CDS -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -cp "$DAEMON_JAR:$REPO/target/build/lib/*" org.rdmablock.target.TargetMain admin --socket $dir/admin.sock "$@"
}

# daemon_target_line <log>: the target part of the last add_target line our daemon printed in <log> (id_ext, ioc_guid,
# dest), matched whole, so that a line another write broke into is no target (TargetMain prints it in one write)
daemon_target_line() {
  grep -oE 'echo id_ext=[0-9a-f]{16},ioc_guid=[0-9a-f]{16},dest=[0-9.]+:[0-9]+ > ' $1 | tail -1 | sed 's/^echo //; s/ > $//'
}

# srp_add_target <log> [target] [options] [initiator_ext]: ib_srp's add_target for the target (id_ext, ioc_guid, dest;
# default: the line our daemon printed in <log>), with initiator_ext (hex; default: this port's GID prefix), source
# address 192.0.2.15 and ",options" if given. Each initiator_ext is an I_T nexus of its own (pr.sh logs in with three).
srp_add_target() {
  local log=$1 line=${2:-} options=${3:-} ext=${4:-} gid0 g
  gid0=$(cat /sys/class/infiniband/rxe0/ports/1/gids/0); g=${gid0//:}
  [ -n "$line" ] || line=$(daemon_target_line $log)
  [ -n "$line" ] || { echo "no add_target line in $log"; return 1; }
  line="$line,initiator_ext=${ext:-${g:0:16}},src=192.0.2.15${options:+,$options}"
  echo "$line" > /sys/class/infiniband_srp/srp-rxe0-1/add_target \
    || { echo "add_target refused $line; the kernel's last words:"; dmesg | tail -5; return 1; }
}

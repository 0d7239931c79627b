#!/bin/bash
# dm-multipath over two SRP target ports of our daemon, with implicit ALUA (issue 40 section 3): a daemon with one
# memory LUN listens on rxe0's netdev twice, [listen] at 192.0.2.15 (relative target port 1, target port group 1,
# active/optimized) and [[port]] 2 at a second address, 192.0.2.16 (group 2, active/non-optimized). Linux's ib_srp
# logs in through both ports (one initiator_ext each: ib_srp refuses a second login with the same id_ext, ioc_guid and
# initiator_ext), so the one LUN is two sd devices; the kernel's scsi_dh_alua attaches to both, and multipath-tools
# (prio alua, hardware_handler "1 alua", group_by_prio, failback immediate) must make one map of them with two path
# groups: prio 50 over port 1, active, and prio 10 over port 2. Then fio writes 4 KiB blocks at random over the map
# and reads each back (crc32c) while `rdmablock admin port down 1` takes the optimized path away as a pulled cable
# would: fio must finish without an error, multipath -ll must show the port-1 path failed, and the port-2 disk's
# counters must show that the writes went through it. `port up 1`: ib_srp reconnects by itself (reconnect_delay
# 2 s), multipathd's checker reinstates the path, failback makes the port-1 group active again, and a read through
# the map is counted on the port-1 disk, none on the port-2 one. What was seen (multipath -ll before, during and after,
# fio's summary, the I/O counters, the times) goes to $OUT/multipath.md; every output to $OUT/multipath/.
#
# Sourced by ib-srp.sh (after pr.sh, while its daemon and its ib_srp login are up): this daemon is a second one, on
# port $MP_PORT, with an id_ext of its own (the default one derives from the port), and multipath.conf blacklists
# every WWID but this LUN's, so ib-srp.sh's disks are left alone. Run as a plan of its own (deploy/qemu/run.sh
# deploy/qemu/plans/multipath.sh) it also loads sd_mod and ib_srp. The guest runs no udev by default: udevd is started
# for these steps (multipath takes a path's WWID from udev's ID_SERIAL, libdevmapper syncs with udev) and stopped
# after them. Leaves ib_srp, the daemons and rdma0 as it found them: its map flushed, its two logins deleted, its
# daemon, multipathd and udevd stopped, the second address removed.
MP_DIR=/tmp/multipath                 # the guest's tmpfs overlay
MP_OUTD=$OUT/multipath
MP_LOG=$MP_OUTD/target.log
MP_PORT=5559                          # ib-srp.sh's daemon has 5556, LIO's ib_srpt 5555, nvme-rdma.sh's 5557
MP_ADDR1=192.0.2.15                   # rdma0's own (guest.sh)
MP_ADDR2=192.0.2.16                   # added for port 2; rxe adds its GID (an IPv4-mapped one) by itself
# initiator_ext of the login through port 1 and through port 2 (two I_T nexuses, each through its own port)
MP_EXT1=00000000000000e1
MP_EXT2=00000000000000e2
MP_LUN=0
# fio: 12 MiB of 4 KiB random writes (each block once) at 150 writes a second, about 20 s, then every block read back
# and checked; port 1 goes down MP_DOWN_AFTER seconds in
MP_FIO_SIZE=12m
MP_FIO_RATE=150
MP_DOWN_AFTER=10
. $REPO/deploy/qemu/plans/daemon-lib.sh

# ---- helpers

# mp_t <name>: the seconds since the plan began (MP_T0), kept in $MP_OUTD/times as "<name> <seconds>"
mp_t() { printf '%s %.1f\n' $1 $(awk "BEGIN{print $EPOCHREALTIME - $MP_T0}") >> $MP_OUTD/times; }
# mp_time <name>: what mp_t recorded
mp_time() { awk -v n=$1 '$1 == n {print $2}' $MP_OUTD/times | tail -1; }

# the netdev under rxe0 (guest.sh's rdma0)
mp_netdev() { rdma link show rxe0/1 | sed -n 's/.* netdev \([^ ]*\).*/\1/p'; }

# mp_rpc <method>: the daemon's JSON-RPC answer to <method> (no parameters), one JSON object a line; python3 rather
# than `rdmablock admin`, whose JVM takes 10 - 20 s to start in the guest (the port changes go through it)
mp_rpc() {
  python3 - $MP_DIR/admin.sock $1 <<'PY'
import json, socket, sys
s = socket.socket(socket.AF_UNIX)
s.settimeout(30)
s.connect(sys.argv[1])
s.sendall((json.dumps({"jsonrpc": "2.0", "id": 1, "method": sys.argv[2], "params": {}}) + "\n").encode())
buf = b""
while not buf.endswith(b"\n"):
    chunk = s.recv(65536)
    if not chunk:
        break
    buf += chunk
answer = json.loads(buf)
if "error" in answer:
    print("error: %s" % answer["error"])
    sys.exit(1)
result = answer["result"]
for row in (result if isinstance(result, list) else [result]):
    print(json.dumps(row, sort_keys=True))
PY
}

# mp_relay <socket> <daemon's socket> <held> <go>: a relay for one management request, so that `rdmablock admin port
# down 1` takes the port down at a chosen moment: the client's JVM needs 20 - 50 s to start in the guest (50 beside
# fio), so it is started before fio and connects here; its request line is written to <held> and kept until <go>
# exists, then passed to the daemon, whose answer goes back to the client
mp_relay() {
  python3 - "$@" <<'PY'
import os, socket, sys, time
relay, daemon, held, go = sys.argv[1:5]
server = socket.socket(socket.AF_UNIX)
server.bind(relay)
server.listen(1)
server.settimeout(300)
client, _ = server.accept()
client.settimeout(60)
request = b""
while not request.endswith(b"\n"):
    chunk = client.recv(65536)
    if not chunk:
        sys.exit("the client closed before its request")
    request += chunk
with open(held, "w") as f:
    f.write(request.decode())
deadline = time.time() + 300
while not os.path.exists(go):
    if time.time() > deadline:
        sys.exit("not released in 300 s")
    time.sleep(0.05)
upstream = socket.socket(socket.AF_UNIX)
upstream.settimeout(60)
upstream.connect(daemon)
upstream.sendall(request)
answer = b""
while not answer.endswith(b"\n"):
    chunk = upstream.recv(65536)
    if not chunk:
        break
    answer += chunk
client.sendall(answer)
client.close()
print("relayed %s answered %s" % (request.decode().strip(), answer.decode().strip()))
PY
}

# mp_wait_pid <pid> <seconds>: waits (bounded) until process <pid> has ended; fails if it has not
mp_wait_pid() {
  local i
  for i in $(seq 1 $(($2 * 2))); do kill -0 $1 2>/dev/null || return 0; sleep 0.5; done
  return 1
}

# mp_paths: multipath -ll of the map, a line per path: "<sd> <group prio> <group status> <dm state> <checker state>"
mp_paths() {
  multipath -ll $MP_WWID 2>/dev/null | awk '
    /prio=/ {for (i = 1; i <= NF; i++) {if ($i ~ /^prio=/) p = substr($i, 6); if ($i ~ /^status=/) s = substr($i, 8)}; next}
    {for (i = 1; i < NF; i++) if ($i ~ /^sd[a-z]+$/ && $(i + 1) ~ /^[0-9]+:[0-9]+$/) print $i, p, s, $(i + 2), $(i + 3)}'
}

# mp_path_is <path 1|2> <prio> <group status> <dm state>: whether mp_paths shows that path so ("-": any)
mp_path_is() {
  local dev p s d
  dev=$(mp_sd $1)
  read -r _ p s d _ < <(mp_paths | awk -v d=$dev '$1 == d')
  [ -n "$p" ] && { [ $2 = - ] || [ "$p" = $2 ]; } && { [ $3 = - ] || [ "$s" = $3 ]; } && { [ $4 = - ] || [ "$d" = $4 ]; }
}

# mp_wait_paths <seconds> <what> <path> <prio> <status> <dm state> [<path> <prio> <status> <dm state>]: waits
# (bounded) until multipath -ll shows the path(s) so
mp_wait_paths() {
  local secs=$1 what=$2 i ok
  shift 2
  for i in $(seq 1 $((secs * 2))); do
    ok=1
    mp_path_is $1 $2 $3 $4 || ok=0
    [ $# -lt 8 ] || mp_path_is $5 $6 $7 $8 || ok=0
    [ $ok = 1 ] && return 0
    sleep 0.5
  done
  echo "multipath -ll did not show $what in $secs s:"; multipath -ll $MP_WWID; return 1
}

# mp_ll <name>: multipath -ll of the map into $MP_OUTD/ll-<name>.txt (and the log)
mp_ll() { multipath -ll $MP_WWID 2>&1 | tee $MP_OUTD/ll-$1.txt; }

# the SCSI host and the disk of the login through port $1 (written by mp_login)
mp_host() { cut -d' ' -f1 $MP_DIR/path$1; }
mp_sd() { cut -d' ' -f2 $MP_DIR/path$1; }

# mp_stat <path>: the disk's reads and writes completed (/sys/block/<sd>/stat fields 1 and 5)
mp_stat() { awk '{print $1, $5}' /sys/block/$(mp_sd $1)/stat; }

# mp_counters <name>: both disks' counters, a line "<name> <reads 1> <writes 1> <reads 2> <writes 2>" in
# $MP_OUTD/counters
mp_counters() { echo "$1 $(mp_stat 1) $(mp_stat 2)" | tee -a $MP_OUTD/counters; }
# mp_count <name> <path> <reads|writes>: what mp_counters recorded
mp_count() {
  local f=$(( 2 + ($2 - 1) * 2 ))
  [ $3 = reads ] || f=$((f + 1))
  awk -v n=$1 -v f=$f '$1 == n {print $f}' $MP_OUTD/counters | tail -1
}

# mp_login <path> <target line> <ext>: ib_srp logs in through that port with initiator_ext <ext>, a SCSI host of its
# own; its host and the disk of the LUN go to $MP_DIR/path<path> ("host sd"). As pr.sh's pr_login: the host new after
# add_target is this login's; sd attaches asynchronously, hence the bounded wait.
mp_login() {
  local path=$1 line=$2 ext=$3 before h host="" i d
  before=" $(ls /sys/class/scsi_host | tr '\n' ' ')"
  srp_add_target $MP_LOG "$line" "" $ext || { echo "add_target through port $path ($line) failed"; return 1; }
  for h in $(ls /sys/class/scsi_host); do [[ $before == *" $h "* ]] || host=${h#host}; done
  [ -n "$host" ] || { echo "no new SCSI host after add_target through port $path"; return 1; }
  for i in $(seq 1 120); do
    for d in /sys/class/scsi_device/$host:*:*:$MP_LUN/device/block/sd*; do
      [ -b /dev/${d##*/} ] || continue
      echo "$host ${d##*/}" > $MP_DIR/path$path
      echo "port $path: $line, initiator_ext=$ext: SCSI host $host, LUN $MP_LUN is /dev/${d##*/}"
      return 0
    done
    sleep 0.5
  done
  echo "LUN $MP_LUN of SCSI host $host (port $path) did not appear"; ls /sys/class/scsi_device; return 1
}

# ---- the steps

# the second address, udevd, the daemon with two ports, the modules dm-multipath and ALUA need
mp_up() (
  set -eo pipefail
  local nd i
  rm -rf $MP_DIR $MP_OUTD; mkdir -p $MP_DIR $MP_OUTD
  : > $MP_OUTD/times
  echo "multipath.sh: begin" > /dev/kmsg
  nd=$(mp_netdev)
  [ -n "$nd" ] || { echo "rxe0 has no netdev"; rdma link; exit 1; }
  ip addr add $MP_ADDR2/24 dev $nd
  # rxe's GID table takes the address as ::ffff:192.0.2.16 (c000:0210)
  for i in $(seq 1 20); do grep -qs 'ffff:c000:0210$' /sys/class/infiniband/rxe0/ports/1/gids/* && break; sleep 0.5; done
  grep -qs 'ffff:c000:0210$' /sys/class/infiniband/rxe0/ports/1/gids/* \
    || { echo "rxe0 has no GID for $MP_ADDR2 after 10 s"; exit 1; }
  echo "$nd: $MP_ADDR1 and $MP_ADDR2; rxe0's GIDs: $(grep -hsv '^[0:]*$' /sys/class/infiniband/rxe0/ports/1/gids/* | paste -sd' ')"
  # udevd for the disks this plan adds (names resolved by nobody: the guest has no NSS setup to speak of)
  /lib/systemd/systemd-udevd --resolve-names=never > $MP_OUTD/udevd.log 2>&1 &
  echo $! > $MP_DIR/udevd.pid
  for i in $(seq 1 20); do [ -S /run/udev/control ] && break; sleep 0.5; done
  [ -S /run/udev/control ] || { echo "udevd did not start"; cat $MP_OUTD/udevd.log; exit 1; }
  modprobe -a sd_mod ib_srp scsi_dh_alua dm_multipath dm_service_time
  {
    printf '[listen]\nprovider = "native"\naddress = "%s"\nport = %d\ngroup = 1\n' $MP_ADDR1 $MP_PORT
    printf '[[port]]\nid = 2\naddress = "%s"\ngroup = 2\n' $MP_ADDR2
    printf '[[port_group]]\nid = 1\nstate = "active/optimized"\n'
    printf '[[port_group]]\nid = 2\nstate = "active/non-optimized"\n'
    printf '[pipeline]\ncompletions = "event"\nbackend_threads = 0\nblocking_threads = 0\n'
    printf '[admin]\nsocket = "%s/admin.sock"\n' $MP_DIR
    daemon_luns $MP_DIR 64 $MP_LUN:memory:512
  } > $MP_DIR/target.toml
  cp $MP_DIR/target.toml $MP_OUTD/target.toml
  : > $MP_LOG
  daemon_start $MP_DIR $MP_LOG
  mp_rpc ports | tee $MP_OUTD/ports-before.txt
  [ "$(grep -c '"listening": true' $MP_OUTD/ports-before.txt)" = 2 ] || { echo "the daemon does not listen on two ports"; exit 1; }
)

# ib_srp through both ports; the rports' timeouts for a quick failover; what the kernel's ALUA handler made of them
mp_logins() (
  set -eo pipefail
  local line p h
  line=$(daemon_target_line $MP_LOG)
  [[ $line == *",dest=$MP_ADDR1:$MP_PORT" ]] || { echo "the daemon printed no add_target line for $MP_ADDR1:$MP_PORT: '$line'"; exit 1; }
  mp_login 1 "$line" $MP_EXT1
  mp_login 2 "${line/dest=$MP_ADDR1:/dest=$MP_ADDR2:}" $MP_EXT2
  [ "$(mp_sd 1)" != "$(mp_sd 2)" ] || { echo "both logins gave one disk"; exit 1; }
  # I/O on a failed path fails over after 2 s (ib_srp's fast_io_fail_tmo: 15 s) and ib_srp tries to reconnect every
  # 2 s (10 s); the disk stays 300 s (dev_loss_tmo: 600 s) beyond the port down and up
  for p in 1 2; do
    h=/sys/class/srp_remote_ports/port-$(mp_host $p):1
    echo 2 > $h/fast_io_fail_tmo; echo 2 > $h/reconnect_delay; echo 300 > $h/dev_loss_tmo
    echo "path $p: $(mp_sd $p), $(basename $h) $(cat $h/state), reconnect_delay $(cat $h/reconnect_delay)," \
         "fast_io_fail_tmo $(cat $h/fast_io_fail_tmo), dev_loss_tmo $(cat $h/dev_loss_tmo)," \
         "handler $(cat /sys/block/$(mp_sd $p)/device/dh_state)," \
         "access state $(cat /sys/block/$(mp_sd $p)/device/access_state 2>/dev/null)" | tee -a $MP_OUTD/paths.txt
  done
  for p in 1 2; do
    sg_vpd -p di /dev/$(mp_sd $p) > $MP_OUTD/vpd-di-path$p.txt 2>&1 || echo "sg_vpd exited $?" >> $MP_OUTD/vpd-di-path$p.txt
    sg_rtpg -d /dev/$(mp_sd $p) > $MP_OUTD/rtpg-path$p.txt 2>&1 || echo "sg_rtpg exited $?" >> $MP_OUTD/rtpg-path$p.txt
  done
  cat $MP_OUTD/vpd-di-path1.txt $MP_OUTD/rtpg-path1.txt
  [ "$(cat /sys/block/$(mp_sd 1)/device/dh_state)" = alua ] && [ "$(cat /sys/block/$(mp_sd 2)/device/dh_state)" = alua ] \
    || { echo "scsi_dh_alua is not attached to both paths"; exit 1; }
)

# multipath.conf for this LUN alone, multipathd, one map of two path groups
mp_map() (
  set -eo pipefail
  local i s1 s2
  udevadm settle --timeout=60
  s1=$(udevadm info --query=property --name=/dev/$(mp_sd 1) | sed -n 's/^ID_SERIAL=//p')
  s2=$(udevadm info --query=property --name=/dev/$(mp_sd 2) | sed -n 's/^ID_SERIAL=//p')
  [ -n "$s1" ] && [ "$s1" = "$s2" ] || { echo "udev's ID_SERIAL of the paths: '$s1' and '$s2', not one WWID"; exit 1; }
  echo "$s1" > $MP_DIR/wwid
  echo "WWID (ID_SERIAL) of both paths: $s1"
  cat > /etc/multipath.conf <<CONF
defaults {
    user_friendly_names no
    find_multipaths no
    polling_interval 2
}
blacklist {
    wwid ".*"
}
blacklist_exceptions {
    wwid "^$s1\$"
}
devices {
    device {
        vendor "RDMABLK"
        product ".*"
        path_grouping_policy group_by_prio
        prio alua
        hardware_handler "1 alua"
        failback immediate
        no_path_retry 30
    }
}
CONF
  cp /etc/multipath.conf $MP_OUTD/multipath.conf
  multipathd -d -s > $MP_OUTD/multipathd.log 2>&1 &
  echo $! > $MP_DIR/multipathd.pid
  MP_WWID=$s1
  for i in $(seq 1 60); do
    [ -b /dev/mapper/$MP_WWID ] && [ "$(mp_paths | wc -l)" = 2 ] && break
    kill -0 $(cat $MP_DIR/multipathd.pid) || { echo "multipathd exited"; tail -20 $MP_OUTD/multipathd.log; exit 1; }
    sleep 0.5
  done
  [ -b /dev/mapper/$MP_WWID ] || { echo "no map /dev/mapper/$MP_WWID after 30 s"; multipath -v3 2>&1 | tail -60; exit 1; }
  mp_wait_paths 30 "port 1's path in the active prio 50 group, port 2's in the prio 10 one" \
    1 50 active active 2 10 enabled active || { multipath -v3 2>&1 | tail -60; exit 1; }
  mp_ll before
  [ "$(grep -c 'prio=' $MP_OUTD/ll-before.txt)" = 2 ] || { echo "not two path groups"; exit 1; }
  grep -q "hwhandler='1 alua'" $MP_OUTD/ll-before.txt || { echo "the map's hardware handler is not alua"; exit 1; }
  [ "$(multipath -ll 2>/dev/null | grep -c 'RDMABLK')" = 1 ] || { echo "not one map of ours"; multipath -ll; exit 1; }
)

# fio with verify on the map; port 1 goes down after MP_DOWN_AFTER s (`rdmablock admin port down 1`, its request
# held by mp_relay until then); fio ends without errors, through port 2
mp_failover() (
  set -eo pipefail
  local fio i rc=0 w2 wr rd relay admin
  mkdir -p $MP_DIR/relay
  mp_relay $MP_DIR/relay/admin.sock $MP_DIR/admin.sock $MP_DIR/held $MP_DIR/go > $MP_OUTD/relay.log 2>&1 &
  relay=$!
  echo $relay > $MP_DIR/relay.pid
  for i in $(seq 1 20); do [ -S $MP_DIR/relay/admin.sock ] && break; sleep 0.5; done
  [ -S $MP_DIR/relay/admin.sock ] || { echo "the relay did not listen"; cat $MP_OUTD/relay.log; exit 1; }
  mp_t admin_started
  daemon_admin $MP_DIR/relay port down 1 > $MP_OUTD/port-down.txt 2>&1 &
  admin=$!
  echo $admin > $MP_DIR/admin.pid
  for i in $(seq 1 360); do [ -s $MP_DIR/held ] && break; kill -0 $admin 2>/dev/null || break; sleep 0.5; done
  [ -s $MP_DIR/held ] || { echo "rdmablock admin sent no request in 180 s"; cat $MP_OUTD/port-down.txt; exit 1; }
  mp_t admin_request_held
  mp_counters start
  fio --name=mp --filename=/dev/mapper/$MP_WWID --ioengine=libaio --direct=1 --rw=randwrite --bs=4k --iodepth=8 \
    --size=$MP_FIO_SIZE --rate_iops=,$MP_FIO_RATE --verify=crc32c --do_verify=1 --verify_fatal=1 --randrepeat=0 \
    --output=$MP_OUTD/fio.out &
  fio=$!
  echo $fio > $MP_DIR/fio.pid
  mp_t fio_start
  sleep $MP_DOWN_AFTER
  kill -0 $fio || { echo "fio ended within $MP_DOWN_AFTER s"; cat $MP_OUTD/fio.out; exit 1; }
  mp_counters before_down
  [ "$(mp_count before_down 1 writes)" -gt "$(mp_count start 1 writes)" ] \
    || { echo "fio's writes did not go through port 1 before it went down"; exit 1; }
  mp_t port_down
  touch $MP_DIR/go
  mp_wait_pid $relay 60 || { echo "the daemon did not answer port.down in 60 s"; exit 1; }
  wait $relay || { echo "the relay failed"; cat $MP_OUTD/relay.log; exit 1; }
  mp_t port_down_done
  kill -0 $fio || { echo "fio ended before port 1 was down: nothing failed over under it"; cat $MP_OUTD/fio.out; exit 1; }
  mp_counters down
  mp_wait_pid $admin 120 || { echo "rdmablock admin did not exit in 120 s after the answer"; exit 1; }
  wait $admin || { echo "rdmablock admin port down 1 failed"; cat $MP_OUTD/port-down.txt; exit 1; }
  cat $MP_OUTD/port-down.txt
  grep -q '^listening  *false' $MP_OUTD/port-down.txt || { echo "port 1 still listening after port down"; exit 1; }
  mp_wait_paths 60 "port 1's path failed and port 2's group active" 1 - - failed 2 - active active
  mp_t failed_seen
  mp_ll during
  # bounded: at 150 writes a second and the reads after, fio needs about a minute
  for i in $(seq 1 600); do kill -0 $fio 2>/dev/null || break; sleep 0.5; done
  kill -0 $fio 2>/dev/null && { echo "fio still running 300 s after port 1 went down"; kill $fio; exit 1; }
  wait $fio || rc=$?
  mp_t fio_end
  mp_counters fio_end
  mp_ll after_fio
  cat $MP_OUTD/fio.out
  [ $rc = 0 ] || { echo "fio exited $rc"; exit 1; }
  grep -q 'err= 0' $MP_OUTD/fio.out || { echo "fio reported errors"; exit 1; }
  wr=$(sed -n 's/^ *WRITE:.* io=\([^ ]*\) .*/\1/p' $MP_OUTD/fio.out)
  rd=$(sed -n 's/^ *READ:.* io=\([^ ]*\) .*/\1/p' $MP_OUTD/fio.out)
  [ -n "$wr" ] && [ "$wr" = "$rd" ] || { echo "fio wrote $wr but verified $rd"; exit 1; }
  mp_path_is 1 - - failed || { echo "port 1's path is not failed after fio"; exit 1; }
  w2=$(( $(mp_count fio_end 2 writes) - $(mp_count down 2 writes) ))
  [ $w2 -gt 0 ] || { echo "no write went through port 2 while port 1 was down"; exit 1; }
  echo "fio: $wr written and read back, 0 errors; $w2 writes through port 2 ($(mp_sd 2)) while port 1 was down"
)

# port 1 back: ib_srp reconnects, multipath reinstates the path and fails back; a read goes through port 1
mp_failback() (
  set -eo pipefail
  local rport i r1 r2
  rport=/sys/class/srp_remote_ports/port-$(mp_host 1):1
  mp_t port_up
  daemon_admin $MP_DIR port up 1 | tee $MP_OUTD/port-up.txt
  mp_t port_up_done
  # ib_srp spaces its attempts further apart after ten failed ones (reconnect_delay times attempts - 10)
  for i in $(seq 1 180); do [ "$(cat $rport/state)" = running ] && break; sleep 0.5; done
  [ "$(cat $rport/state)" = running ] || { echo "ib_srp did not reconnect through port 1 in 90 s: $(cat $rport/state)"; exit 1; }
  mp_t reconnected
  mp_wait_paths 60 "port 1's path back in the active prio 50 group" 1 50 active active 2 10 enabled active
  mp_t failed_back
  mp_ll after
  mp_counters back
  dd if=/dev/mapper/$MP_WWID of=/dev/null bs=64k count=64 iflag=direct status=none
  mp_counters read_after
  r1=$(( $(mp_count read_after 1 reads) - $(mp_count back 1 reads) ))
  r2=$(( $(mp_count read_after 2 reads) - $(mp_count back 2 reads) ))
  [ $r1 -gt 0 ] && [ $r2 = 0 ] || { echo "a 4 MiB read through the map: $r1 reads on port 1's disk, $r2 on port 2's"; exit 1; }
  echo "port 1 back: ib_srp reconnected, the path failed back; 4 MiB read: $r1 reads through port 1, none through port 2"
  mp_rpc ports | tee $MP_OUTD/ports-after.txt
  mp_rpc sessions | tee $MP_OUTD/sessions.txt
)

# the map flushed, multipathd and the logins gone, the daemon and udevd stopped, the address removed; every part is
# tried, whatever failed before
mp_down() {
  local failed="" p pid h i nd
  for p in fio relay admin; do
    if [ -f $MP_DIR/$p.pid ] && kill -0 $(cat $MP_DIR/$p.pid) 2>/dev/null; then
      kill $(cat $MP_DIR/$p.pid); failed+=" $p-running"
    fi
  done
  if [ -n "$MP_WWID" ] && [ -b /dev/mapper/$MP_WWID ]; then
    dmsetup message $MP_WWID 0 fail_if_no_path || true
  fi
  timeout 60 multipath -F || failed+=" multipath-F"
  if [ -f $MP_DIR/multipathd.pid ]; then
    pid=$(cat $MP_DIR/multipathd.pid)
    timeout 30 multipathd shutdown || true
    for i in $(seq 1 40); do kill -0 $pid 2>/dev/null || break; sleep 0.5; done
    kill -0 $pid 2>/dev/null && { kill $pid; failed+=" multipathd-shutdown"; }
  fi
  [ -z "$(dmsetup ls --target multipath 2>/dev/null | grep -v 'No devices found')" ] \
    || { failed+=" map-left"; dmsetup ls --target multipath; }
  for p in 1 2; do
    [ -f $MP_DIR/path$p ] || continue
    h=$(mp_host $p)
    [ -e /sys/class/srp_remote_ports/port-$h:1/delete ] && echo 1 > /sys/class/srp_remote_ports/port-$h:1/delete
    for i in $(seq 1 60); do [ -e /sys/class/scsi_host/host$h ] || break; sleep 0.5; done
    [ ! -e /sys/class/scsi_host/host$h ] || failed+=" host$h-left"
  done
  if [ -f $MP_DIR/target.pid ]; then
    pid=$(cat $MP_DIR/target.pid)
    kill -TERM $pid 2>/dev/null
    for i in $(seq 1 60); do kill -0 $pid 2>/dev/null || break; sleep 0.5; done
    kill -0 $pid 2>/dev/null && failed+=" daemon-left"
  fi
  if [ -f $MP_DIR/udevd.pid ]; then
    pid=$(cat $MP_DIR/udevd.pid)
    udevadm control --exit || true
    for i in $(seq 1 40); do kill -0 $pid 2>/dev/null || break; sleep 0.5; done
    kill -0 $pid 2>/dev/null && { kill $pid; failed+=" udevd"; }
  fi
  nd=$(mp_netdev)
  ip addr del $MP_ADDR2/24 dev $nd || failed+=" address"
  rm -f /etc/multipath.conf
  dmesg | sed -n '/multipath.sh: begin/,$p' > $MP_OUTD/dmesg.log
  grep -iE 'alua|multipath|device-mapper' $MP_OUTD/dmesg.log > $MP_OUTD/dmesg-alua.log || true
  [ -z "$failed" ] || { echo "cleanup left:$failed"; return 1; }
  echo "multipath cleaned up: map flushed, two logins deleted, daemon, multipathd and udevd stopped, $MP_ADDR2 removed"
}

# $OUT/multipath.md
mp_report() (
  set -eo pipefail
  local f
  {
    echo "# dm-multipath over two SRP target ports (implicit ALUA)"
    echo
    echo "One memory LUN ($(sed -n 's/^size = //p' $MP_DIR/target.toml | tr -d '"')), port 1 = $MP_ADDR1:$MP_PORT (target port" \
         "group 1, active/optimized), port 2 = $MP_ADDR2:$MP_PORT (group 2, active/non-optimized), both on rxe0's" \
         "netdev; ib_srp logged in through port 1 with initiator_ext $MP_EXT1 and through port 2 with $MP_EXT2." \
         "multipath.conf: multipath/multipath.conf. Outputs: multipath/ (ll-*.txt, fio.out, rtpg-*, vpd-di-*, dmesg.log)."
    echo
    echo '```'; cat $MP_OUTD/paths.txt; echo '```'
    for f in before:"multipath -ll before (fio not started)" during:"multipath -ll after \`rdmablock admin port down 1\`, fio running" \
             after_fio:"multipath -ll when fio ended" after:"multipath -ll after \`port up 1\`, failed back"; do
      [ -f $MP_OUTD/ll-${f%%:*}.txt ] || continue
      printf '\n%s:\n\n```\n' "${f#*:}"; cat $MP_OUTD/ll-${f%%:*}.txt; printf '```\n'
    done
    printf '\nfio (randwrite 4 KiB, iodepth 8, %s at %s writes/s, then every block read back, crc32c):\n\n```\n' \
      $MP_FIO_SIZE $MP_FIO_RATE
    grep -E 'err=|^ *(READ|WRITE):|IOPS=' $MP_OUTD/fio.out || true
    printf '```\n\nTimes (s since fio started):\n\n| event | s |\n|---|---|\n'
    awk -v t0=$(mp_time fio_start) '{printf "| %s | %.1f |\n", $1, $2 - t0}' $MP_OUTD/times
    printf '\nI/O counters (/sys/block/sdX/stat, reads and writes completed) of port 1'"'"'s disk %s and port 2'"'"'s %s:\n\n' \
      $(mp_sd 1) $(mp_sd 2)
    printf '| when | port 1 reads | port 1 writes | port 2 reads | port 2 writes |\n|---|---|---|---|---|\n'
    awk '{printf "| %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5}' $MP_OUTD/counters
    printf '\nThe daemon'"'"'s ports after (admin `ports`) and sessions (`sessions`):\n\n```\n'
    cat $MP_OUTD/ports-after.txt $MP_OUTD/sessions.txt 2>/dev/null || true
    printf '```\n\nThe kernel (ALUA, multipath):\n\n```\n'
    head -40 $MP_OUTD/dmesg-alua.log 2>/dev/null || true
    printf '```\n'
  } > $OUT/multipath.md
  cat $OUT/multipath.md
)

MP_T0=$EPOCHREALTIME
MP_WWID=""
mp_start=$(date +%s)
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  modprobe sd_mod; modprobe ib_srp   # a plan of its own: rxe is up, nothing else
fi
step multipath_up mp_up
step multipath_logins mp_logins
step multipath_map mp_map
MP_WWID=$(cat $MP_DIR/wwid 2>/dev/null)
step multipath_failover mp_failover
step multipath_failback mp_failback
step multipath_down mp_down
step multipath_report mp_report
echo "multipath: $(( $(date +%s) - mp_start )) s"

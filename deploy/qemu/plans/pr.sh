#!/bin/bash
# SCSI-3 persistent reservations (SPC-4 5.13: PERSISTENT RESERVE IN 5Eh / OUT 5Fh) through Linux's own SRP initiator,
# on LIO's ib_srpt and on our daemon in the same boot: ib_srp logs in to one target three times with the initiator_ext
# values of nexuses A, B and C (three SCSI hosts, three /dev/sd devices of one LUN), sg_persist registers, reserves,
# releases, preempts and clears through them, and sg_raw's WRITE(10), READ(10) and TEST UNIT READY show what each
# nexus may do. Every answer is checked against what SPC-4 requires; the rows go to $OUT/pr-compare.md (step,
# expectation, LIO's answer, ours). Then Pacemaker's fence_scsi unfences A and B, fences A through B's device, and A's
# writes conflict. Then A and B race COMPARE AND WRITEs on one block (with C's plain WRITEs every other round): every
# outcome must be a serial order's (a second table in pr-compare.md). Every command's output is kept in $OUT/pr/.
#
# Sourced by ib-srp.sh while our daemon is up and LIO is down (srp-compare.sh took it down): it brings LIO up its own
# way (below), tests it, takes it down, then tests our memory LUN 4. Run as a plan of its own (deploy/qemu/run.sh
# deploy/qemu/plans/pr.sh) it also starts a daemon with only that LUN. PR_TARGETS picks the targets ("lio ours").
# Leaves ib_srp as it found it: every nexus this file adds is deleted again.
PR_DIR=/tmp/pr                          # the guest's tmpfs overlay
PR_TARGETS=${PR_TARGETS:-lio ours}
# the nexuses' initiator_ext (hex, as ib_srp's add_target takes it): the SRP initiator port identifier is
# initiator_ext followed by the port's interface id (ib_srp's io_class 0x100, SRP rev. 16a), so these three differ
# from each other and from the ext that ib-srp.sh's own login uses (the GID's prefix, fe80000000000000)
PR_EXT_A=000000000000000a
PR_EXT_B=000000000000000b
PR_EXT_C=000000000000000c
PR_LIO_LUN=0                            # the LUN of LIO's ramdisk on its PR port group
PR_OURS_LUN=4                           # our memory LUN (512-byte blocks, as LIO's ramdisk)
PR_LBA=2048                             # what the WRITE and READ checks touch: 1 MiB in, away from any label
# fence_scsi's keys for nodes A and B (hex without 0x, as fence_scsi compares them with sg_persist's output)
PR_FENCE_KEY_A=fa1
PR_FENCE_KEY_B=fb2
# fence_scsi 4.12 keeps the local node's key in /var/run/cluster.key and its devices in /var/run/cluster.dev
# (STORE_PATH + ".key"); "off" preempts with the key in that file, so B is unfenced last
PR_FENCE_STORE=/var/run/cluster
. $REPO/deploy/qemu/plans/lio-lib.sh
. $REPO/deploy/qemu/plans/daemon-lib.sh

# ---- the nexuses

# the port's interface id (the second half of every SRP initiator port identifier ib_srp sends from rxe0)
pr_iface() {
  local g
  g=$(cat /sys/class/infiniband/rxe0/ports/1/gids/0); g=${g//:}; echo ${g:16:16}
}

# pr_login <name> <nexus> <ext> <log> <target line> <lun>: ib_srp logs in to the target once more with initiator_ext
# <ext>, which makes a SCSI host of its own; the host and the disk of LUN <lun> behind it go to $PR_DIR/<name>.<nexus>
# ("host dev"). add_target returns once the host exists (ib_srp adds it before it returns), so the host that is new
# after the write is this nexus's; sd attaches its disks asynchronously, hence the bounded wait.
pr_login() {
  local name=$1 nexus=$2 ext=$3 log=$4 line=$5 lun=$6 before h host="" i d
  before=" $(ls /sys/class/scsi_host | tr '\n' ' ')"
  srp_add_target $log "$line" "" $ext || { echo "add_target with initiator_ext=$ext failed"; return 1; }
  for h in $(ls /sys/class/scsi_host); do [[ $before == *" $h "* ]] || host=${h#host}; done
  [ -n "$host" ] || { echo "no new SCSI host after add_target with initiator_ext=$ext"; return 1; }
  for i in $(seq 1 120); do
    for d in /sys/class/scsi_device/$host:*:*:$lun/device/block/sd*; do
      [ -b /dev/${d##*/} ] || continue
      echo "$host /dev/${d##*/}" > $PR_DIR/$name.$nexus
      echo "$name nexus $nexus: initiator_ext=$ext, SCSI host $host, LUN $lun is /dev/${d##*/}"
      return 0
    done
    sleep 0.5
  done
  echo "LUN $lun of SCSI host $host (initiator_ext=$ext) did not appear"; ls /sys/class/scsi_device; return 1
}

# pr_dev <name> <nexus>: the disk of that nexus
pr_dev() { cut -d' ' -f2 $PR_DIR/$1.$2; }

# pr_logins <name> <log> <target line> <lun>: nexuses A, B and C
pr_logins() (
  set -eo pipefail
  mkdir -p $PR_DIR $OUT/pr
  pr_login $1 A $PR_EXT_A "$2" "$3" $4
  pr_login $1 B $PR_EXT_B "$2" "$3" $4
  pr_login $1 C $PR_EXT_C "$2" "$3" $4
)

# pr_logouts <name>: the nexuses of pr_logins deleted (ib_srp logs out, the hosts go), each waited for
pr_logouts() (
  set -eo pipefail
  local n host i
  for n in A B C; do
    [ -f $PR_DIR/$1.$n ] || continue
    host=$(cut -d' ' -f1 $PR_DIR/$1.$n)
    echo 1 > /sys/class/srp_remote_ports/port-$host:1/delete
    for i in $(seq 1 60); do [ -e /sys/class/scsi_host/host$host ] || break; sleep 0.5; done
    [ ! -e /sys/class/scsi_host/host$host ] || { echo "SCSI host $host stayed after its port was deleted"; exit 1; }
    rm $PR_DIR/$1.$n
  done
)

# ---- checking answers

# sg3-utils' exit status in SCSI words (sg3_utils(8))
pr_status() {
  case $1 in
    0) echo GOOD ;;
    5) echo "ILLEGAL REQUEST" ;;
    6) echo "UNIT ATTENTION" ;;
    9) echo "INVALID COMMAND OPERATION CODE" ;;
    24) echo "RESERVATION CONFLICT" ;;
    *) echo "exit status $1" ;;
  esac
}

# pr_row <name> <id> <expectation> <answer> <ok 0/1>: one row of <name>'s table; a differing answer fails the sequence
pr_row() {
  local mark=""
  [ "$5" = 1 ] || { mark="DIFFERS: "; PR_FAILED=$((PR_FAILED + 1)); }
  printf '%s\t%s\t%s%s\n' "$2" "$3" "$mark" "$4" >> $PR_DIR/$1.rows
  echo "[$1] $2: $mark$4 (SPC-4: $3)"
}

# pr_cmd <name> <id> <cmd>...: runs a command, its output (both streams) into $OUT/pr/<name>-<id>.txt; PR_RC is its exit
# status, PR_TXT its output's file
pr_cmd() {
  local name=$1 id=$2
  shift 2
  PR_TXT=$OUT/pr/$name-$id.txt
  PR_RC=0
  { echo "# $*"; "$@"; } > $PR_TXT 2>&1 || PR_RC=$?
}

# pr_expect <name> <id> <expectation> <wanted exit status> <cmd>...: a row whose verdict is the exit status
pr_expect() {
  local name=$1 id=$2 expect=$3 want=$4
  shift 4
  pr_cmd $name $id "$@"
  pr_row $name $id "$expect" "$(pr_status $PR_RC)" $([ $PR_RC = $want ] && echo 1 || echo 0)
}

# the keys READ KEYS lists, ascending, space-separated ("none" if none)
pr_key_list() {
  local k
  k=$(sed -n 's/^ *\(0x[0-9a-f]*\) *$/\1/p' $1 | sort | tr '\n' ' ' | sed 's/ $//')
  echo ${k:-none}
}

# pr_keys <name> <id> <dev> <wanted keys, as pr_key_list prints them>: READ KEYS; the answer shows PRgeneration
pr_keys() {
  local name=$1 id=$2 keys gen
  pr_cmd $name $id sg_persist -n --in --read-keys $3
  keys=$(pr_key_list $PR_TXT)
  gen=$(sed -n 's/.*PR generation=\(0x[0-9a-f]*\).*/\1/p' $PR_TXT)
  pr_row $name $id "GOOD, keys: $4" "$(pr_status $PR_RC), keys: $keys, PRgeneration=$gen" \
    $([ $PR_RC = 0 ] && [ "$keys" = "$4" ] && echo 1 || echo 0)
}

# pr_resv <name> <id> <dev> <wanted: "key=0x.. type=N" or "none">: READ RESERVATION, the type by its SPC-4 code
pr_resv() {
  local name=$1 id=$2 key type got
  pr_cmd $name $id sg_persist -n --in --read-reservation $3
  key=$(sed -n 's/^ *Key=\(0x[0-9a-f]*\).*/\1/p' $PR_TXT)
  type=$(sed -n 's/.*type: *//p' $PR_TXT)
  case "$type" in
    "Write Exclusive") type=1 ;;
    "Exclusive Access") type=3 ;;
    "Write Exclusive, registrants only") type=5 ;;
    "Exclusive Access, registrants only") type=6 ;;
    "Write Exclusive, all registrants") type=7 ;;
    "Exclusive Access, all registrants") type=8 ;;
  esac
  got=none
  [ -z "$key" ] || got="key=$key type=$type"
  pr_row $name $id "GOOD, reservation: $4" "$(pr_status $PR_RC), reservation: $got" \
    $([ $PR_RC = 0 ] && [ "$got" = "$4" ] && echo 1 || echo 0)
}

# pr_io <name> <id> <expectation> <wanted exit status> <write|read|tur> <dev>: one command through sg_raw (SG_IO, no
# page cache, no retries by the block layer): WRITE(10) or READ(10) of one block at PR_LBA, or TEST UNIT READY
pr_io() {
  local name=$1 id=$2 expect=$3 want=$4 op=$5 dev=$6 bs lba
  bs=$(blockdev --getss $dev)
  lba=$(printf '%02x %02x %02x %02x' $((PR_LBA >> 24 & 255)) $((PR_LBA >> 16 & 255)) $((PR_LBA >> 8 & 255)) $((PR_LBA & 255)))
  case $op in
    write) head -c $bs /dev/urandom > $PR_DIR/block
           pr_expect $name $id "$expect" $want sg_raw -s $bs -i $PR_DIR/block $dev 2a 00 $lba 00 00 01 00 ;;
    read) pr_expect $name $id "$expect" $want sg_raw -r $bs -o $PR_DIR/back $dev 28 00 $lba 00 00 01 00 ;;
    tur) pr_expect $name $id "$expect" $want sg_raw $dev 00 00 00 00 00 00 ;;
  esac
}

# pr_sense <name> <id> <expectation> <text>: the last command's sense, as sg3-utils decodes it, names <text>
pr_sense() {
  local name=$1 id=$2 sense
  sense=$(sed -n 's/.*Sense key: *\(.*[^ ]\) *$/\1/p; s/^Additional sense: *\(.*[^ ]\) *$/\1/p' $PR_TXT | paste -sd/)
  pr_row $name $id "$3" "${sense:-no sense}" $(grep -qi "$4" $PR_TXT && echo 1 || echo 0)
}

# pr_holders <name> <id> <dev> <wanted "key:ext ...">: READ FULL STATUS, each registration's key with the initiator
# port identifier of its TransportID (SRP: 16 bytes, initiator_ext then the interface id): proves which /dev/sd is
# which nexus, and that the target keeps the registrations per I_T nexus
pr_holders() {
  local name=$1 id=$2 want=$3 iface got="" k
  iface=$(pr_iface)
  pr_cmd $name $id sg_persist -n --in --read-full-status $4
  # the port identifier is the hex line after "RDMA initiator port identifier:"; its last 16 byte-pairs are the id
  got=$(awk '/Key=/{sub(/.*Key=/, ""); k=$1} f{id=""; for (i = 1; i <= NF; i++) if ($i ~ /^[0-9a-f][0-9a-f]$/) id=id $i;
            print k ":" substr(id, length(id) - 31); f=0} /RDMA initiator port identifier/{f=1}' $PR_TXT | sort | tr '\n' ' ')
  got=${got% }
  local w="" kv
  for kv in $want; do w+=" ${kv%%:*}:${kv#*:}$iface"; done
  w=${w# }
  pr_row $name $id "GOOD, registrations key:port id: ${w//$iface/·}" "$(pr_status $PR_RC), ${got//$iface/·}" \
    $([ $PR_RC = 0 ] && [ "$got" = "$w" ] && echo 1 || echo 0)
}

# pr_probe <name> <id> <dev>: READ KEYS as the first PR command: the target serves PERSISTENT RESERVE IN
pr_probe() {
  pr_cmd $1 $2 sg_persist -n --in --read-keys $3
  pr_row $1 $2 "GOOD (PERSISTENT RESERVE IN supported)" "$(pr_status $PR_RC)" $([ $PR_RC = 0 ] && echo 1 || echo 0)
}

# pr_fence_cmd <name> <id> <wanted exit status> <wanted last line> <fence_scsi options>...: fence_scsi, its exit
# status and what it printed last ("Success: Powered ON", "Status: OFF", ...)
pr_fence_cmd() {
  local name=$1 id=$2 want=$3 text=$4 last
  shift 4
  pr_cmd $name $id fence_scsi "$@"
  last=$(tail -1 $PR_TXT)
  pr_row $name $id "exit $want, $text" "exit $PR_RC, $last" $([ $PR_RC = $want ] && [ "$last" = "$text" ] && echo 1 || echo 0)
}

# pr_caps <name> <id> <dev>: REPORT CAPABILITIES, its flags and the types its type mask allows, in one cell. SPC-4
# 6.16.3 leaves most flags to the target (SIP_C=0: no SPEC_I_PT; PTPL_C: whether it can keep registrations through
# power loss; ALLOW_COMMANDS: which commands a Write Exclusive reservation lets through): the row asks only for a
# valid type mask (TMV=1) with at least one type, and PTPL_A=0 since no registration here asks for APTPL
pr_caps() {
  local flags types expect
  pr_cmd $1 $2 sg_persist -n --in --report-capabilities $3
  flags=$(sed -n 's/.*(\([A-Z_]*\)): *\([01]\)$/\1=\2/p; s/^ *Allow Commands: *\([0-9]\)$/ALLOW_COMMANDS=\1/p' $PR_TXT | paste -sd' ')
  types=$(sed -n 's/^ *\(Write Exclusive\|Exclusive Access\)\(.*\): 1$/\1\2/p' $PR_TXT | sed \
    -e 's/Write Exclusive/WE/; s/Exclusive Access/EA/; s/, registrants only/-RO/; s/, all registrants/-AR/' | sort | paste -sd' ')
  expect="GOOD; TMV=1 and the types of 5.13.1 it supports; PTPL_A=0 (no APTPL asked); SIP_C, PTPL_C, ATP_C, CRH"
  expect+=" and ALLOW_COMMANDS are the target's choice"
  pr_row $1 $2 "$expect" "$(pr_status $PR_RC); $flags; types: $types" \
    $([ $PR_RC = 0 ] && [ -n "$types" ] && [[ " $flags " == *" TMV=1 "* && " $flags " == *" PTPL_A=0 "* ]] && echo 1 || echo 0)
}

# clears whatever unit attention the logins left (a power-on or reset one) so that the sequence starts clean; bounded
pr_clear_ua() {
  local dev i
  for dev in "$@"; do
    for i in 1 2 3 4 5; do sg_turs $dev >/dev/null 2>&1 && break; done
  done
}

# ---- the sequence (SPC-4 5.13 and its tables 5.13.1: what each reservation type lets each nexus do)

# pr_sequence <name>: the steps a-g through <name>'s nexuses A, B, C, rows into $PR_DIR/<name>.rows; fails if any answer
# differs
pr_sequence() {
  local name=$1 A B C
  A=$(pr_dev $name A); B=$(pr_dev $name B); C=$(pr_dev $name C)
  PR_FAILED=0
  : > $PR_DIR/$name.rows
  pr_clear_ua $A $B $C
  # 0. the target knows PERSISTENT RESERVE IN, and nothing is registered yet
  pr_probe $name 0-probe $A
  pr_keys $name 0-keys $A none
  # a. A and B register (REGISTER with service action key; reservation key 0 as neither is registered yet)
  pr_expect $name a-regA "GOOD" 0 sg_persist -n --out --register --param-sark=0xa1 $A
  pr_expect $name a-regB "GOOD" 0 sg_persist -n --out --register --param-sark=0xb2 $B
  pr_keys $name a-keys $C "0xa1 0xb2"
  pr_holders $name a-full "0xa1:$PR_EXT_A 0xb2:$PR_EXT_B" $C
  # REGISTER by a registered nexus with the wrong reservation key: RESERVATION CONFLICT (5.13.7)
  pr_expect $name a-regA-badkey "RESERVATION CONFLICT" 24 sg_persist -n --out --register --param-rk=0xee --param-sark=0xa3 $A
  # b. A reserves Write Exclusive
  pr_expect $name b-resA "GOOD" 0 sg_persist -n --out --reserve --param-rk=0xa1 --prout-type=1 $A
  pr_resv $name b-resv $B "key=0xa1 type=1"
  # another nexus's RESERVE while one is held: RESERVATION CONFLICT (5.13.9)
  pr_expect $name b-resB "RESERVATION CONFLICT" 24 sg_persist -n --out --reserve --param-rk=0xb2 --prout-type=1 $B
  # c. Write Exclusive: writes from any other nexus conflict, registered or not; reads are allowed
  pr_io $name c-writeB "RESERVATION CONFLICT" 24 write $B
  pr_io $name c-readB "GOOD" 0 read $B
  pr_io $name c-writeA "GOOD (holder)" 0 write $A
  # d. A releases (type and key as reserved) and reserves Write Exclusive - Registrants Only: registered B may write,
  # unregistered C may not
  pr_expect $name d-relA "GOOD" 0 sg_persist -n --out --release --param-rk=0xa1 --prout-type=1 $A
  pr_resv $name d-resv-none $B none
  pr_expect $name d-resA5 "GOOD" 0 sg_persist -n --out --reserve --param-rk=0xa1 --prout-type=5 $A
  pr_resv $name d-resv $B "key=0xa1 type=5"
  pr_io $name d-writeB "GOOD (B is registered)" 0 write $B
  pr_io $name d-writeC "RESERVATION CONFLICT (C is not registered)" 24 write $C
  pr_io $name d-readC "GOOD" 0 read $C
  # e. B preempts A and aborts its tasks, taking a Write Exclusive reservation: A's registration is gone, and A's next
  # command reports it (UNIT ATTENTION, REGISTRATIONS PREEMPTED, 2Ah/05h); then A's writes conflict
  pr_expect $name e-preempt "GOOD" 0 sg_persist -n --out --preempt-abort --param-rk=0xb2 --param-sark=0xa1 --prout-type=1 $B
  pr_io $name e-turA "UNIT ATTENTION" 6 tur $A
  pr_sense $name e-turA-sense "REGISTRATIONS PREEMPTED (2Ah/05h)" "registrations preempted"
  pr_io $name e-turA-again "GOOD (the unit attention was reported once)" 0 tur $A
  pr_io $name e-writeA "RESERVATION CONFLICT" 24 write $A
  pr_keys $name e-keys $A "0xb2"
  pr_resv $name e-resv $A "key=0xb2 type=1"
  pr_io $name e-writeB "GOOD (holder)" 0 write $B
  # f. what the target reports of itself and of the registrations
  pr_caps $name f-caps $B
  pr_holders $name f-full "0xb2:$PR_EXT_B" $B
  # g. B clears: no registration, no reservation; A, unregistered, may write again
  pr_expect $name g-clear "GOOD" 0 sg_persist -n --out --clear --param-rk=0xb2 $B
  pr_keys $name g-keys $A none
  pr_resv $name g-resv $A none
  pr_io $name g-writeA "GOOD" 0 write $A
  [ $PR_FAILED = 0 ] || { echo "$name: $PR_FAILED answers differ from SPC-4"; return 1; }
}

# pr_fence <name>: Pacemaker's fence_scsi on <name>'s nexuses A and B: both unfenced ("on": REGISTER AND IGNORE and,
# by the first, a Write Exclusive - Registrants Only reservation), A's status ON, A fenced through B's device ("off":
# PREEMPT AND ABORT with B's key, from fence_scsi's key file), A's status OFF, then A's next command reports the
# preemption and its writes conflict, B's do not
pr_fence() {
  local name=$1 A B
  A=$(pr_dev $name A); B=$(pr_dev $name B)
  PR_FAILED=0
  rm -f $PR_FENCE_STORE.key $PR_FENCE_STORE.dev
  pr_probe $name fence-probe $A
  pr_fence_cmd $name fence-onA 0 "Success: Powered ON" -o on -k $PR_FENCE_KEY_A -d $A
  pr_fence_cmd $name fence-onB 0 "Success: Powered ON" -o on -k $PR_FENCE_KEY_B -d $B
  pr_row $name fence-keyfile "$PR_FENCE_STORE.key holds B's key (the last unfenced)" \
    "$(cat $PR_FENCE_STORE.key 2>&1)" $([ "$(cat $PR_FENCE_STORE.key 2>/dev/null)" = $PR_FENCE_KEY_B ] && echo 1 || echo 0)
  pr_keys $name fence-keys $B "0x$PR_FENCE_KEY_A 0x$PR_FENCE_KEY_B"
  pr_resv $name fence-resv $B "key=0x$PR_FENCE_KEY_A type=5"
  pr_fence_cmd $name fence-statusA-on 0 "Status: ON" -o status -k $PR_FENCE_KEY_A -d $A
  # A fenced through B's device
  pr_fence_cmd $name fence-offA 0 "Success: Powered OFF" -o off -k $PR_FENCE_KEY_A -d $B
  # status through B's device, so that A's next command is the TEST UNIT READY below (fence_scsi's status runs sg_turs
  # on the device it is given, which would take A's unit attention)
  pr_fence_cmd $name fence-statusA-off 2 "Status: OFF" -o status -k $PR_FENCE_KEY_A -d $B
  pr_keys $name fence-keys-after $B "0x$PR_FENCE_KEY_B"
  pr_resv $name fence-resv-after $B "key=0x$PR_FENCE_KEY_B type=5"
  pr_io $name fence-turA "UNIT ATTENTION" 6 tur $A
  pr_sense $name fence-turA-sense "REGISTRATIONS PREEMPTED (2Ah/05h)" "registrations preempted"
  pr_io $name fence-writeA "RESERVATION CONFLICT" 24 write $A
  pr_io $name fence-writeB "GOOD" 0 write $B
  # clean up: B clears, the LUN is as before
  pr_expect $name fence-clear "GOOD" 0 sg_persist -n --out --clear --param-rk=0x$PR_FENCE_KEY_B $B
  pr_keys $name fence-keys-end $A none
  rm -f $PR_FENCE_STORE.key $PR_FENCE_STORE.dev
  [ $PR_FAILED = 0 ] || { echo "$name: $PR_FAILED fence_scsi answers differ"; return 1; }
}

# ---- COMPARE AND WRITE (SBC-4 5.3): a race of nexuses A and B on one block, with a third writer C every other round

# SBC-4: the compare and the write are one atomic operation against every other command that writes the blocks, so
# any mix of COMPARE AND WRITEs and WRITEs must end as one serial order of them would. Each round A and B send
# sg_compare_and_write (SG_IO: no page cache) with verify=P (what the block holds) and write=QA or QB at once; in even
# rounds C writes W with dd oflag=direct at the same time. Then C reads the block back with dd iflag=direct and cmp
# names it; it is the next round's P. PR_CAW_ROUNDS rounds (each round's time goes into the table).
PR_CAW_ROUNDS=${PR_CAW_ROUNDS:-100}   # about 0.45 s a round on LIO, 0.5 on ours in the guest: 45 - 50 s each (bin/test's CompareAndWriteTest races 500 through the soft provider)
PR_CAW_LBA=$((PR_LBA + 16))            # a block of its own, 8 KiB past the PR checks' one
PR_CAW_DIR=$PR_DIR/caw

# pr_lun <name>: the LUN the nexuses of <name> see
pr_lun() { if [ $1 = lio ]; then echo $PR_LIO_LUN; else echo $PR_OURS_LUN; fi; }

# pr_caw_check_dev <name> <nexus>: the nexus's disk is still LUN <lun> of the SCSI host pr_login saw appear for its
# initiator_ext, with 512-byte blocks (the patterns are one block): each command goes through the nexus it is meant to
pr_caw_check_dev() {
  local host dev hctl
  read -r host dev < $PR_DIR/$1.$2
  hctl=$(basename "$(readlink -f /sys/block/${dev#/dev/}/device)")
  [ "${hctl%%:*}" = $host ] && [ "${hctl##*:}" = $(pr_lun $1) ] \
    || { echo "$1 nexus $2: $dev is SCSI $hctl, not host $host LUN $(pr_lun $1)"; return 1; }
  [ "$(blockdev --getss $dev)" = 512 ] || { echo "$dev: block size $(blockdev --getss $dev), not 512"; return 1; }
}

# pr_caw_serial <third writer 0/1>: every outcome some serial order of the round's commands gives, one
# "<A's status> <B's status> <the block>" a line (0: GOOD, 14: MISCOMPARE; the block by its pattern's name): the
# orders of A and B, or (third writer) of A, B and C; a COMPARE AND WRITE writes only if the block still holds P
pr_caw_serial() {
  local orders="A,B B,A" order x blk sa sb
  [ $1 = 0 ] || orders="A,B,C A,C,B B,A,C B,C,A C,A,B C,B,A"
  for order in $orders; do
    blk=P
    for x in ${order//,/ }; do
      case $x in
        A) if [ $blk = P ]; then sa=0; blk=QA; else sa=14; fi ;;
        B) if [ $blk = P ]; then sb=0; blk=QB; else sb=14; fi ;;
        C) blk=W ;;
      esac
    done
    echo "$sa $sb $blk"
  done | sort -u
}

# pr_caw_in <outcome> <outcomes>: whether <outcome> is one of the lines of <outcomes> (no process per round)
pr_caw_in() { [[ $'\n'"$2"$'\n' == *$'\n'"$1"$'\n'* ]]; }

# pr_caw_pattern <file> <text>: one block (512 bytes) of <text>, padded with spaces: each round's patterns differ
pr_caw_pattern() { printf '%-511s\n' "$2" > $1; }

# pr_caw_go <cmd>...: run in the background, waits (bounded) for its line from the gate pr_caw opened, then runs
# <cmd>: the round's commands start together once all are forked, not one fork apart. bash reads a pipe a byte at a
# time, so each takes exactly one line.
pr_caw_go() {
  read -r -t 30 -u $PR_CAW_GATE _ || { echo "the gate did not open in 30 s" >&2; exit 1; }
  exec "$@" {PR_CAW_GATE}>&-
}

# pr_caw_round <name> <round> <A> <B> <C> <third writer 0/1>: one round; PR_CAW_GOT is its outcome, as
# pr_caw_serial writes one ("torn" for a block that is none of the patterns); $PR_CAW_DIR/P is then what the block
# holds. The launch order alternates every two rounds so that neither side always starts first. Fails only if the
# block cannot be read back.
pr_caw_round() {
  local name=$1 r=$2 A=$3 B=$4 C=$5 third=$6 d=$PR_CAW_DIR pa pb pc="" sa sb x got=torn
  pr_caw_pattern $d/QA "$name round $r: A"
  pr_caw_pattern $d/QB "$name round $r: B"
  pr_caw_pattern $d/W "$name round $r: C"
  cat $d/P $d/QA > $d/inA
  cat $d/P $d/QB > $d/inB
  if [ $((r / 2 % 2)) = 0 ]; then
    pr_caw_go sg_compare_and_write --quiet --in=$d/inA --lba=$PR_CAW_LBA --num=1 --xferlen=1024 $A 2>>$OUT/pr/$name-caw-A.err & pa=$!
    [ $third = 0 ] || { pr_caw_go dd if=$d/W of=$C bs=512 seek=$PR_CAW_LBA count=1 oflag=direct status=none & pc=$!; }
    pr_caw_go sg_compare_and_write --quiet --in=$d/inB --lba=$PR_CAW_LBA --num=1 --xferlen=1024 $B 2>>$OUT/pr/$name-caw-B.err & pb=$!
  else
    pr_caw_go sg_compare_and_write --quiet --in=$d/inB --lba=$PR_CAW_LBA --num=1 --xferlen=1024 $B 2>>$OUT/pr/$name-caw-B.err & pb=$!
    [ $third = 0 ] || { pr_caw_go dd if=$d/W of=$C bs=512 seek=$PR_CAW_LBA count=1 oflag=direct status=none & pc=$!; }
    pr_caw_go sg_compare_and_write --quiet --in=$d/inA --lba=$PR_CAW_LBA --num=1 --xferlen=1024 $A 2>>$OUT/pr/$name-caw-A.err & pa=$!
  fi
  # all of them forked: open the gate, one line each
  printf 'go\n%.0s' $pa $pb $pc >&$PR_CAW_GATE
  wait $pa; sa=$?
  wait $pb; sb=$?
  if [ -n "$pc" ]; then wait $pc || { echo "round $r: C's WRITE failed"; return 1; }; fi
  dd if=$C of=$d/back bs=512 skip=$PR_CAW_LBA count=1 iflag=direct status=none \
    || { echo "round $r: C's READ failed"; return 1; }
  for x in W QA QB P; do
    [ $third = 1 ] || [ $x != W ] || continue
    cmp -s $d/back $d/$x && { got=$x; break; }
  done
  mv $d/back $d/P
  PR_CAW_GOT="$sa $sb $got"
}

# pr_caw <name>: PR_CAW_ROUNDS rounds through <name>'s nexuses; counts rounds, wins of A and of B, rounds the third
# writer made both miscompare, and violations (an outcome no serial order gives: two winners, none without a third
# writer, a torn block, the block not the winner's or not W after a third writer, another status), of two-writer
# and of third-writer rounds apart, into $PR_DIR/<name>.caw; each violation into $OUT/pr/<name>-caw.log. Fails on any
# violation on ours; on LIO only on two-writer violations and two winners (LIO serialises COMPARE AND WRITEs per
# device, but a plain WRITE may land between one's read and its write: third-writer violations are recorded).
pr_caw() {
  local rc=0
  rm -rf $PR_CAW_DIR; mkdir -p $PR_CAW_DIR
  # the gate: a FIFO held open for reading and writing (so neither end's open blocks), closed after the race
  mkfifo $PR_CAW_DIR/gate && exec {PR_CAW_GATE}<>$PR_CAW_DIR/gate || return 1
  pr_caw_race $1 || rc=$?
  exec {PR_CAW_GATE}>&-
  return $rc
}

# pr_caw_race <name>: the rounds of pr_caw, the gate open
pr_caw_race() {
  local name=$1 A B C r third start secs awins=0 bwins=0 none=0 late=0 v2=0 v3=0 two=0 log=$OUT/pr/$1-caw.log
  local serial2 serial3
  rm -f $PR_DIR/$name.caw
  A=$(pr_dev $name A); B=$(pr_dev $name B); C=$(pr_dev $name C)
  pr_caw_check_dev $name A && pr_caw_check_dev $name B && pr_caw_check_dev $name C || return 1
  [ $A != $B ] && [ $B != $C ] && [ $A != $C ] || { echo "nexuses share a disk: $A $B $C"; return 1; }
  serial2=$(pr_caw_serial 0); serial3=$(pr_caw_serial 1)
  { echo "serial outcomes, two writers:"; echo "$serial2"; echo "serial outcomes, third writer:"; echo "$serial3"; } > $log
  pr_clear_ua $A $B $C
  # the first P, written and read back through C
  pr_caw_pattern $PR_CAW_DIR/P "$name round 0: P"
  dd if=$PR_CAW_DIR/P of=$C bs=512 seek=$PR_CAW_LBA count=1 oflag=direct status=none \
    && dd if=$C of=$PR_CAW_DIR/back bs=512 skip=$PR_CAW_LBA count=1 iflag=direct status=none \
    && cmp $PR_CAW_DIR/P $PR_CAW_DIR/back || { echo "$name: the first pattern did not read back"; return 1; }
  start=$EPOCHREALTIME
  for r in $(seq 1 $PR_CAW_ROUNDS); do
    third=$((r % 2 == 0 ? 1 : 0))
    pr_caw_round $name $r $A $B $C $third \
      || { printf '%s\t%s\n' $name "stopped in round $r: the block could not be written or read" > $PR_DIR/$name.caw; return 1; }
    case "$PR_CAW_GOT" in 0\ 14\ *) awins=$((awins + 1)) ;; 14\ 0\ *) bwins=$((bwins + 1)) ;; 14\ 14\ *) none=$((none + 1)) ;;
                          0\ 0\ *) two=$((two + 1)) ;; esac
    # the side forked second won (pr_caw_round forks A first when r / 2 is even): the two were in flight together
    case "$((r / 2 % 2)) $PR_CAW_GOT" in 0\ 14\ 0\ *|1\ 0\ 14\ *) late=$((late + 1)) ;; esac
    if [ $third = 0 ]; then
      pr_caw_in "$PR_CAW_GOT" "$serial2" || { v2=$((v2 + 1)); echo "round $r (A, B): $PR_CAW_GOT" >> $log; }
    else
      pr_caw_in "$PR_CAW_GOT" "$serial3" || { v3=$((v3 + 1)); echo "round $r (A, B, C): $PR_CAW_GOT" >> $log; }
    fi
  done
  secs=$(awk "BEGIN{printf \"%.1f\", $EPOCHREALTIME - $start}")
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' $name $PR_CAW_ROUNDS $awins $bwins $late $none $v2 $v3 $secs \
    $(awk "BEGIN{printf \"%.2f\", $secs / $PR_CAW_ROUNDS}") > $PR_DIR/$name.caw
  echo "$name COMPARE AND WRITE: $PR_CAW_ROUNDS rounds in $secs s, A won $awins, B won $bwins ($late forked second)," \
       "neither $none;" \
       "violations: $v2 of two writers, $v3 with a third writer ($two rounds with two winners); see $log"
  [ $two = 0 ] && [ $v2 = 0 ] || return 1
  [ $name = lio ] || [ $v3 = 0 ]
}

# ---- the table

# $OUT/pr-compare.md from the rows of LIO and ours (a target not run shows "-"); the report of capabilities and
# the full status of each below it
pr_table() {
  local f
  for f in lio ours; do [ -f $PR_DIR/$f.rows ] || : > $PR_DIR/$f.rows; done
  {
    echo "# Persistent reservations through ib_srp, two (three) I_T nexuses to one LUN"
    echo
    echo "Nexus A: initiator_ext $PR_EXT_A, B: $PR_EXT_B, C: $PR_EXT_C (unregistered), each followed in its SRP" \
         "initiator port identifier by the port's interface id $(pr_iface) (· in the table). LIO: ramdisk LUN" \
         "$PR_LIO_LUN of ib_srpt's port-GID group; ours: memory LUN $PR_OURS_LUN. Exit statuses are sg3-utils' (24:" \
         "RESERVATION CONFLICT, 6: UNIT ATTENTION) or fence_scsi's (2: status OFF). \"DIFFERS\" marks an answer" \
         "other than SPC-4's; \"not run\": the target answered the first PERSISTENT RESERVE IN with INVALID COMMAND" \
         "OPERATION CODE. Outputs: pr/<target>-<step>.txt."
    echo
    echo "| step | SPC-4 expectation | LIO | ours |"
    echo "|---|---|---|---|"
    # every step either target has, in the order it ran (LIO's first, then any only ours has)
    awk -F'\t' 'FNR == 1 {file++} file == 1 {if (!($1 in e)) {order[++n] = $1; e[$1] = $2}; lio[$1] = $3}
                file == 2 {if (!($1 in e)) {order[++n] = $1; e[$1] = $2}; ours[$1] = $3}
                END {for (i = 1; i <= n; i++) {s = order[i]; printf "| %s | %s | %s | %s |\n", s, e[s],
                     (s in lio) ? lio[s] : "not run", (s in ours) ? ours[s] : "not run"}}' $PR_DIR/lio.rows $PR_DIR/ours.rows
    echo
    echo "## COMPARE AND WRITE race"
    echo
    echo "Per round, nexuses A and B send COMPARE AND WRITE (sg_compare_and_write, one 512-byte block at LBA" \
         "$PR_CAW_LBA) with verify = the block's contents and write = a pattern of their own, at once; in every" \
         "even round C writes a third pattern with a plain WRITE (dd oflag=direct) at the same time. C reads the" \
         "block back (dd iflag=direct). A violation is an outcome (A's status, B's, the block) that no serial order" \
         "of the round's commands gives (SBC-4 5.3: atomic against every other write): with two writers one wins," \
         "the other gets MISCOMPARE, the block is the winner's; with a third writer the block must end as C's" \
         "pattern and at most one COMPARE AND WRITE wins (both lose if C came first). \"forked 2nd\": wins of the" \
         "side whose process started second (A and B take turns every two rounds; both wait at a gate until all" \
         "are forked): the two were in flight together. \"neither\": rounds C won outright. The violations, round" \
         "by round: pr/<target>-caw.log."
    echo
    echo "| target | rounds | A wins | B wins | forked 2nd | neither | violations, two writers | violations, third writer | seconds | s/round |"
    echo "|---|---|---|---|---|---|---|---|---|---|"
    for f in lio ours; do
      [ -f $PR_DIR/$f.caw ] && awk -F'\t' '{printf "| %s |", $1; for (i = 2; i <= NF; i++) printf " %s |", $i; print ""}' $PR_DIR/$f.caw
    done
    for f in lio ours; do
      for s in f-full; do
        [ -f $OUT/pr/$f-$s.txt ] || continue
        printf '\n%s, %s:\n\n```\n' $f $s; cat $OUT/pr/$f-$s.txt; printf '```\n'
      done
    done
  } > $OUT/pr-compare.md
  cat $OUT/pr-compare.md
}

# ---- LIO: its own port group for PR

# LIO keys a registration by its node ACL (ib_srpt gives the core no ISID), and ib_srpt names an RDMA/CM session by
# the initiator's IP address on the port-GUID group, which lio-lib.sh uses: there the three nexuses would share one ACL
# and be one I_T nexus to LIO's PR, and the address is no SRP TransportID. So PR gets the port-GID group, where
# ib_srpt names a session by its initiator port identifier: one ACL per nexus ("0x" initiator_ext interface id).
PR_LIO_BS=rd_mcp_1/pr0
pr_lio_wwn() {
  local g
  g=$(cat /sys/class/infiniband/rxe0/ports/1/gids/0); echo $CFG/srpt/0x${g//:}
}
pr_lio_acl() { echo 0x$1$(pr_iface); }

pr_lio_up() (
  set -eo pipefail
  local wwn T ext acl
  [ ! -d $CFG/srpt ] || { echo "LIO's srpt is already configured: PR needs its own port group (srp-compare's down?)"; exit 1; }
  modprobe configfs; mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
  modprobe target_core_mod
  modprobe ib_srpt srp_max_req_size=$LIO_IU
  # APTPL state goes to <dbroot>/pr (none of these registrations asks for it, fence_scsi --aptpl would)
  mkdir -p "$(cat $CFG/dbroot)/pr"
  mkdir -p $CFG/core/$PR_LIO_BS
  echo rd_pages=1024 > $CFG/core/$PR_LIO_BS/control   # 4 MiB
  echo 1 > $CFG/core/$PR_LIO_BS/enable
  mkdir -p $CFG/srpt
  echo $LIO_PORT > $CFG/srpt/discovery_auth/rdma_cm_port
  wwn=$(pr_lio_wwn); T=$wwn/tpg_1
  mkdir -p $T/lun/lun_$PR_LIO_LUN
  ln -s $CFG/core/$PR_LIO_BS $T/lun/lun_$PR_LIO_LUN/
  for ext in $PR_EXT_A $PR_EXT_B $PR_EXT_C; do
    acl=$T/acls/$(pr_lio_acl $ext)
    mkdir -p $acl/lun_$PR_LIO_LUN
    ln -s $T/lun/lun_$PR_LIO_LUN $acl/lun_$PR_LIO_LUN/
  done
  echo 1 > $T/enable
  echo "LIO up for PR: $T, ACLs $(ls $T/acls | tr '\n' ' ')"
)

pr_lio_down() (
  set -eo pipefail
  local T acl
  T=$(pr_lio_wwn)/tpg_1
  echo 0 > $T/enable
  for acl in $T/acls/*; do
    rm $acl/lun_$PR_LIO_LUN/lun_$PR_LIO_LUN; rmdir $acl/lun_$PR_LIO_LUN $acl
  done
  rm $T/lun/lun_$PR_LIO_LUN/$(basename $PR_LIO_BS); rmdir $T/lun/lun_$PR_LIO_LUN $T $(pr_lio_wwn)
  rmdir $CFG/core/$PR_LIO_BS $CFG/core/$(dirname $PR_LIO_BS)
  rmdir $CFG/srpt
  rmmod ib_srpt
)

pr_lio_line() {
  local ioc
  ioc=$(cat /sys/module/ib_srpt/parameters/srpt_service_guid)
  echo "id_ext=$ioc,ioc_guid=$ioc,dest=192.0.2.15:$LIO_PORT"
}

# ---- ours: the daemon ib-srp.sh runs, or (a plan of its own) one with only the memory LUN

PR_OURS_LOG=${IBSRP_LOG:-$OUT/pr-target.log}
pr_ours_daemon_up() (
  set -eo pipefail
  mkdir -p $PR_DIR/daemon
  {
    printf '[listen]\nprovider = "native"\naddress = "192.0.2.15"\nport = 5556\n'
    printf '[pipeline]\ncompletions = "event"\nbackend_threads = 0\nblocking_threads = 0\n'
    daemon_luns $PR_DIR/daemon 64 $PR_OURS_LUN:memory:512
  } > $PR_DIR/daemon/target.toml
  : > $PR_OURS_LOG
  daemon_start $PR_DIR/daemon $PR_OURS_LOG
  modprobe sd_mod
  modprobe ib_srp
)

# ---- the steps

pr_lio_steps() {
  step pr_lio_up pr_lio_up
  step pr_lio_logins pr_logins lio /dev/null "$(pr_lio_line)" $PR_LIO_LUN
  step pr_lio_sequence pr_sequence lio
  step pr_lio_fence pr_fence lio
  step pr_lio_caw pr_caw lio
  step pr_lio_logouts pr_logouts lio
  step pr_lio_down pr_lio_down
}

pr_ours_steps() {
  step pr_ours_logins pr_logins ours $PR_OURS_LOG "" $PR_OURS_LUN
  step pr_ours_sequence pr_sequence ours
  step pr_ours_fence pr_fence ours
  step pr_ours_caw pr_caw ours
  step pr_ours_logouts pr_logouts ours
}

pr_start=$(date +%s)
mkdir -p $PR_DIR $OUT/pr
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  # a plan of its own: rxe is up, nothing else
  [[ " $PR_TARGETS " != *" ours "* ]] || step pr_ours_daemon_up pr_ours_daemon_up
  modprobe sd_mod; modprobe ib_srp
fi
[[ " $PR_TARGETS " != *" lio "* ]] || pr_lio_steps
[[ " $PR_TARGETS " != *" ours "* ]] || pr_ours_steps
step pr_table pr_table
if [ "${BASH_SOURCE[0]}" = "$0" ] && [[ " $PR_TARGETS " == *" ours "* ]]; then
  step pr_ours_daemon_down daemon_stop $PR_DIR/daemon
fi
echo "persistent reservations: $(( $(date +%s) - pr_start )) s"

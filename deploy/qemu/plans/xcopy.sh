#!/bin/bash
# EXTENDED COPY(LID1) (SPC-4 6.4: 83h, with RECEIVE COPY RESULTS' OPERATING PARAMETERS 84h/03h) through Linux's own SRP
# initiator, with sg3-utils' sg_xcopy, the copy tool Linux ships: on LIO's ib_srpt and on our daemon in the same boot.
# sg_xcopy reads the copy manager's operating parameters, takes each unit's NAA designator from its VPD 83h into an
# identification CSCD (E4h), then sends one EXTENDED COPY per BPT blocks, each with one block-to-block segment (02h):
# the data never crosses the wire. Each copy writes a random pattern to the source with O_DIRECT, a random guard to the
# destination range and 1 MiB either side, copies, reads the destination back with O_DIRECT and compares: the copied
# range equals the source, the guard around it is untouched. On ours: 512-byte file LUN 0 -> rocksdb LUN 2 (through the
# source, skip and seek, BPT 2048: eight commands), 4096-byte file LUN 1 -> rocksdb LUN 3, memory LUN 4 -> LUN 0 sent
# to the destination (--on_dst), and LUN 0 -> LUN 1 (512- to 4096-byte blocks) refused, nothing written; standard
# INQUIRY's 3PC bit, REPORT SUPPORTED OPERATION CODES (sg_opcodes) and the Third-party Copy VPD page (8Fh) as sg_vpd
# decodes it; then 64 MiB copied by sg_xcopy against dd through the wire (a TCG guest's times: a ratio, nothing more).
# On LIO: three ramdisks (512, 512 and 4096-byte blocks, a unit serial each, which LIO's NAA designator and so its XCOPY
# need), the identity rows, the same 512-byte copy and the refusal. The rows go to $OUT/xcopy-compare.md (step,
# expectation, LIO's answer, ours); every command's output is kept in $OUT/xcopy/.
#
# Sourced by ib-srp.sh while our daemon is up with ib_srp attached and LIO is down (pr.sh took it down): LIO comes up
# its own way (below, as lio-lib.sh's), is tested, and goes down before our daemon is tested, so ours has the port and
# the CPU to itself. Ours must give every answer the table expects; LIO only the copy's data (its other rows are
# recorded, "DIFFERS" where it answers otherwise: Linux 6.1's LIO has neither REPORT SUPPORTED OPERATION CODES nor VPD
# 8Fh, and refuses a copy between block sizes with NOT READY, LOGICAL UNIT COMMUNICATION FAILURE where ours answers
# ILLEGAL REQUEST, INVALID FIELD IN PARAMETER LIST). Loads sg (sg_xcopy needs SCSI generic devices: the guest has no
# udev for the /dev/block links it would use for /dev/sdX). About a minute. Leaves ib_srp as it found it: LIO's nexus
# is deleted again.
XCOPY_DIR=/tmp/xcopy                    # the guest's tmpfs overlay
XCOPY_LIO_HBA=rd_mcp_2                  # lio-lib.sh's ramdisk is rd_mcp_0, pr.sh's rd_mcp_1
XCOPY_LIO_LUNS="0:512 1:512 2:4096"     # LUN:block size, 16 MiB each
XCOPY_LIO_ACL=192.0.2.15                # ib_srpt names an RDMA/CM initiator by its address (lio-lib.sh)
XCOPY_GUARD=1048576                     # the destination bytes either side of a copy that must stay as they were
XCOPY_TIME_MIB=64                       # the timing row's copy: LUN 0 -> LUN 4, whole units
. $REPO/deploy/qemu/plans/lio-lib.sh

# ---- devices

# xcopy_disk <name> <lun>: the /dev/sd disk of <name>'s LUN (LIO's by its vendor LIO-ORG, ours by RDMABLK)
xcopy_disk() {
  local dev
  dev=$(ibsrp_dev $2 $([ $1 = lio ] && echo LIO-ORG || echo RDMABLK))
  [ -b "$dev" ] || { echo "$1: no disk for LUN $2" >&2; return 1; }
  echo $dev
}

# xcopy_sg <disk>: its SCSI generic device (sg_xcopy's if= and of=)
xcopy_sg() {
  local g
  g=$(ls /sys/block/${1#/dev/}/device/scsi_generic 2>/dev/null | head -1)
  [ -n "$g" ] && [ -c /dev/$g ] || { echo "$1: no sg device" >&2; return 1; }
  echo /dev/$g
}

# clears whatever unit attention a login left on <disk>... (bounded)
xcopy_clear_ua() {
  local dev i
  for dev in "$@"; do
    for i in 1 2 3 4 5; do sg_turs $dev >/dev/null 2>&1 && break; done
  done
}

# ---- rows

# xcopy_row <name> <id> <expectation> <answer> <ok 0/1>: one row of <name>'s table. An answer that differs counts
# against ours always, against LIO only on the rows of XCOPY_LIO_REQUIRED (its copy's data)
XCOPY_LIO_REQUIRED="copy-512"
xcopy_row() {
  local mark=""
  if [ "$5" != 1 ]; then
    mark="DIFFERS: "
    [ $1 = lio ] && [[ " $XCOPY_LIO_REQUIRED " != *" $2 "* ]] || XCOPY_FAILED=$((XCOPY_FAILED + 1))
  fi
  printf '%s\t%s\t%s%s\n' "$2" "$3" "$mark" "$4" >> $XCOPY_DIR/$1.rows
  echo "[$1] $2: $mark$4 (expected: $3)"
}

# xcopy_cmd <name> <id> <cmd>...: runs a command, its output (both streams) into $OUT/xcopy/<name>-<id>.txt; XCOPY_RC
# is its exit status, XCOPY_TXT its output's file
xcopy_cmd() {
  local name=$1 id=$2
  shift 2
  XCOPY_TXT=$OUT/xcopy/$name-$id.txt
  XCOPY_RC=0
  { echo "# $*"; "$@"; } > $XCOPY_TXT 2>&1 || XCOPY_RC=$?
}

# sg3-utils' exit status in SCSI words (sg3_utils(8)), with the sense key and additional sense it printed (else, on
# a failure, the first line it printed: what a tool that prints no sense says)
xcopy_status() {
  local s sense=""
  case $1 in
    0) s=GOOD ;; 2) s="NOT READY" ;; 5) s="ILLEGAL REQUEST" ;; 6) s="UNIT ATTENTION" ;;
    9) s="INVALID COMMAND OPERATION CODE" ;; 11) s="ABORTED COMMAND" ;; *) s="exit status $1" ;;
  esac
  if [ $1 != 0 ]; then
    sense=$(sed -n 's/.*Sense key: *\(.*[^ ]\) *$/\1/p; s/^ *Additional sense: *\(.*[^ ]\) *$/\1/p' $XCOPY_TXT | head -2 | paste -sd/)
    [ -n "$sense" ] || sense=$(sed -n '2,$ {/[^ ]/ {s/^ *//; p; q}}' $XCOPY_TXT)
  fi
  echo "$s${sense:+ ($sense)}"
}

# ---- what the target says of its copy manager

# xcopy_identity <name> <lun>: standard INQUIRY's 3PC, REPORT SUPPORTED OPERATION CODES, VPD 8Fh
xcopy_identity() {
  local name=$1 dev got op83 op84 cmds seg
  dev=$(xcopy_sg "$(xcopy_disk $name $2)") || return 1
  xcopy_cmd $name inq sg_inq $dev
  got=$(grep -o '3PC=[01]' $XCOPY_TXT | head -1)
  xcopy_row $name inq "standard INQUIRY: 3PC=1" "$(xcopy_status $XCOPY_RC), ${got:-no 3PC field}" \
    $([ $XCOPY_RC = 0 ] && [ "$got" = 3PC=1 ] && echo 1 || echo 0)
  xcopy_cmd $name opcodes sg_opcodes $dev
  op83=$(awk '$1 == "83"' $XCOPY_TXT | tr -s ' ' | sed 's/^ //' | head -1)
  op84=$(awk '$1 == "84" && $2 == "3"' $XCOPY_TXT | tr -s ' ' | sed 's/^ //' | head -1)
  xcopy_row $name opcodes "REPORT SUPPORTED OPERATION CODES lists 83h/00h and 84h/03h" \
    "$(xcopy_status $XCOPY_RC); 83h: ${op83:-absent}; 84h/03h: ${op84:-absent}" \
    $([ $XCOPY_RC = 0 ] && [ -n "$op83" ] && [ -n "$op84" ] && echo 1 || echo 0)
  xcopy_cmd $name vpd-8f-hex sg_vpd -p 0x8f -H $dev
  xcopy_cmd $name vpd-8f sg_vpd -p 0x8f $dev
  # the Supported Commands descriptor's lines (two-space indent under " Supported commands:"), and what sg_vpd warns of
  cmds=$(awk '/^ Supported commands:/ {f = 1; next} /^ [^ ]/ {f = 0} f {sub(/^ +/, ""); print}' $XCOPY_TXT | paste -sd,)
  seg=$(sed -n 's/^ *Maximum segment length: *//p' $XCOPY_TXT | head -1)
  xcopy_row $name vpd-8f "VPD 8Fh decodes; Supported Commands lists Extended copy(LID1) and Receive copy operating parameters" \
    "$(xcopy_status $XCOPY_RC); commands: ${cmds:-none}; maximum segment length: ${seg:--}" \
    $([ $XCOPY_RC = 0 ] && [[ ${cmds,,} == *"extended copy(lid1)"* && ${cmds,,} == *"receive copy operating parameters"* ]] \
      && ! grep -qiE 'unexpected|too short|short descriptor|wrong so trim' $XCOPY_TXT && echo 1 || echo 0)
}

# xcopy_params <name> <id>: the operating parameters sg_xcopy -v printed in copy <id>'s output (the source's, first)
xcopy_params() {
  local name=$1 f=$OUT/xcopy/$1-$2.txt impl seg held
  impl=$(awk '/Implemented descriptor list:/ {n++; f = 1; next} f && /^        [^ ]/ {if (n == 1) {sub(/^ +/, ""); print}; next}
              {f = 0}' $f | paste -sd,)
  seg=$(sed -n 's/^ *Maximum segment length: *//p' $f | head -1)
  held=$(sed -n 's/^ *Held data limit: *//p' $f | head -1)
  xcopy_row $name op-params "RECEIVE COPY RESULTS (OPERATING PARAMETERS): block to block segments (02h), identification CSCDs (E4h)" \
    "implemented: ${impl:-none}; maximum segment length: ${seg:--}; held data limit: ${held:--}" \
    $([[ $impl == *"Copy Block to Block device"* && $impl == *"Identification target descriptor"* ]] && echo 1 || echo 0)
}

# ---- copies

# xcopy_copy <name> <id> <copy|refused> <src lun> <skip> <dst lun> <seek> <count> <src|dst> [bpt]: <count> source
# blocks from LBA <skip> of one unit to LBA <seek> of another by sg_xcopy (the XCOPY sent to the source or the
# destination; BPT blocks a command, sg_xcopy's default without it: the most its operating parameters allow). The
# destination range and 1 MiB either side hold a random guard first; after, the range must equal the source's pattern
# (copy) or the guard (refused: sg_xcopy fails), and the guard either side is untouched. One row; fails only if a device
# or a file operation fails.
xcopy_copy() {
  local name=$1 id=$2 want=$3 sl=$4 skip=$5 dl=$6 seek=$7 count=$8 on=$9 bpt=${10:-}
  local s d ss ds sbs dbs bytes at f=$XCOPY_DIR/$1-$2 same cmds expect answer ok=0 n
  s=$(xcopy_disk $name $sl) && d=$(xcopy_disk $name $dl) && ss=$(xcopy_sg $s) && ds=$(xcopy_sg $d) || return 1
  sbs=$(blockdev --getss $s); dbs=$(blockdev --getss $d)
  bytes=$((count * sbs)); at=$((seek * dbs - XCOPY_GUARD))
  head -c $bytes /dev/urandom > $f.src
  head -c $((bytes + 2 * XCOPY_GUARD)) /dev/urandom > $f.guard
  dd if=$f.src of=$s bs=1M seek=$((skip * sbs)) oflag=direct,seek_bytes status=none \
    && dd if=$f.guard of=$d bs=1M seek=$at oflag=direct,seek_bytes status=none \
    || { echo "$name $id: the pattern or the guard could not be written"; return 1; }
  xcopy_clear_ua $ss $ds
  xcopy_cmd $name $id sg_xcopy -vvvv if=$ss of=$ds $([ $sbs = $dbs ] && echo bs=$sbs) count=$count skip=$skip \
    seek=$seek ${bpt:+bpt=$bpt} --on_$on
  dd if=$d of=$f.back bs=1M skip=$at count=$((bytes + 2 * XCOPY_GUARD)) iflag=direct,skip_bytes,count_bytes status=none \
    || { echo "$name $id: the destination could not be read back"; return 1; }
  if [ $want = copy ]; then
    { head -c $XCOPY_GUARD $f.guard; cat $f.src; tail -c $XCOPY_GUARD $f.guard; } > $f.want
  else
    cp $f.guard $f.want
  fi
  cmp -s $f.back $f.want && same=1 || same=0
  cmds=$(sed -n 's/^sg_xcopy: \([0-9]* blocks, [0-9]* commands*\)$/\1/p' $XCOPY_TXT)
  n="$count $sbs-byte blocks, LBA $skip -> LBA $seek$([ $sbs = $dbs ] || echo " of a unit of $dbs-byte blocks"), sent to the $on"
  if [ $want = copy ]; then
    expect="GOOD; $n${bpt:+, $bpt blocks a command}: the range equals the source, 1 MiB either side untouched"
    answer="LUN $sl -> $dl: $(xcopy_status $XCOPY_RC)${cmds:+, $cmds}; destination $([ $same = 1 ] && echo "as expected" || echo "DIFFERENT")"
    [ $XCOPY_RC = 0 ] && [ $same = 1 ] && ok=1
  else
    expect="refused (non-zero exit); $n: nothing written"
    answer="LUN $sl -> $dl: $(xcopy_status $XCOPY_RC); destination $([ $same = 1 ] && echo "untouched" || echo "WRITTEN")"
    [ $XCOPY_RC != 0 ] && [ $same = 1 ] && ok=1
  fi
  xcopy_row $name $id "$expect" "$answer" $ok
}

# xcopy_checks <name>: the rows of <name> (lio: identity, the 512-byte copy, the refusal; ours: all), into
# $XCOPY_DIR/<name>.rows; fails if a row counts (xcopy_row)
xcopy_checks() {
  local name=$1 l dev
  XCOPY_FAILED=0
  : > $XCOPY_DIR/$name.rows
  modprobe sg || { echo "no sg module"; return 1; }
  for l in $([ $name = lio ] && echo $XCOPY_LIO_LUNS || echo $IBSRP_LUNS); do
    dev=$(xcopy_disk $name ${l%%:*}) || return 1
    xcopy_clear_ua $dev
  done
  xcopy_identity $name 0 || return 1
  xcopy_copy $name copy-512 copy 0 2048 $([ $name = lio ] && echo 1 || echo 2) 8192 16384 src 2048 || return 1
  xcopy_params $name copy-512
  if [ $name = ours ]; then
    xcopy_copy ours copy-4096 copy 1 256 3 1024 2048 src || return 1
    xcopy_copy ours copy-on-dst copy 4 2048 0 49152 16384 dst || return 1
  fi
  xcopy_copy $name refused refused 0 0 $([ $name = lio ] && echo 2 || echo 1) 256 2048 src || return 1
  [ $XCOPY_FAILED = 0 ] || { echo "$name: $XCOPY_FAILED EXTENDED COPY answers differ"; return 1; }
}

# 64 MiB from LUN 0 to LUN 4 by sg_xcopy (copied inside the target), checked, then by dd through ib_srp (read and
# written back over the wire, O_DIRECT, 1 MiB at a time): one row with both times and their ratio. A TCG guest: rxe,
# the kernel and the daemon share two emulated CPUs, so only the ratio means anything, and only here.
xcopy_timing() (
  set -eo pipefail
  local s d ss ds t0 t1 t2 t3 sum0 sum4 cmds n=$((XCOPY_TIME_MIB * 1048576 / 512)) txt=$OUT/xcopy/ours-timing.txt
  s=$(xcopy_disk ours 0); d=$(xcopy_disk ours 4); ss=$(xcopy_sg $s); ds=$(xcopy_sg $d)
  [ "$(blockdev --getsize64 $s)" -ge $((XCOPY_TIME_MIB << 20)) ] && [ "$(blockdev --getsize64 $d)" -ge $((XCOPY_TIME_MIB << 20)) ] \
    || { echo "LUN 0 or LUN 4 is smaller than $XCOPY_TIME_MIB MiB"; exit 1; }
  sum0=$(dd if=$s bs=1M count=$XCOPY_TIME_MIB iflag=direct status=none | md5sum)
  t0=$EPOCHREALTIME
  sg_xcopy if=$ss of=$ds bs=512 count=$n --on_src > $txt 2>&1 || { echo "the $XCOPY_TIME_MIB MiB sg_xcopy failed (see $txt)"; exit 1; }
  t1=$EPOCHREALTIME
  sum4=$(dd if=$d bs=1M count=$XCOPY_TIME_MIB iflag=direct status=none | md5sum)
  [ "$sum0" = "$sum4" ] || { echo "LUN 4 after the $XCOPY_TIME_MIB MiB sg_xcopy differs from LUN 0"; exit 1; }
  t2=$EPOCHREALTIME
  dd if=$s of=$d bs=1M count=$XCOPY_TIME_MIB iflag=direct oflag=direct status=none
  t3=$EPOCHREALTIME
  cmds=$(sed -n 's/^sg_xcopy: [0-9]* blocks, \([0-9]* commands*\)$/\1/p' $txt)
  printf '%s\t%s\t%s\n' timing-${XCOPY_TIME_MIB}MiB \
    "informational (TCG guest): $XCOPY_TIME_MIB MiB LUN 0 -> LUN 4 by sg_xcopy against dd bs=1M iflag=direct oflag=direct through ib_srp" \
    "$(awk "BEGIN {x = $t1 - $t0; d = $t3 - $t2; printf \"sg_xcopy %.2f s ($cmds), dd %.2f s: sg_xcopy %.1fx as fast\", x, d, d / x}")" \
    >> $XCOPY_DIR/ours.rows
  tail -1 $XCOPY_DIR/ours.rows
)

# ---- LIO: three ramdisks on lio-lib.sh's port group, every LUN mapped to the initiator (LIO's XCOPY finds units
# only among those the session's ACL maps)

xcopy_lio_up() (
  set -eo pipefail
  local l n bs dev wwn T ioc i
  modprobe configfs; mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
  modprobe target_core_mod
  [ ! -d $CFG/srpt ] || { echo "LIO's srpt is already configured (srp-compare's or pr.sh's still up?)"; exit 1; }
  modprobe ib_srpt srp_max_req_size=$LIO_IU
  for l in $XCOPY_LIO_LUNS; do
    IFS=: read -r n bs <<< "$l"
    dev=$CFG/core/$XCOPY_LIO_HBA/xc$n
    mkdir -p $dev
    echo rd_pages=4096 > $dev/control                     # 16 MiB
    cat /proc/sys/kernel/random/uuid > $dev/wwn/vpd_unit_serial  # LIO reports an NAA designator only with one
    echo 1 > $dev/enable
    echo $bs > $dev/attrib/block_size
    [ "$(cat $dev/attrib/emulate_3pc)" = 1 ] || { echo "$dev: emulate_3pc is not 1"; exit 1; }
  done
  mkdir -p $CFG/srpt
  echo $LIO_PORT > $CFG/srpt/discovery_auth/rdma_cm_port
  wwn=$(lio_tpg); T=$wwn/$(basename $wwn)
  mkdir -p $T
  for l in $XCOPY_LIO_LUNS; do
    n=${l%%:*}
    mkdir -p $T/lun/lun_$n && ln -s $CFG/core/$XCOPY_LIO_HBA/xc$n $T/lun/lun_$n/
    mkdir -p $T/acls/$XCOPY_LIO_ACL/lun_$n && ln -s $T/lun/lun_$n $T/acls/$XCOPY_LIO_ACL/lun_$n/
  done
  echo 1 > $T/enable
  ioc=$(cat /sys/module/ib_srpt/parameters/srpt_service_guid)
  ibsrp_add_target "id_ext=$ioc,ioc_guid=$ioc,dest=192.0.2.15:$LIO_PORT"
  for i in $(seq 1 60); do
    xcopy_disk lio 0 >/dev/null 2>&1 && xcopy_disk lio 1 >/dev/null 2>&1 && xcopy_disk lio 2 >/dev/null 2>&1 && break
    sleep 0.5
  done
  modprobe sg
  for l in $XCOPY_LIO_LUNS; do
    dev=$(xcopy_disk lio ${l%%:*}) || { echo "LIO's LUN ${l%%:*} did not appear"; exit 1; }
    [ "$(blockdev --getss $dev)" = ${l##*:} ] || { echo "LIO's LUN ${l%%:*}: $(blockdev --getss $dev)-byte blocks"; exit 1; }
    echo "LIO LUN $l: $dev $(xcopy_sg $dev)"
  done
)

# ib_srp logged out of LIO (its remote port deleted, its SCSI host waited for), LIO down
xcopy_lio_down() (
  set -eo pipefail
  local dev host i l n wwn T
  if dev=$(xcopy_disk lio 0 2>/dev/null); then
    host=$(basename "$(readlink -f /sys/block/${dev#/dev/}/device)"); host=${host%%:*}
    echo 1 > /sys/class/srp_remote_ports/port-$host:1/delete
    for i in $(seq 1 60); do [ -e /sys/class/scsi_host/host$host ] || break; sleep 0.5; done
    [ ! -e /sys/class/scsi_host/host$host ] || { echo "LIO's SCSI host $host stayed after its port was deleted"; exit 1; }
  fi
  wwn=$(lio_tpg); T=$wwn/$(basename $wwn)
  echo 0 > $T/enable
  for l in $XCOPY_LIO_LUNS; do
    n=${l%%:*}
    rm $T/acls/$XCOPY_LIO_ACL/lun_$n/lun_$n; rmdir $T/acls/$XCOPY_LIO_ACL/lun_$n
    rm $T/lun/lun_$n/xc$n; rmdir $T/lun/lun_$n
  done
  rmdir $T/acls/$XCOPY_LIO_ACL $T $wwn
  for l in $XCOPY_LIO_LUNS; do rmdir $CFG/core/$XCOPY_LIO_HBA/xc${l%%:*}; done
  rmdir $CFG/core/$XCOPY_LIO_HBA
  rmdir $CFG/srpt   # unregisters the fabric, which holds ib_srpt
  rmmod ib_srpt
)

# ---- the table

# $OUT/xcopy-compare.md from the rows of LIO and ours (a step a target did not run shows "not run")
xcopy_table() {
  local f
  for f in lio ours; do [ -f $XCOPY_DIR/$f.rows ] || : > $XCOPY_DIR/$f.rows; done
  {
    echo "# EXTENDED COPY(LID1) through ib_srp: sg_xcopy on LIO and on ours"
    echo
    echo "sg_xcopy $(sg_xcopy --version 2>&1 | sed 's/^sg_xcopy: *//') between SCSI generic devices of one SRP login." \
         "LIO: ib_srpt, ramdisk LUNs 0 and 1 (512-byte blocks) and 2 (4096); ours: LUNs $IBSRP_LUNS. Copies: a" \
         "random pattern written to the source, a random guard to the destination range and 1 MiB either side, all" \
         "O_DIRECT; after the copy the destination read back (O_DIRECT) must be the pattern inside the guard, or" \
         "(refused) the guard alone. Exit statuses are sg3-utils' (5: ILLEGAL REQUEST). \"DIFFERS\" marks another" \
         "answer (it fails the boot for ours, for LIO only on the copy's data). Outputs (sg_xcopy -vvvv: CDBs, the" \
         "parameter lists and responses in hex): xcopy/<target>-<step>.txt."
    echo
    echo "| step | expectation | LIO | ours |"
    echo "|---|---|---|---|"
    awk -F'\t' 'FNR == 1 {file++} file == 1 {if (!($1 in e)) {order[++n] = $1; e[$1] = $2}; lio[$1] = $3}
                file == 2 {if (!($1 in e)) {order[++n] = $1; e[$1] = $2}; ours[$1] = $3}
                END {for (i = 1; i <= n; i++) {s = order[i]; printf "| %s | %s | %s | %s |\n", s, e[s],
                     (s in lio) ? lio[s] : "not run", (s in ours) ? ours[s] : "not run"}}' $XCOPY_DIR/lio.rows $XCOPY_DIR/ours.rows
  } > $OUT/xcopy-compare.md
  cat $OUT/xcopy-compare.md
}

# ---- the steps

xcopy_start=$(date +%s)
rm -rf $XCOPY_DIR; mkdir -p $XCOPY_DIR $OUT/xcopy
step xcopy_lio_up xcopy_lio_up
step xcopy_lio xcopy_checks lio
step xcopy_lio_down xcopy_lio_down
step xcopy_ours xcopy_checks ours
step xcopy_ours_timing xcopy_timing
step xcopy_table xcopy_table
echo "EXTENDED COPY: $(( $(date +%s) - xcopy_start )) s"

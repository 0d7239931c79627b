#!/bin/bash
# The native provider's perf tools against perftest over rxe in the same boot (check.sh runs this boot with
# multi-threaded TCG, where busy-polling processes run side by side as on real hardware); ratios to summary.txt.
# Both sides busy-poll (perftest always does; ours with --poll busy). Emulation makes the absolute figures
# meaningless; the ratios show what the Java path costs over rxe.
# $JAVA and $PERF come from guest.sh

# a JVM that the TCG bug crashes (see run.sh) gets one more try
retry() { "$@" || { echo "retrying: $*"; "$@"; }; }
# perftest and our tools on rxe0, same boot, same sizes
perftest() { # perftest <tool> <args...>: server and client on rxe0 over rdma_cm; client output to stdout
  local tool=$1; shift
  $tool -d rxe0 -x 1 -R "$@" > /dev/null 2>&1 &
  sleep 2
  timeout 180 $tool -d rxe0 -x 1 -R "$@" 192.0.2.15
  local rc=$?; wait; return $rc
}
step perftest_write_bw_64k bash -c "$(declare -f perftest); perftest ib_write_bw -s 65536 -n 3000 | tee $OUT/perftest-write-bw-64k.txt"
step ours_write_bw_64k retry bash -c "$PERF write-bw --provider native --poll busy --address 192.0.2.15 -s 65536 --bytes 196608000 > $OUT/ours-write-bw-64k.txt"
step perftest_write_bw_1m bash -c "$(declare -f perftest); perftest ib_write_bw -s 1048576 -n 300 | tee $OUT/perftest-write-bw-1m.txt"
step ours_write_bw_1m retry bash -c "$PERF write-bw --provider native --poll busy --address 192.0.2.15 -s 1048576 --bytes 314572800 > $OUT/ours-write-bw-1m.txt"
step perftest_send_lat bash -c "$(declare -f perftest); perftest ib_send_lat -s 64 -n 3000 | tee $OUT/perftest-send-lat.txt"
step ours_send_lat retry bash -c "$PERF send-lat --provider native --poll busy --address 192.0.2.15 -n 3000 > $OUT/ours-send-lat.txt"

# ib_write_bw: "#bytes #iterations BW peak[MB/sec] BW average[MB/sec] MsgRate[Mpps]"; ours: "bytes iterations MB/s Mmsg/s"
bw() { awk -v s="$2" '$1 == s && NF >= 4 {v = $4} END {print v}' "$1"; }
ours_bw() { awk -v s="$2" '$1 == s && NF == 4 {v = $3} END {print v}' "$1"; }
# ib_send_lat: "#bytes #iterations t_min t_max t_typical t_avg t_stdev 99% 99.9%"; ours: "bytes min p50 avg p99 p99.9"
lat() { awk '$1 == 64 && NF >= 7 {v = $5} END {print v}' "$1"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{if (b > 0) printf "%.2f", a / b; else print "?"}'; }
ours_lat() { awk '$1 == 64 && NF == 6 {v = $3} END {print v}' "$1"; }
{
  for s in 64k 1m; do
    size=$([ $s = 64k ] && echo 65536 || echo 1048576)
    p=$(bw $OUT/perftest-write-bw-$s.txt $size); o=$(ours_bw $OUT/ours-write-bw-$s.txt $size)
    echo "write_bw $s: perftest ${p:-?} MB/s, ours ${o:-?} MB/s, ratio $(ratio "$o" "$p")"
  done
  p=$(lat $OUT/perftest-send-lat.txt); o=$(ours_lat $OUT/ours-send-lat.txt)
  echo "send_lat 64B typical/p50: perftest ${p:-?} us, ours ${o:-?} us, ratio $(ratio "$o" "$p")"
} | tee -a $S
cat $OUT/perftest-*.txt $OUT/ours-*.txt

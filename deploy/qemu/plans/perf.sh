#!/bin/bash
# The native provider's perf tools against perftest over rxe in the same boot (check.sh runs this boot with
# multi-threaded TCG, where busy-polling processes run side by side as on real hardware); ratios to summary.txt.
# Both sides busy-poll (perftest always does; ours with --poll busy). Emulation makes the absolute figures
# meaningless; the ratios show what the Java path costs over rxe.
# Every step fails when its tool fails (perftest's exit status survives the tee), and the last step fails when
# a figure is missing, so that a ratio never reads "?" in a passing run.
# $JAVA and $PERF come from guest.sh ($PERF writes a crashing JVM's report to $OUT/hs_err_pid*.log)

# The one known failure worth another try: a JVM that multi-threaded TCG crashes (see run.sh), recognised by its
# signature, the fatal error report the JVM writes (hs_err file) naming compiled Java code as the problematic
# frame, or a crashing thread that was running Java code (`_thread_in_Java`: in clean-clone CI of dd94356 the
# interpreter jumped to the address of a MethodHandle object, RIP = RSI = the oop, SEGV_ACCERR, and the report named
# that bare address as a C frame), and its death by a signal (exit status > 128). A crash in our native calls has
# the thread `_thread_in_native` and is not retried. About one JVM run in 12 to 20 meets it, so up to two more
# tries; any other failure, or a third crash, fails the step.
retry_tcg_crash() {
  local before rc attempt report
  for attempt in 1 2 3; do
    before=$(ls $OUT/hs_err_pid*.log 2>/dev/null | wc -l)
    "$@"; rc=$?
    report=$(ls -t $OUT/hs_err_pid*.log 2>/dev/null | head -1)
    if [ $rc -le 128 ] || [ "$(ls $OUT/hs_err_pid*.log 2>/dev/null | wc -l)" -le "$before" ] \
       || ! { grep -A1 '^# Problematic frame:' "$report" | grep -q '^# J ' \
              || grep -q '^Current thread .*\[_thread_in_Java,' "$report"; }; then
      return $rc
    fi
    echo "the JVM crashed running Java code (exit $rc, $report): the TCG crash run.sh describes (attempt $attempt)"
  done
  return $rc
}
export -f retry_tcg_crash
# perftest and our tools on rxe0, same boot, same sizes.
# perftest <tool> <args...>: server and client on rxe0 over rdma_cm; client output to stdout. Both sides are bounded:
# a client that fails leaves a server waiting for it for ever (a CI boot hung so until the guest's own limit), so the
# server runs under timeout too and is killed when the client fails. Two failures are worth another try: perftest's
# clock sampling, which under emulation sometimes fits badly ("Correlation coefficient r^2: 0.87 < 0.9", then "Can't
# produce a report": seen once in a CI boot); and a server that was not listening yet when the client connected
# (the client's connection "RDMA_CM_EVENT_REJECTED; error: 8", no listener on the port, after which ib_send_lat
# crashed with SIGSEGV: clean-clone CI of 087c5dd, 2 s after the server's start under TCG), so each try waits 2 s
# longer for the server. Up to two more tries; any other failure fails at once.
perftest() {
  local tool=$1; shift
  local attempt rc server server_rc err=/tmp/perftest-client.err serr=/tmp/perftest-server.err
  for attempt in 1 2 3; do
    timeout 240 $tool -d rxe0 -x 1 -R "$@" > /dev/null 2> $serr &
    server=$!
    sleep $((2 * attempt))
    timeout 180 $tool -d rxe0 -x 1 -R "$@" 192.0.2.15 2> $err
    rc=$?
    cat $err >&2
    [ $rc = 0 ] || kill $server 2>/dev/null
    wait $server; server_rc=$?
    [ $rc = 0 ] && [ $server_rc = 0 ] && return 0
    sed 's/^/server: /' $serr >&2
    if grep -q "RDMA_CM_EVENT_REJECTED; error: 8" $err; then
      echo "$tool: the server was not listening yet (client exit $rc, server exit $server_rc), attempt $attempt" >&2
      continue
    fi
    if ! grep -q "Can't produce a report" $err $serr; then
      [ $rc = 0 ] && return $server_rc; return $rc
    fi
    echo "$tool: perftest's clock sampling failed (client exit $rc, server exit $server_rc), attempt $attempt" >&2
  done
  [ $rc = 0 ] && return $server_rc; return $rc
}
export -f perftest
ours() { # ours <output file> <perf command args...>
  local out=$1; shift
  $PERF "$@" --provider native --poll busy --address 192.0.2.15 > "$out"
}
export -f ours
step perftest_write_bw_64k bash -o pipefail -c "perftest ib_write_bw -s 65536 -n 3000 | tee $OUT/perftest-write-bw-64k.txt"
step ours_write_bw_64k retry_tcg_crash ours $OUT/ours-write-bw-64k.txt write-bw -s 65536 --bytes 196608000
step perftest_write_bw_1m bash -o pipefail -c "perftest ib_write_bw -s 1048576 -n 300 | tee $OUT/perftest-write-bw-1m.txt"
step ours_write_bw_1m retry_tcg_crash ours $OUT/ours-write-bw-1m.txt write-bw -s 1048576 --bytes 314572800
step perftest_send_lat bash -o pipefail -c "perftest ib_send_lat -s 64 -n 3000 | tee $OUT/perftest-send-lat.txt"
# 20 000 untimed round trips first: under emulation the JIT needs that long to compile the path (perftest is C)
step ours_send_lat retry_tcg_crash ours $OUT/ours-send-lat.txt send-lat -n 3000 --warmup 20000

# ib_write_bw: "#bytes #iterations BW peak[MB/sec] BW average[MB/sec] MsgRate[Mpps]"; ours: "bytes iterations MB/s Mmsg/s"
bw() { awk -v s="$2" '$1 == s && NF >= 4 {v = $4} END {print v}' "$1"; }
ours_bw() { awk -v s="$2" '$1 == s && NF == 4 {v = $3} END {print v}' "$1"; }
# ib_send_lat: "#bytes #iterations t_min t_max t_typical t_avg t_stdev 99% 99.9%"; ours: "bytes min p50 avg p99 p99.9"
lat() { awk '$1 == 64 && NF >= 7 {v = $5} END {print v}' "$1"; }
ours_lat() { awk '$1 == 64 && NF == 6 {v = $3} END {print v}' "$1"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{if (a > 0 && b > 0) printf "%.2f", a / b; else print "?"}'; }
{
  for s in 64k 1m; do
    size=$([ $s = 64k ] && echo 65536 || echo 1048576)
    p=$(bw $OUT/perftest-write-bw-$s.txt $size); o=$(ours_bw $OUT/ours-write-bw-$s.txt $size)
    echo "write_bw $s: perftest ${p:-?} MB/s, ours ${o:-?} MB/s, ratio $(ratio "$o" "$p")"
  done
  p=$(lat $OUT/perftest-send-lat.txt); o=$(ours_lat $OUT/ours-send-lat.txt)
  echo "send_lat 64B typical/p50: perftest ${p:-?} us, ours ${o:-?} us, ratio $(ratio "$o" "$p")"
} > $OUT/ratios.txt
cat $OUT/ratios.txt >> $S
cat $OUT/perftest-*.txt $OUT/ours-*.txt
step perf_every_figure_read bash -c "! grep -q '?' $OUT/ratios.txt"

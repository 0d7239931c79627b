#!/bin/bash
# The soft provider against the kernel's soft iWARP driver (siw; run.sh --siw), with librdmacm's rping on the
# other end, both directions: SEND/RECV, RDMA READ and RDMA WRITE between a soft-provider QP and a siw QP
# connected through the kernel's rdma_cm. siw lives in network namespace ns1 (192.0.3.2); the soft provider in
# the root namespace (192.0.3.1), so the traffic crosses a veth pair.
# $JAVA and $PERF come from guest.sh

await_line() { # await_line <file> <text> <seconds>
  for _ in $(seq 1 $(( $3 * 10 ))); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done; return 1
}
ip netns exec ns1 rping -s -a 192.0.3.2 -v -C 10 > $OUT/rping-siw-server.log 2>&1 &
sleep 2
step interop_soft_client_siw_server timeout 120 $PERF rping --provider soft -a 192.0.3.2 -C 10
wait
$PERF rping --provider soft -s -a 192.0.3.1 > $OUT/rping-soft-server.log 2>&1 &
await_line $OUT/rping-soft-server.log "listening" 60
step interop_siw_client_soft_server timeout 120 ip netns exec ns1 rping -c -a 192.0.3.1 -v -C 10
wait
cat $OUT/rping-soft-server.log
grep -q "served 10 pings" $OUT/rping-soft-server.log; step interop_soft_server_verified test $? = 0

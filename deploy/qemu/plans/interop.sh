#!/bin/bash
# The soft provider against the kernel's soft iWARP driver (siw; run.sh --siw), with librdmacm's rping on the
# other end, both directions: SEND/RECV, RDMA READ and RDMA WRITE between a soft-provider QP and a siw QP
# connected through the kernel's rdma_cm. siw lives in network namespace ns1 (192.0.3.2); the soft provider in
# the root namespace (192.0.3.1), so the traffic crosses a veth pair.
# Both sides check the data: rping -V compares every echo with what it sent; our client does the same, and our
# server compares every ping it RDMA-READs with rping's pattern.
# Evidence for a failing step: each direction's packets on iw0 (interop-*.pcap, when tcpdump is installed;
# `tshark -r FILE -d tcp.port==7174,iwarp_mpa` decodes them), the soft side's DEBUG log, the guest's dmesg.
# $JAVA, $PERF_CP and $PERF come from guest.sh

await_line() { # await_line <file> <text> <seconds>
  for _ in $(seq 1 $(( $3 * 10 ))); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done; return 1
}
SOFT_RPING="$JAVA -Djava.util.logging.config.file=$REPO/deploy/qemu/soft-logging.properties --enable-native-access=ALL-UNNAMED \
  -cp $PERF_CP org.rdmablock.tools.perf.PerfCommand rping --provider soft"
capture_pid=
capture() { # capture <name>: packets of port 7174 on iw0 to $OUT/<name>.pcap until capture_end
  command -v tcpdump > /dev/null || return 0
  tcpdump -i iw0 -s 0 -U -w "$OUT/$1.pcap" tcp port 7174 > "$OUT/$1.tcpdump.log" 2>&1 &
  capture_pid=$!
  await_line "$OUT/$1.tcpdump.log" "listening on" 10
}
capture_end() { [ -n "$capture_pid" ] && { sleep 0.5; kill $capture_pid; wait $capture_pid; capture_pid=; }; return 0; }

capture interop-soft-client
ip netns exec ns1 rping -s -a 192.0.3.2 -v -V -C 10 > $OUT/rping-siw-server.log 2>&1 &
siw_server=$!
sleep 2
step interop_soft_client_siw_server timeout 120 $SOFT_RPING -a 192.0.3.2 -C 10
wait $siw_server; step interop_siw_server_exit test $? = 0
capture_end

capture interop-siw-client
$SOFT_RPING -s -a 192.0.3.1 > $OUT/rping-soft-server.log 2>&1 &
soft_server=$!
await_line $OUT/rping-soft-server.log "listening" 60
step interop_siw_client_soft_server timeout 120 ip netns exec ns1 rping -c -a 192.0.3.1 -v -V -C 10
wait $soft_server; soft_rc=$?
capture_end
cat $OUT/rping-siw-server.log $OUT/rping-soft-server.log
step interop_soft_server_checked bash -c "test $soft_rc = 0 && grep -q 'served 10 pings, each read matched' $OUT/rping-soft-server.log"
dmesg > $OUT/dmesg.txt
# siw reports protocol violations it sees from its peer in the kernel log (IRQ exceeded, ORQ empty, ...)
step interop_siw_saw_no_errors bash -c "! grep -E 'siw: |RX out of state' $OUT/dmesg.txt | grep -vE 'taints kernel|verification failed'"

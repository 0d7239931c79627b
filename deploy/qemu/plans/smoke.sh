#!/bin/bash
# A quick look at the guest's RDMA stack: devices, a verbs ping-pong, the JVM.
step ibv_devinfo ibv_devinfo -d rxe0
step rping bash -c 'rping -s -a 192.0.2.15 -C 3 & sleep 2; timeout 60 rping -c -a 192.0.2.15 -C 3 -v; wait'
step java $JAVA -version
if [ "$SIW" = 1 ]; then
  step siw_rping bash -c 'ip netns exec ns1 rping -s -a 192.0.3.2 -C 3 & sleep 2; timeout 60 rping -c -a 192.0.3.2 -C 3 -v; wait'
fi

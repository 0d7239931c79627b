#!/bin/bash
# The first boot of check.sh (with --siw): the native provider's conformance suite on rxe, the target's end-to-end
# suite and the initiator library against it and against LIO's ib_srpt on rxe, then the soft provider against siw
# (rping both ways, then Linux's nvme-rdma over siw against our NVMe front end on the soft provider).
# Linux's ib_srp and the archive have a boot of their own (srp.sh).
bash $REPO/deploy/qemu/plans/verbs-native.sh
bash $REPO/deploy/qemu/plans/target-native.sh
bash $REPO/deploy/qemu/plans/initiator-native.sh
bash $REPO/deploy/qemu/plans/lio-initiator.sh
bash $REPO/deploy/qemu/plans/interop.sh
bash $REPO/deploy/qemu/plans/nvme-siw.sh

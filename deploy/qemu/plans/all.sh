#!/bin/bash
# The first boot of check.sh (with --siw): the native provider's conformance suite on rxe, the target's end-to-end
# suite and the initiator library against it and against LIO's ib_srpt on rxe, Linux's ib_srp against our target
# daemon and beside LIO (ib-srp.sh, which runs srp-compare.sh), the distribution archive started on rxe, then the
# soft provider against siw.
bash $REPO/deploy/qemu/plans/verbs-native.sh
bash $REPO/deploy/qemu/plans/target-native.sh
bash $REPO/deploy/qemu/plans/initiator-native.sh
bash $REPO/deploy/qemu/plans/lio-initiator.sh
bash $REPO/deploy/qemu/plans/ib-srp.sh
bash $REPO/deploy/qemu/plans/archive.sh
bash $REPO/deploy/qemu/plans/interop.sh

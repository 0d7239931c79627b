#!/bin/bash
# The third boot of check.sh: Linux's ib_srp against our target daemon and beside LIO (ib-srp.sh, which runs
# srp-compare.sh and pr.sh: persistent reservations and fence_scsi on both), then the distribution archive's daemon on
# rxe (archive.sh), then Linux's nvme-rdma against our NVMe front end (nvme-rdma.sh).
bash $REPO/deploy/qemu/plans/ib-srp.sh
bash $REPO/deploy/qemu/plans/archive.sh
bash $REPO/deploy/qemu/plans/nvme-rdma.sh

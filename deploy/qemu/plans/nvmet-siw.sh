#!/bin/bash
# An experiment, not in check.sh: nvme-siw.sh's control, Linux's own nvme-rdma over siw against Linux's own nvmet-rdma
# over siw (nothing of ours in the path). Run: deploy/qemu/run.sh --siw --timeout 900 deploy/qemu/plans/nvmet-siw.sh.
SIW_TARGET=nvmet
. $REPO/deploy/qemu/plans/nvme-siw.sh

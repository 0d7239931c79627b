package org.rdmablock.target.nvme;

import org.rdmablock.protocol.nvme.NvmeCompletion;
import org.rdmablock.protocol.nvme.NvmeStatus;
import org.rdmablock.protocol.scsi.ScsiCommand;
import org.rdmablock.protocol.scsi.ScsiStatus;
import org.rdmablock.protocol.scsi.SenseCode;
import org.rdmablock.target.core.CommandSlot;
import org.rdmablock.target.core.ResponseEncoder;

/**
 * The NVMe front end's completions (the 16-byte response capsule, NVMe RDMA Transport 3.2), written into one command
 * slot's response buffer: for a command the core executed on a logical unit, its SCSI outcome in NVMe's status codes
 * (as Linux's nvmet translates its block layer's errors in {@code blk_to_nvme_status}); for one the front end answered
 * itself, the status and result it set. One per slot: used by whichever thread runs the slot.
 */
final class NvmeResponses implements ResponseEncoder {
    private final NvmeCompletion completion = new NvmeCompletion();
    /** The result dword(s) of the slot's command, set by the front end before it answers (0 by default). */
    private long result;
    /** A status the front end decided for a command the core moves data for (its own answers), or -1. */
    private int status = -1;

    static NvmeResponses[] forSlots(final CommandSlot[] slots) {
        final NvmeResponses[] responses = new NvmeResponses[slots.length];
        for (int i = 0; i < slots.length; i++) {
            responses[i] = new NvmeResponses();
        }
        return responses;
    }

    /** The front end answers the slot's command itself: with {@code answer} and {@code value} as the result. */
    void answer(final int answer, final long value) {
        status = answer;
        result = value;
    }

    /** The slot carries a command a logical unit executes: its status comes from the outcome. */
    void executed() {
        status = -1;
        result = 0;
    }

    @Override
    public int commandResponse(final CommandSlot slot, final ScsiCommand done) {
        return write(slot, status >= 0 ? status : statusOf(done), result);
    }

    @Override
    public int timeoutResponse(final CommandSlot slot) {
        // nvmet answers a command its backend did not finish in time as aborted; the host may retry it
        return write(slot, NvmeStatus.ABORT_REQUESTED, 0);
    }

    /** Writes a completion for the slot's command ({@code slot.tag()} is its command id); returns its length. */
    int write(final CommandSlot slot, final int answer, final long value) {
        final NvmeQueue queue = (NvmeQueue) slot.channel(); // the NVMe target enters NVMe queues only
        completion.wrap(slot.responseSegment(), slot.responseOffset()).reset();
        completion.setResult(value).setSqHead(queue.sqHead).setSqId(queue.queueId).setCommandId((int) slot.tag())
                .setStatus(answer);
        return NvmeCompletion.LENGTH;
    }

    /** The NVMe status of a SCSI outcome. */
    static int statusOf(final ScsiCommand done) {
        if (done.status() == ScsiStatus.GOOD) {
            return NvmeStatus.SUCCESS;
        }
        if (done.status() == ScsiStatus.RESERVATION_CONFLICT) {
            return NvmeStatus.RESERVATION_CONFLICT | NvmeStatus.DO_NOT_RETRY; // an SRP initiator's reservation
        }
        final SenseCode code = done.senseCode();
        if (code == null) {
            return NvmeStatus.NAMESPACE_NOT_READY; // BUSY, TASK SET FULL: the host retries
        }
        return switch (code) {
            case LBA_OUT_OF_RANGE -> NvmeStatus.LBA_RANGE | NvmeStatus.DO_NOT_RETRY;
            case WRITE_PROTECTED, SPACE_ALLOCATION_FAILED_WRITE_PROTECT ->
                    NvmeStatus.NAMESPACE_WRITE_PROTECTED | NvmeStatus.DO_NOT_RETRY;
            case WRITE_ERROR -> NvmeStatus.WRITE_FAULT | NvmeStatus.DO_NOT_RETRY;
            case UNRECOVERED_READ_ERROR -> NvmeStatus.READ_ERROR | NvmeStatus.DO_NOT_RETRY;
            case MISCOMPARE_DURING_VERIFY_OPERATION -> NvmeStatus.COMPARE_FAILED | NvmeStatus.DO_NOT_RETRY;
            case LOGICAL_UNIT_NOT_SUPPORTED -> NvmeStatus.INVALID_NAMESPACE | NvmeStatus.DO_NOT_RETRY;
            case INVALID_COMMAND_OPERATION_CODE -> NvmeStatus.INVALID_OPCODE | NvmeStatus.DO_NOT_RETRY;
            case INVALID_FIELD_IN_CDB, INVALID_FIELD_IN_PARAMETER_LIST, PARAMETER_LIST_LENGTH_ERROR,
                 INVALID_FIELD_IN_COMMAND_INFORMATION_UNIT -> NvmeStatus.INVALID_FIELD | NvmeStatus.DO_NOT_RETRY;
            case DATA_PHASE_ERROR -> NvmeStatus.DATA_TRANSFER_ERROR;
            case COMMAND_TIMEOUT_DURING_PROCESSING -> NvmeStatus.ABORT_REQUESTED;
            default -> NvmeStatus.INTERNAL;
        };
    }
}

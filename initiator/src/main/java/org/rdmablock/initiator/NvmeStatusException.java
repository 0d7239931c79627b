package org.rdmablock.initiator;

import org.rdmablock.protocol.nvme.NvmeStatus;

/**
 * An NVMe controller answered a command with a status other than success: the status code type and code (NVMe Base
 * 2.0, 4.2.3), and the message says them in words where they are ones a block target reports.
 */
public final class NvmeStatusException extends SrpIoException {
    private final int status;

    NvmeStatusException(final String operation, final int status) {
        super(operation + ": " + describe(status));
        this.status = status;
    }

    /** The status code type (bits 10:8) and status code (bits 7:0), without More and Do Not Retry. */
    public int status() {
        return status;
    }

    /** A status in words, with its value. */
    static String describe(final int status) {
        final String words = switch (status & (NvmeStatus.TYPE_MASK | 0xFF)) {
            case NvmeStatus.INVALID_OPCODE -> "invalid command opcode";
            case NvmeStatus.INVALID_FIELD -> "invalid field in command";
            case NvmeStatus.DATA_TRANSFER_ERROR -> "data transfer error";
            case NvmeStatus.INTERNAL -> "internal error";
            case NvmeStatus.ABORT_REQUESTED -> "command abort requested";
            case NvmeStatus.INVALID_NAMESPACE -> "invalid namespace or format";
            case NvmeStatus.COMMAND_SEQUENCE_ERROR -> "command sequence error";
            case NvmeStatus.SGL_INVALID_DATA -> "SGL data block descriptor invalid";
            case NvmeStatus.SGL_INVALID_TYPE -> "SGL descriptor type invalid";
            case NvmeStatus.NAMESPACE_WRITE_PROTECTED -> "namespace is write protected";
            case NvmeStatus.LBA_RANGE -> "LBA out of range";
            case NvmeStatus.CAPACITY_EXCEEDED -> "capacity exceeded";
            case NvmeStatus.NAMESPACE_NOT_READY -> "namespace not ready";
            case NvmeStatus.CONNECT_CONTROLLER_BUSY -> "controller busy";
            case NvmeStatus.CONNECT_INVALID_PARAMETER -> "connect invalid parameters";
            case NvmeStatus.CONNECT_INVALID_HOST -> "connect invalid host";
            case NvmeStatus.WRITE_FAULT -> "write fault";
            case NvmeStatus.READ_ERROR -> "unrecovered read error";
            case NvmeStatus.COMPARE_FAILED -> "compare failure";
            case NvmeStatus.ACCESS_DENIED -> "access denied";
            default -> "status";
        };
        return words + String.format(" (NVMe status 0x%03x)", status & (NvmeStatus.TYPE_MASK | 0xFF));
    }
}

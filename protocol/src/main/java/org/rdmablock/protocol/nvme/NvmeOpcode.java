package org.rdmablock.protocol.nvme;

/**
 * Opcodes: Linux {@code enum nvme_admin_opcode} (the admin queue's) and {@code enum nvme_opcode} (the I/O queues'),
 * the ones this target serves or names. Bit 0 of either is the data direction: 1 host to controller.
 */
public final class NvmeOpcode {
    /** Admin: Get Log Page. */
    public static final int GET_LOG_PAGE = 0x02;
    /** Admin: Identify. */
    public static final int IDENTIFY = 0x06;
    /** Admin: Abort. */
    public static final int ABORT = 0x08;
    /** Admin: Set Features. */
    public static final int SET_FEATURES = 0x09;
    /** Admin: Get Features. */
    public static final int GET_FEATURES = 0x0A;
    /** Admin: Asynchronous Event Request. */
    public static final int ASYNC_EVENT = 0x0C;
    /** Admin: Keep Alive. */
    public static final int KEEP_ALIVE = 0x18;
    /** Admin: a Fabrics command; its type is at byte 4 ({@link NvmfCommandType}). */
    public static final int FABRICS = 0x7F;

    /** I/O: Flush. */
    public static final int FLUSH = 0x00;
    /** I/O: Write. */
    public static final int WRITE = 0x01;
    /** I/O: Read. */
    public static final int READ = 0x02;
    /** I/O: Compare. */
    public static final int COMPARE = 0x05;
    /** I/O: Write Zeroes. */
    public static final int WRITE_ZEROES = 0x08;
    /** I/O: Dataset Management (deallocate). */
    public static final int DATASET_MANAGEMENT = 0x09;

    private NvmeOpcode() {
    }

    /** Whether {@code opcode} moves data from the host to the controller (Linux {@code nvme_is_write}). */
    public static boolean hostToController(final int opcode) {
        return (opcode & 1) != 0;
    }
}

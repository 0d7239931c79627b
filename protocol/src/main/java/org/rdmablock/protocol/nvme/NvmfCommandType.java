package org.rdmablock.protocol.nvme;

/**
 * A Fabrics command's type, byte 4 of an entry whose opcode is {@link NvmeOpcode#FABRICS}: Linux
 * {@code enum nvmf_capsule_command} (and Disconnect, which the NVMe over Fabrics specification defines and Linux
 * neither sends nor serves). Bit 0 is the data direction, as an opcode's.
 */
public final class NvmfCommandType {
    /** Property Set. */
    public static final int PROPERTY_SET = 0x00;
    /** Connect. */
    public static final int CONNECT = 0x01;
    /** Property Get. */
    public static final int PROPERTY_GET = 0x04;
    /** Authentication Send. */
    public static final int AUTHENTICATION_SEND = 0x05;
    /** Authentication Receive. */
    public static final int AUTHENTICATION_RECEIVE = 0x06;
    /** Disconnect (NVMe over Fabrics 1.1; not in Linux's header). */
    public static final int DISCONNECT = 0x08;

    private NvmfCommandType() {
    }
}

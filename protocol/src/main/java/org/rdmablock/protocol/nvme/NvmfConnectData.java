package org.rdmablock.protocol.nvme;

import java.lang.foreign.MemorySegment;

/**
 * The Connect command's data, 1024 bytes: Linux {@code struct nvmf_connect_data}: the host identifier, the controller
 * asked for ({@link #CNTLID_DYNAMIC} on the admin queue: any), the subsystem's and the host's NQN.
 */
public final class NvmfConnectData extends NvmeStructure<NvmfConnectData> {
    /** Size of the data. */
    public static final int LENGTH = 1024;
    /** The host identifier (a UUID's 16 bytes). */
    public static final int HOST_ID_OFFSET = 0;
    /** Its length. */
    public static final int HOST_ID_LENGTH = 16;
    /** The controller id, 2 bytes. */
    public static final int CNTLID_OFFSET = 16;
    /** The subsystem's NQN, NUL-padded. */
    public static final int SUBSYSTEM_NQN_OFFSET = 256;
    /** The host's NQN, NUL-padded. */
    public static final int HOST_NQN_OFFSET = 512;
    /** The length of an NQN field (Linux NVMF_NQN_FIELD_LEN). */
    public static final int NQN_FIELD_LENGTH = 256;
    /** The longest NQN (Linux NVMF_NQN_SIZE). */
    public static final int NQN_MAX_LENGTH = 223;
    /** The admin queue's connect asks for any controller (Linux NVME_CNTLID_DYNAMIC). */
    public static final int CNTLID_DYNAMIC = 0xFFFF;
    /** The lowest controller id (Linux NVME_CNTLID_MIN). */
    public static final int CNTLID_MIN = 1;
    /** The highest controller id (Linux NVME_CNTLID_MAX). */
    public static final int CNTLID_MAX = 0xFFEF;
    /** The discovery subsystem's NQN (Linux NVME_DISC_SUBSYS_NAME). */
    public static final String DISCOVERY_NQN = "nqn.2014-08.org.nvmexpress.discovery";

    /** Zeroes the data, ready for the setters. */
    public NvmfConnectData reset() {
        clear(LENGTH);
        return this;
    }

    /** The host identifier's 16 bytes, as a slice of the wrapped segment. */
    public MemorySegment hostId() {
        return segment.asSlice(offset + HOST_ID_OFFSET, HOST_ID_LENGTH);
    }

    public NvmfConnectData setHostId(final byte[] id) {
        if (id.length != HOST_ID_LENGTH) {
            throw new IllegalArgumentException("a host id is " + HOST_ID_LENGTH + " bytes, not " + id.length);
        }
        MemorySegment.copy(MemorySegment.ofArray(id), 0, segment, offset + HOST_ID_OFFSET, HOST_ID_LENGTH);
        return this;
    }

    public int controllerId() {
        return u16(CNTLID_OFFSET);
    }

    public NvmfConnectData setControllerId(final int id) {
        putU16(CNTLID_OFFSET, id);
        return this;
    }

    /** The subsystem's NQN (read once per connect: it allocates). */
    public String subsystemNqn() {
        return text(SUBSYSTEM_NQN_OFFSET, NQN_FIELD_LENGTH);
    }

    public NvmfConnectData setSubsystemNqn(final String nqn) {
        putText(SUBSYSTEM_NQN_OFFSET, NQN_FIELD_LENGTH, nqn);
        return this;
    }

    /** The host's NQN (read once per connect: it allocates). */
    public String hostNqn() {
        return text(HOST_NQN_OFFSET, NQN_FIELD_LENGTH);
    }

    public NvmfConnectData setHostNqn(final String nqn) {
        putText(HOST_NQN_OFFSET, NQN_FIELD_LENGTH, nqn);
        return this;
    }
}

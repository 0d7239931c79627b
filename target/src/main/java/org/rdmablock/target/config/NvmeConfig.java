package org.rdmablock.target.config;

import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The NVMe over Fabrics front end: where it listens beside SRP, and the subsystems it serves. A LUN open to every
 * initiator (no {@code allowed_initiators}) is namespace {@code LUN + 1} of each subsystem that lists it.
 *
 * @param port       the rdma_cm port NVMe hosts connect to (the SRP front end's address), 1..65535; NVMe's usual 4420
 * @param subsystems the subsystems, NQNs unique; none means the NVMe front end does not listen
 */
public record NvmeConfig(int port, List<Subsystem> subsystems) {
    /** NVMe over Fabrics' registered port (IANA "nvme-rdma"), where Linux's nvme-cli connects by default. */
    public static final int DEFAULT_PORT = 4420;
    /** Longest NQN (Linux NVMF_NQN_SIZE). */
    public static final int NQN_MAX_LENGTH = 223;
    /** Identify Controller's serial number field. */
    public static final int SERIAL_MAX_LENGTH = 20;
    /** Identify Controller's model number field. */
    public static final int MODEL_MAX_LENGTH = 40;
    /** No NVMe front end: no subsystem is configured. */
    public static final NvmeConfig NONE = new NvmeConfig(DEFAULT_PORT, List.of());

    public NvmeConfig {
        subsystems = List.copyOf(subsystems);
    }

    /** Whether the NVMe front end runs: at least one subsystem is configured. */
    public boolean enabled() {
        return !subsystems.isEmpty();
    }

    /**
     * One NVM subsystem.
     *
     * @param nqn          its NVMe Qualified Name, what {@code nvme connect -n} gives (at most 223 bytes)
     * @param serial       Identify Controller's serial number (at most 20 ASCII characters)
     * @param model        Identify Controller's model number (at most 40 ASCII characters)
     * @param namespaces   the LUNs it serves (namespace id = LUN + 1); empty: every LUN open to every initiator
     * @param allowedHosts host NQNs that may connect; empty: any host
     */
    public record Subsystem(String nqn, String serial, String model, List<Integer> namespaces, Set<String> allowedHosts) {
        /** Model number when the config gives none. */
        public static final String DEFAULT_MODEL = "rdmablock";

        public Subsystem {
            Objects.requireNonNull(nqn);
            Objects.requireNonNull(serial);
            Objects.requireNonNull(model);
            namespaces = List.copyOf(namespaces);
            allowedHosts = Set.copyOf(allowedHosts);
        }

        /**
         * The serial number of a [[subsystem]] that gives none: the target's id_ext as 16 hex digits, then 4 of the
         * NQN's CRC-32, so that two subsystems of one target differ.
         */
        public static String derivedSerial(final long idExt, final String nqn) {
            final java.util.zip.CRC32 crc = new java.util.zip.CRC32();
            crc.update(nqn.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            return String.format("%016x%04x", idExt, crc.getValue() & 0xFFFF);
        }

        /** Whether {@code lun} is one of its namespaces. */
        public boolean serves(final int lun) {
            return namespaces.isEmpty() || namespaces.contains(lun);
        }

        /** Whether the host {@code hostNqn} may connect. */
        public boolean allows(final String hostNqn) {
            return allowedHosts.isEmpty() || allowedHosts.contains(hostNqn);
        }
    }
}

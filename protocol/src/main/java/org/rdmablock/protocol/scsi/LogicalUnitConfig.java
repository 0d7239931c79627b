package org.rdmablock.protocol.scsi;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * What a logical unit says about itself and how it behaves: block geometry, identity (INQUIRY strings,
 * unit serial number, NAA identifier), caching and provisioning, and the limits it advertises in the
 * Block Limits VPD page. Immutable; build with {@link #builder()}.
 */
public final class LogicalUnitConfig {
    private final int blockSize;
    private final int physicalBlockExponent;
    private final String vendor;
    private final String product;
    private final String revision;
    private final String serialNumber;
    private final byte[] naaIdentifier;
    private final boolean writeCacheEnabled;
    private final boolean thinProvisioning;
    private final boolean readOnly;
    private final boolean descriptorSense;
    private final int maxTransferBytes;
    private final int optimalTransferBytes;
    private final long maxUnmapBlocks;
    private final int maxUnmapDescriptors;
    private final long maxWriteSameBlocks;

    private LogicalUnitConfig(Builder b) {
        if (b.blockSize < 512 || b.blockSize > 4096 || Integer.bitCount(b.blockSize) != 1) {
            throw new IllegalArgumentException("block size must be a power of two from 512 to 4096: " + b.blockSize);
        }
        if (b.physicalBlockExponent < 0 || b.physicalBlockExponent > 15) {
            throw new IllegalArgumentException("physical block exponent must be 0..15: " + b.physicalBlockExponent);
        }
        this.blockSize = b.blockSize;
        this.physicalBlockExponent = b.physicalBlockExponent;
        this.vendor = ascii("vendor", b.vendor, 8);
        this.product = ascii("product", b.product, 16);
        this.revision = ascii("revision", b.revision, 4);
        this.serialNumber = ascii("serial number", b.serialNumber, 64);
        if (serialNumber.isEmpty()) {
            throw new IllegalArgumentException("a serial number is required");
        }
        this.naaIdentifier = b.naaIdentifier != null ? checkNaa(b.naaIdentifier.clone()) : locallyAssignedNaa(serialNumber);
        this.writeCacheEnabled = b.writeCacheEnabled;
        this.thinProvisioning = b.thinProvisioning;
        this.readOnly = b.readOnly;
        this.descriptorSense = b.descriptorSense;
        if (b.maxTransferBytes < blockSize || b.maxTransferBytes > (1 << 30)) {
            throw new IllegalArgumentException("max transfer must be one block to 1 GiB: " + b.maxTransferBytes);
        }
        this.maxTransferBytes = b.maxTransferBytes;
        this.optimalTransferBytes = b.optimalTransferBytes;
        if (b.maxUnmapBlocks < 1 || b.maxUnmapBlocks > 0xFFFF_FFFFL || b.maxUnmapDescriptors < 1
                || b.maxWriteSameBlocks < 1 || b.maxWriteSameBlocks > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException("unmap and write-same limits must be positive 32-bit counts");
        }
        this.maxUnmapBlocks = b.maxUnmapBlocks;
        this.maxUnmapDescriptors = b.maxUnmapDescriptors;
        this.maxWriteSameBlocks = b.maxWriteSameBlocks;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Logical block size in bytes: 512 or 4096 (any power of two in between is accepted). */
    public int blockSize() {
        return blockSize;
    }

    /** log2(physical block size / logical block size), as READ CAPACITY(16) reports it. */
    public int physicalBlockExponent() {
        return physicalBlockExponent;
    }

    public String vendor() {
        return vendor;
    }

    public String product() {
        return product;
    }

    public String revision() {
        return revision;
    }

    /** The unit serial number (VPD page 0x80). */
    public String serialNumber() {
        return serialNumber;
    }

    /** The NAA designator (8 or 16 bytes) of VPD page 0x83; a copy. */
    public byte[] naaIdentifier() {
        return naaIdentifier.clone();
    }

    int naaLength() {
        return naaIdentifier.length;
    }

    byte naaByte(int index) {
        return naaIdentifier[index];
    }

    /** The write cache state at start; MODE SELECT of the caching page may change it at run time. */
    public boolean writeCacheEnabled() {
        return writeCacheEnabled;
    }

    /** Whether UNMAP and WRITE SAME with UNMAP are offered (and LBPME reported). */
    public boolean thinProvisioning() {
        return thinProvisioning;
    }

    public boolean readOnly() {
        return readOnly;
    }

    /** The control mode page D_SENSE bit at start: descriptor-format sense instead of fixed. */
    public boolean descriptorSense() {
        return descriptorSense;
    }

    public int maxTransferBytes() {
        return maxTransferBytes;
    }

    public int optimalTransferBytes() {
        return optimalTransferBytes;
    }

    public long maxUnmapBlocks() {
        return maxUnmapBlocks;
    }

    public int maxUnmapDescriptors() {
        return maxUnmapDescriptors;
    }

    public long maxWriteSameBlocks() {
        return maxWriteSameBlocks;
    }

    private static String ascii(String what, String value, int maxLength) {
        Objects.requireNonNull(value, what);
        if (value.length() > maxLength || !value.chars().allMatch(c -> c >= 0x20 && c < 0x7F)) {
            throw new IllegalArgumentException(what + " must be at most " + maxLength + " printable ASCII characters: " + value);
        }
        return value;
    }

    private static byte[] checkNaa(byte[] naa) {
        int type = (naa.length > 0 ? naa[0] & 0xF0 : 0) >>> 4;
        boolean ok = (naa.length == 8 && (type == 2 || type == 3 || type == 5)) || (naa.length == 16 && type == 6);
        if (!ok) {
            throw new IllegalArgumentException("an NAA identifier is 8 bytes of type 2, 3 or 5, or 16 bytes of type 6; got "
                    + naa.length + " bytes of type " + type);
        }
        return naa;
    }

    /**
     * An NAA "locally assigned" (type 3) identifier derived from the serial number: 4 type bits and the
     * low 60 bits of the serial's 64-bit FNV-1a hash. Stable across restarts, and claims no IEEE OUI we do
     * not own; configure a type 5 or 6 identifier where one is registered.
     */
    static byte[] locallyAssignedNaa(String serial) {
        long hash = 0xcbf29ce484222325L;
        for (byte b : serial.getBytes(StandardCharsets.US_ASCII)) {
            hash ^= b & 0xFF;
            hash *= 0x100000001b3L;
        }
        long naa = (3L << 60) | (hash & 0x0FFF_FFFF_FFFF_FFFFL);
        byte[] out = new byte[8];
        for (int i = 0; i < 8; i++) {
            out[i] = (byte) (naa >>> (56 - 8 * i));
        }
        return out;
    }

    @Override
    public String toString() {
        return "LogicalUnitConfig[" + vendor + " " + product + " " + revision + ", serial " + serialNumber
                + ", naa " + Arrays.toString(naaIdentifier) + ", block " + blockSize + "]";
    }

    /** Builder with the defaults of a plain 512-byte, write-back, fully provisioned disk. */
    public static final class Builder {
        private int blockSize = 512;
        private int physicalBlockExponent;
        private String vendor = "RDMABLK";
        private String product = "SRP DISK";
        private String revision = "0001";
        private String serialNumber = "";
        private byte[] naaIdentifier;
        private boolean writeCacheEnabled = true;
        private boolean thinProvisioning;
        private boolean readOnly;
        private boolean descriptorSense;
        private int maxTransferBytes = 1 << 20;
        private int optimalTransferBytes;
        private long maxUnmapBlocks = 0xFFFF_FFFFL;
        private int maxUnmapDescriptors = 256;
        private long maxWriteSameBlocks = 1 << 16;

        private Builder() {
        }

        public Builder blockSize(int bytes) {
            this.blockSize = bytes;
            return this;
        }

        public Builder physicalBlockExponent(int exponent) {
            this.physicalBlockExponent = exponent;
            return this;
        }

        public Builder vendor(String value) {
            this.vendor = value;
            return this;
        }

        public Builder product(String value) {
            this.product = value;
            return this;
        }

        public Builder revision(String value) {
            this.revision = value;
            return this;
        }

        public Builder serialNumber(String value) {
            this.serialNumber = value;
            return this;
        }

        /** An explicit NAA designator; by default one is derived from the serial number. */
        public Builder naaIdentifier(byte[] value) {
            this.naaIdentifier = value == null ? null : value.clone();
            return this;
        }

        public Builder writeCacheEnabled(boolean value) {
            this.writeCacheEnabled = value;
            return this;
        }

        public Builder thinProvisioning(boolean value) {
            this.thinProvisioning = value;
            return this;
        }

        public Builder readOnly(boolean value) {
            this.readOnly = value;
            return this;
        }

        public Builder descriptorSense(boolean value) {
            this.descriptorSense = value;
            return this;
        }

        public Builder maxTransferBytes(int bytes) {
            this.maxTransferBytes = bytes;
            return this;
        }

        public Builder optimalTransferBytes(int bytes) {
            this.optimalTransferBytes = bytes;
            return this;
        }

        public Builder maxUnmapBlocks(long blocks) {
            this.maxUnmapBlocks = blocks;
            return this;
        }

        public Builder maxUnmapDescriptors(int count) {
            this.maxUnmapDescriptors = count;
            return this;
        }

        public Builder maxWriteSameBlocks(long blocks) {
            this.maxWriteSameBlocks = blocks;
            return this;
        }

        public LogicalUnitConfig build() {
            return new LogicalUnitConfig(this);
        }
    }
}

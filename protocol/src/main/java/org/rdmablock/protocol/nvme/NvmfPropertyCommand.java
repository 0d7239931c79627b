package org.rdmablock.protocol.nvme;

/**
 * Property Get and Property Set, the Fabrics commands that read and write the controller's registers: Linux
 * {@code struct nvmf_property_get_command} and {@code nvmf_property_set_command} over a 64-byte entry. The value of a
 * Get comes back in the completion's 64-bit result.
 */
public final class NvmfPropertyCommand extends NvmeStructure<NvmfPropertyCommand> {
    /** Attributes, 1 byte: bit 0 the size ({@link #SIZE_8_BYTES}). */
    public static final int ATTRIB_OFFSET = 40;
    /** The property's offset (a register: {@link NvmeRegister}), 4 bytes. */
    public static final int PROPERTY_OFFSET = 44;
    /** Set: the value, 8 bytes. */
    public static final int VALUE_OFFSET = 48;
    /** Attributes: the property is 8 bytes (else 4). */
    public static final int SIZE_8_BYTES = 1;

    public int attributes() {
        return u8(ATTRIB_OFFSET);
    }

    public NvmfPropertyCommand setAttributes(final int attributes) {
        putU8(ATTRIB_OFFSET, attributes);
        return this;
    }

    /** The property's size in bytes, 4 or 8. */
    public int size() {
        return (attributes() & SIZE_8_BYTES) != 0 ? Long.BYTES : Integer.BYTES;
    }

    /** The register's offset, unsigned. */
    public long property() {
        return u32(PROPERTY_OFFSET);
    }

    public NvmfPropertyCommand setProperty(final long register) {
        put32(PROPERTY_OFFSET, register);
        return this;
    }

    public long value() {
        return u64(VALUE_OFFSET);
    }

    public NvmfPropertyCommand setValue(final long value) {
        put64(VALUE_OFFSET, value);
        return this;
    }
}

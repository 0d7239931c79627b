package org.rdmablock.target.core;

import org.junit.jupiter.api.Test;
import org.rdmablock.protocol.srp.SrpDirectBuffer;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The core's descriptor form is SRP's direct descriptor as it comes off the wire: the SRP front end copies an
 * initiator's list unchanged ({@code SrpCommandLoader}), so a descriptor the protocol's codec writes must read back
 * the same through {@link DataDescriptor}.
 */
class DataDescriptorTest {
    @Test
    void readsWhatTheSrpCodecWrites() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment list = arena.allocate(2 * SrpDirectBuffer.LENGTH);
            new SrpDirectBuffer().wrap(list, SrpDirectBuffer.LENGTH).set(0x0102_0304_0506_0708L, 0xCAFE_F00D, 0xFFFF_FFF0L);
            DataDescriptor d = new DataDescriptor().wrap(list, DataDescriptor.LENGTH);
            assertEquals(0x0102_0304_0506_0708L, d.address());
            assertEquals(0xCAFE_F00D, d.key());
            assertEquals(0xFFFF_FFF0L, d.length(), "unsigned, as SRP's len");
        }
    }

    @Test
    void hasSrpsLayout() {
        assertEquals(SrpDirectBuffer.LENGTH, DataDescriptor.LENGTH);
        assertEquals(SrpDirectBuffer.VA_OFFSET, DataDescriptor.ADDRESS_OFFSET);
        assertEquals(SrpDirectBuffer.KEY_OFFSET, DataDescriptor.KEY_OFFSET);
        assertEquals(SrpDirectBuffer.LEN_OFFSET, DataDescriptor.LENGTH_OFFSET);
    }
}

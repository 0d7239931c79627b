package org.rdmablock.protocol.scsi;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** SAM LUN encoding as Linux's int_to_scsilun writes it. */
class LunAddressTest {
    @Test
    void encodesPeripheralAndFlatAddressing() {
        assertEquals(0L, LunAddress.encode(0));
        assertEquals(0x00FF_0000_0000_0000L, LunAddress.encode(255));
        assertEquals(0x4100_0000_0000_0000L, LunAddress.encode(256));
        assertEquals(0x7FFF_0000_0000_0000L, LunAddress.encode(LunAddress.MAX_LUN));
        assertThrows(IllegalArgumentException.class, () -> LunAddress.encode(LunAddress.MAX_LUN + 1));
    }

    @Test
    void decodesWhatItEncodesAndRejectsTheRest() {
        for (int lun = 0; lun <= LunAddress.MAX_LUN; lun++) {
            assertEquals(lun, LunAddress.decode(LunAddress.encode(lun)));
        }
        assertEquals(-1, LunAddress.decode(0x0101_0000_0000_0000L), "bus number");
        assertEquals(-1, LunAddress.decode(0x0001_0001_0000_0000L), "second level");
        assertEquals(-1, LunAddress.decode(0x8001_0000_0000_0000L), "logical unit addressing");
        assertEquals(-1, LunAddress.decode(0xC001_0000_0000_0000L), "extended addressing");
    }
}

package org.rdmablock.protocol.scsi;

import java.nio.ByteBuffer;

/** CDB builders for tests, written from the SBC/SPC layouts (big-endian fields at fixed bytes). */
final class Cdbs {
    private Cdbs() {
    }

    static byte[] testUnitReady() {
        return new byte[6];
    }

    static byte[] inquiry(int allocation) {
        return ByteBuffer.allocate(6).put(0, (byte) 0x12).putShort(3, (short) allocation).array();
    }

    static byte[] inquiryVpd(int page, int allocation) {
        return ByteBuffer.allocate(6).put(0, (byte) 0x12).put(1, (byte) 1).put(2, (byte) page)
                .putShort(3, (short) allocation).array();
    }

    static byte[] requestSense(boolean desc, int allocation) {
        return ByteBuffer.allocate(6).put(0, (byte) 0x03).put(1, (byte) (desc ? 1 : 0)).put(4, (byte) allocation).array();
    }

    static byte[] readCapacity10() {
        return ByteBuffer.allocate(10).put(0, (byte) 0x25).array();
    }

    static byte[] readCapacity16(int allocation) {
        return ByteBuffer.allocate(16).put(0, (byte) 0x9E).put(1, (byte) 0x10).putInt(10, allocation).array();
    }

    static byte[] rw6(boolean write, int lba, int blocks) {
        return ByteBuffer.allocate(6).put(0, (byte) (write ? 0x0A : 0x08)).put(1, (byte) ((lba >>> 16) & 0x1F))
                .putShort(2, (short) lba).put(4, (byte) blocks).array();
    }

    static byte[] rw10(boolean write, long lba, int blocks, boolean fua) {
        return ByteBuffer.allocate(10).put(0, (byte) (write ? 0x2A : 0x28)).put(1, (byte) (fua ? 0x08 : 0))
                .putInt(2, (int) lba).putShort(7, (short) blocks).array();
    }

    static byte[] rw12(boolean write, long lba, int blocks, boolean fua) {
        return ByteBuffer.allocate(12).put(0, (byte) (write ? 0xAA : 0xA8)).put(1, (byte) (fua ? 0x08 : 0))
                .putInt(2, (int) lba).putInt(6, blocks).array();
    }

    static byte[] rw16(boolean write, long lba, int blocks, boolean fua) {
        return ByteBuffer.allocate(16).put(0, (byte) (write ? 0x8A : 0x88)).put(1, (byte) (fua ? 0x08 : 0))
                .putLong(2, lba).putInt(10, blocks).array();
    }

    static byte[] verify16(long lba, int blocks) {
        return verify16(lba, blocks, 0);
    }

    /** VERIFY (16) with BYTCHK {@code byteCheck} (byte 1, bits 2:1). */
    static byte[] verify16(long lba, int blocks, int byteCheck) {
        return ByteBuffer.allocate(16).put(0, (byte) 0x8F).put(1, (byte) (byteCheck << 1)).putLong(2, lba).putInt(10, blocks).array();
    }

    /** VERIFY (10) with BYTCHK {@code byteCheck}. */
    static byte[] verify10(long lba, int blocks, int byteCheck) {
        return ByteBuffer.allocate(10).put(0, (byte) 0x2F).put(1, (byte) (byteCheck << 1)).putInt(2, (int) lba)
                .putShort(7, (short) blocks).array();
    }

    static byte[] synchronizeCache10(long lba, int blocks) {
        return ByteBuffer.allocate(10).put(0, (byte) 0x35).putInt(2, (int) lba).putShort(7, (short) blocks).array();
    }

    static byte[] synchronizeCache16(long lba, int blocks) {
        return ByteBuffer.allocate(16).put(0, (byte) 0x91).putLong(2, lba).putInt(10, blocks).array();
    }

    static byte[] writeSame16(long lba, int blocks, boolean unmap, boolean ndob) {
        return ByteBuffer.allocate(16).put(0, (byte) 0x93).put(1, (byte) ((unmap ? 0x08 : 0) | (ndob ? 0x01 : 0)))
                .putLong(2, lba).putInt(10, blocks).array();
    }

    static byte[] writeSame10(long lba, int blocks, boolean unmap) {
        return ByteBuffer.allocate(10).put(0, (byte) 0x41).put(1, (byte) (unmap ? 0x08 : 0))
                .putInt(2, (int) lba).putShort(7, (short) blocks).array();
    }

    static byte[] unmap(int parameterLength) {
        return ByteBuffer.allocate(10).put(0, (byte) 0x42).putShort(7, (short) parameterLength).array();
    }

    /** UNMAP parameter list with {lba, blocks} pairs. */
    static byte[] unmapList(long... lbaBlocks) {
        int count = lbaBlocks.length / 2;
        ByteBuffer b = ByteBuffer.allocate(8 + 16 * count);
        b.putShort(0, (short) (6 + 16 * count)).putShort(2, (short) (16 * count));
        for (int i = 0; i < count; i++) {
            b.putLong(8 + 16 * i, lbaBlocks[2 * i]).putInt(8 + 16 * i + 8, (int) lbaBlocks[2 * i + 1]);
        }
        return b.array();
    }

    static byte[] modeSense6(boolean dbd, int pageControl, int page, int subpage, int allocation) {
        return ByteBuffer.allocate(6).put(0, (byte) 0x1A).put(1, (byte) (dbd ? 0x08 : 0))
                .put(2, (byte) ((pageControl << 6) | page)).put(3, (byte) subpage).put(4, (byte) allocation).array();
    }

    static byte[] modeSense10(boolean llbaa, boolean dbd, int pageControl, int page, int subpage, int allocation) {
        return ByteBuffer.allocate(10).put(0, (byte) 0x5A).put(1, (byte) ((llbaa ? 0x10 : 0) | (dbd ? 0x08 : 0)))
                .put(2, (byte) ((pageControl << 6) | page)).put(3, (byte) subpage).putShort(7, (short) allocation).array();
    }

    static byte[] modeSelect6(int length) {
        return ByteBuffer.allocate(6).put(0, (byte) 0x15).put(1, (byte) 0x10).put(4, (byte) length).array();
    }

    static byte[] modeSelect10(int length) {
        return ByteBuffer.allocate(10).put(0, (byte) 0x55).put(1, (byte) 0x10).putShort(7, (short) length).array();
    }

    static byte[] reportLuns(int allocation) {
        return ByteBuffer.allocate(12).put(0, (byte) 0xA0).putInt(6, allocation).array();
    }

    static byte[] reportOpcodes(int options, boolean rctd, int opcode, int serviceAction, int allocation) {
        return ByteBuffer.allocate(12).put(0, (byte) 0xA3).put(1, (byte) 0x0C)
                .put(2, (byte) ((rctd ? 0x80 : 0) | options)).put(3, (byte) opcode)
                .putShort(4, (short) serviceAction).putInt(6, allocation).array();
    }

    static byte[] startStopUnit(boolean start) {
        return ByteBuffer.allocate(6).put(0, (byte) 0x1B).put(4, (byte) (start ? 1 : 0)).array();
    }

    /** PERSISTENT RESERVE IN: literal bytes per SPC-4 6.15 (service action in byte 1, allocation length 7-8). */
    static byte[] persistentReserveIn(int serviceAction, int allocation) {
        return ByteBuffer.allocate(10).put(0, (byte) 0x5E).put(1, (byte) serviceAction).putShort(7, (short) allocation).array();
    }

    /** PERSISTENT RESERVE OUT: SPC-4 6.16 (service action byte 1, scope and type byte 2, parameter list length 5-8). */
    static byte[] persistentReserveOut(int serviceAction, int scope, int type, int parameterLength) {
        return ByteBuffer.allocate(10).put(0, (byte) 0x5F).put(1, (byte) serviceAction)
                .put(2, (byte) (scope << 4 | type)).putInt(5, parameterLength).array();
    }

    /** The PERSISTENT RESERVE OUT basic parameter list (SPC-4 6.16.3): key, service action key, flags in byte 20. */
    static byte[] proutParameters(long key, long serviceActionKey, int flags) {
        return ByteBuffer.allocate(24).putLong(0, key).putLong(8, serviceActionKey).put(20, (byte) flags).array();
    }

    static byte[] reserve6() {
        return new byte[] {0x16, 0, 0, 0, 0, 0};
    }

    static byte[] release6() {
        return new byte[] {0x17, 0, 0, 0, 0, 0};
    }

    /** COMPARE AND WRITE: SBC-4 5.3 (LBA in bytes 2-9, NUMBER OF LOGICAL BLOCKS in byte 13, FUA bit 3 of byte 1). */
    static byte[] compareAndWrite(long lba, int blocks, boolean fua) {
        return ByteBuffer.allocate(16).put(0, (byte) 0x89).put(1, (byte) (fua ? 0x08 : 0)).putLong(2, lba)
                .put(13, (byte) blocks).array();
    }

    /** GET LBA STATUS: SERVICE ACTION IN(16) 12h, starting LBA in bytes 2-9, allocation length in 10-13 (SBC-4 5.8). */
    static byte[] getLbaStatus(long lba, int allocation) {
        return ByteBuffer.allocate(16).put(0, (byte) 0x9E).put(1, (byte) 0x12).putLong(2, lba).putInt(10, allocation).array();
    }
}

package org.rdmablock.protocol.fuzz;

import org.rdmablock.protocol.srp.SrpAerRequest;
import org.rdmablock.protocol.srp.SrpAerResponse;
import org.rdmablock.protocol.srp.SrpBufferFormat;
import org.rdmablock.protocol.srp.SrpCommand;
import org.rdmablock.protocol.srp.SrpCreditRequest;
import org.rdmablock.protocol.srp.SrpCreditResponse;
import org.rdmablock.protocol.srp.SrpDirectBuffer;
import org.rdmablock.protocol.srp.SrpInitiatorLogout;
import org.rdmablock.protocol.srp.SrpLoginReject;
import org.rdmablock.protocol.srp.SrpLoginRequest;
import org.rdmablock.protocol.srp.SrpLoginResponse;
import org.rdmablock.protocol.srp.SrpResponse;
import org.rdmablock.protocol.srp.SrpTargetLogout;
import org.rdmablock.protocol.srp.SrpTaskManagement;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Regenerates the seed corpus: IUs shaped like the ones Linux's ib_srp and ib_srpt exchange (tags from
 * blk-mq, 8260-byte IUs with immediate data at offset 68, direct and indirect descriptors) and the CDBs
 * of a disk attach and of fio-style I/O. Run from the repository root:
 * {@code java -cp protocol/build/test-classes:protocol/build/classes org.rdmablock.protocol.fuzz.SeedCorpusWriter protocol/src/test/resources/fuzz}.
 */
public final class SeedCorpusWriter {
    static final int IMMEDIATE_DATA_OFFSET = 68;
    private static final long TAG = 0x0000_0000_0001_002AL;

    private SeedCorpusWriter() {
    }

    public static void main(String[] args) throws IOException {
        Path root = Path.of(args.length > 0 ? args[0] : "protocol/src/test/resources/fuzz");
        write(root.resolve("srp"), srpSeeds());
        write(root.resolve("cdb"), cdbSeeds());
    }

    static Map<String, byte[]> srpSeeds() {
        Map<String, byte[]> seeds = new LinkedHashMap<>();
        byte[] initiator = new byte[16];
        byte[] target = new byte[16];
        for (int i = 0; i < 16; i++) {
            initiator[i] = (byte) (0xA0 + i);
            target[i] = (byte) (i < 8 ? 0x00 : 0x02);
        }
        seeds.put("login_req", iu(64, s -> new SrpLoginRequest().wrap(s, 0).reset().setTag(TAG)
                .setRequestedMaxInitiatorToTargetIuLength(8260)
                .setRequiredBufferFormats(SrpBufferFormat.SUPPORTS_DIRECT | SrpBufferFormat.SUPPORTS_INDIRECT)
                .setFlags(SrpLoginRequest.IMMEDIATE_DATA_REQUESTED).setImmediateDataOffset(IMMEDIATE_DATA_OFFSET)
                .setInitiatorPortId(initiator).setTargetPortId(target)));
        seeds.put("login_rsp", iu(52, s -> new SrpLoginResponse().wrap(s, 0).reset().setTag(TAG).setRequestLimitDelta(128)
                .setMaxInitiatorToTargetIuLength(8276).setMaxTargetToInitiatorIuLength(8260).setSupportedBufferFormats(6)
                .setFlags(SrpLoginResponse.IMMEDIATE_DATA_SUPPORTED)));
        seeds.put("login_rej", iu(32, s -> new SrpLoginReject().wrap(s, 0).reset().setTag(TAG)
                .setReason(SrpLoginReject.REASON_INSUFFICIENT_RESOURCES).setSupportedBufferFormats(6)));
        seeds.put("cmd_read10_direct", command(ScsiCdb.rw10(false, 2048, 8, false), SrpBufferFormat.DIRECT, 4096));
        seeds.put("cmd_read16_direct_128k", command(ScsiCdb.rw16(false, 1L << 33, 256, false), SrpBufferFormat.DIRECT, 131072));
        seeds.put("cmd_write16_fua_direct", command(ScsiCdb.rw16(true, 77, 8, true), SrpBufferFormat.DIRECT << 4, 4096));
        seeds.put("cmd_inquiry_direct", command(ScsiCdb.inquiry(36), SrpBufferFormat.DIRECT, 36));
        seeds.put("cmd_tur_no_data", command(new byte[6], SrpBufferFormat.NONE, 0));
        seeds.put("cmd_write10_indirect", iu(48 + 20 + 32, s -> {
            SrpCommand c = new SrpCommand().wrap(s, 0).reset().setTag(TAG).setLun(0).setCdb(ScsiCdb.rw10(true, 0, 16, false))
                    .setBufferFormats(SrpBufferFormat.INDIRECT, SrpBufferFormat.NONE).setDataOutDescriptorCount(2);
            c.dataOutIndirect(new org.rdmablock.protocol.srp.SrpIndirectBuffer()).setTable(0x7f0000100000L, 0x1234, 32, 8192)
                    .setDescriptor(0, 0x7f0000200000L, 0x1111, 4096).setDescriptor(1, 0x7f0000300000L, 0x2222, 4096);
        }));
        seeds.put("cmd_read10_indirect_external", iu(48 + 20 + 16, s -> {
            SrpCommand c = new SrpCommand().wrap(s, 0).reset().setTag(TAG).setCdb(ScsiCdb.rw10(false, 0, 64, false))
                    .setBufferFormats(SrpBufferFormat.NONE, SrpBufferFormat.INDIRECT).setDataInDescriptorCount(1);
            c.dataInIndirect(new org.rdmablock.protocol.srp.SrpIndirectBuffer()).setTable(0x7f0000100000L, 0x1234, 64, 32768)
                    .setDescriptor(0, 0x7f0000200000L, 0x1111, 8192);
        }));
        seeds.put("cmd_write10_immediate_512", iu(IMMEDIATE_DATA_OFFSET + 512, s -> {
            new SrpCommand().wrap(s, 0).reset().setTag(TAG).setCdb(ScsiCdb.rw10(true, 8, 1, false))
                    .setBufferFormats(SrpBufferFormat.IMMEDIATE, SrpBufferFormat.NONE);
            s.set(ValueLayout.JAVA_BYTE, SrpCommand.ADD_CDB_LEN_OFFSET, (byte) 16);   // ib_srp reserves 16 CDB bytes
            new SrpCommand().wrap(s, 0).setImmediateDataLength(512);
            s.asSlice(IMMEDIATE_DATA_OFFSET, 512).fill((byte) 0x5A);
        }));
        seeds.put("cmd_32byte_cdb", iu(48 + 16 + 16, s -> {
            byte[] cdb = new byte[32];
            cdb[0] = 0x7F;
            cdb[7] = 0x18;
            new SrpCommand().wrap(s, 0).reset().setTag(TAG).setCdb(cdb).setBufferFormats(SrpBufferFormat.NONE, SrpBufferFormat.DIRECT)
                    .dataInDirect(new SrpDirectBuffer()).set(0x7f0000400000L, 0x99, 512);
        }));
        seeds.put("cmd_bidirectional", iu(48 + 32, s -> {
            SrpCommand c = new SrpCommand().wrap(s, 0).reset().setTag(TAG).setCdb(ScsiCdb.rw10(false, 0, 1, false))
                    .setBufferFormats(SrpBufferFormat.DIRECT, SrpBufferFormat.DIRECT);
            c.dataOutDirect(new SrpDirectBuffer()).set(1, 2, 512);
            c.dataInDirect(new SrpDirectBuffer()).set(3, 4, 512);
        }));
        seeds.put("tsk_mgmt_abort_task", iu(48, s -> new SrpTaskManagement().wrap(s, 0).reset().setTag(0x8000_0000_0000_0005L)
                .setFunction(SrpTaskManagement.ABORT_TASK).setTaskTag(TAG)));
        seeds.put("tsk_mgmt_lun_reset", iu(48, s -> new SrpTaskManagement().wrap(s, 0).reset().setTag(0x8000_0000_0000_0006L)
                .setLun(0x0001_0000_0000_0000L).setFunction(SrpTaskManagement.LUN_RESET)));
        seeds.put("i_logout", iu(16, s -> new SrpInitiatorLogout().wrap(s, 0).reset().setTag(TAG)));
        seeds.put("t_logout", iu(16, s -> new SrpTargetLogout().wrap(s, 0).reset().setTag(TAG)
                .setReason(SrpTargetLogout.REASON_INVALID_IU_TYPE)));
        seeds.put("cred_req", iu(16, s -> new SrpCreditRequest().wrap(s, 0).reset().setTag(TAG).setRequestLimitDelta(4)));
        seeds.put("cred_rsp", iu(16, s -> new SrpCreditResponse().wrap(s, 0).reset().setTag(TAG)));
        seeds.put("aer_rsp", iu(16, s -> new SrpAerResponse().wrap(s, 0).reset().setTag(TAG)));
        byte[] sense = HexFormat.of().parseHex("700006000000000a000000002a090000000000");
        seeds.put("aer_req", iu(36 + 18, s -> new SrpAerRequest().wrap(s, 0).reset().setTag(TAG).setRequestLimitDelta(1)
                .setSenseData(MemorySegment.ofArray(sense), 0, 18)));
        seeds.put("rsp_good_underflow", iu(36, s -> new SrpResponse().wrap(s, 0).reset().setTag(TAG).setRequestLimitDelta(1)
                .setDataInUnderflow(60)));
        seeds.put("rsp_check_condition", iu(36 + 18, s -> new SrpResponse().wrap(s, 0).reset().setTag(TAG).setRequestLimitDelta(1)
                .setStatus(2).setSenseData(MemorySegment.ofArray(HexFormat.of().parseHex("700005000000000a00000000210000000000")), 0, 18, 8260)));
        seeds.put("rsp_task_management", iu(40, s -> new SrpResponse().wrap(s, 0).reset().setTag(0x8000_0000_0000_0005L)
                .setRequestLimitDelta(1).setResponseCode(SrpTaskManagement.RSP_COMPLETE)));
        return seeds;
    }

    static Map<String, byte[]> cdbSeeds() {
        Map<String, byte[]> seeds = new LinkedHashMap<>();
        seeds.put("inquiry_36", ScsiCdb.inquiry(36));
        seeds.put("inquiry_vpd_00", ScsiCdb.vpd(0x00));
        seeds.put("inquiry_vpd_80", ScsiCdb.vpd(0x80));
        seeds.put("inquiry_vpd_83", ScsiCdb.vpd(0x83));
        seeds.put("inquiry_vpd_b0", ScsiCdb.vpd(0xB0));
        seeds.put("inquiry_vpd_b1", ScsiCdb.vpd(0xB1));
        seeds.put("inquiry_vpd_b2", ScsiCdb.vpd(0xB2));
        seeds.put("report_luns", ByteBuffer.allocate(12).put(0, (byte) 0xA0).putInt(6, 4104).array());
        seeds.put("test_unit_ready", new byte[6]);
        seeds.put("read_capacity_10", ByteBuffer.allocate(10).put(0, (byte) 0x25).array());
        seeds.put("read_capacity_16", ByteBuffer.allocate(16).put(0, (byte) 0x9E).put(1, (byte) 0x10).putInt(10, 32).array());
        seeds.put("mode_sense6_all_4", new byte[]{0x1A, 0, 0x3F, 0, 4, 0});
        seeds.put("mode_sense6_caching", new byte[]{0x1A, 0, 0x08, 0, (byte) 0xFF, 0});
        seeds.put("mode_sense10_io_hints", ByteBuffer.allocate(10).put(0, (byte) 0x5A).put(1, (byte) 0x08).put(2, (byte) 0x0A)
                .put(3, (byte) 0x05).putShort(7, (short) 512).array());
        seeds.put("mode_select6_caching", new byte[]{0x15, 0x10, 0, 0, 24, 0});
        seeds.put("rsoc_write_same_16", ByteBuffer.allocate(12).put(0, (byte) 0xA3).put(1, (byte) 0x0C).put(2, (byte) 1)
                .put(3, (byte) 0x93).putInt(6, 512).array());
        seeds.put("rsoc_all_rctd", ByteBuffer.allocate(12).put(0, (byte) 0xA3).put(1, (byte) 0x0C).put(2, (byte) 0x80)
                .putInt(6, 4096).array());
        seeds.put("request_sense_desc", new byte[]{0x03, 1, 0, 0, (byte) 252, 0});
        seeds.put("start_stop_unit", new byte[]{0x1B, 0, 0, 0, 1, 0});
        seeds.put("prevent_allow", new byte[]{0x1E, 0, 0, 0, 0, 0});
        seeds.put("read6", new byte[]{0x08, 0, 0, 8, 8, 0});
        seeds.put("write6", new byte[]{0x0A, 0, 0, 8, 1, 0});
        seeds.put("read10", ScsiCdb.rw10(false, 0, 8, false));
        seeds.put("write10", ScsiCdb.rw10(true, 8, 8, false));
        seeds.put("read12", ByteBuffer.allocate(12).put(0, (byte) 0xA8).putInt(2, 16).putInt(6, 8).array());
        seeds.put("read16_fua", ScsiCdb.rw16(false, 24, 8, true));
        seeds.put("write16_fua", ScsiCdb.rw16(true, 32, 8, true));
        seeds.put("verify16", ByteBuffer.allocate(16).put(0, (byte) 0x8F).putLong(2, 0).putInt(10, 8).array());
        seeds.put("sync_cache10", new byte[]{0x35, 0, 0, 0, 0, 0, 0, 0, 0, 0});
        seeds.put("sync_cache16", ByteBuffer.allocate(16).put(0, (byte) 0x91).array());
        seeds.put("unmap_one_descriptor", ByteBuffer.allocate(10).put(0, (byte) 0x42).putShort(7, (short) 24).array());
        seeds.put("write_same16_unmap", ByteBuffer.allocate(16).put(0, (byte) 0x93).put(1, (byte) 0x08).putLong(2, 64).putInt(10, 64).array());
        seeds.put("write_same16_ndob", ByteBuffer.allocate(16).put(0, (byte) 0x93).put(1, (byte) 0x09).putLong(2, 0).putInt(10, 8).array());
        seeds.put("write_same10", ByteBuffer.allocate(10).put(0, (byte) 0x41).putInt(2, 8).putShort(7, (short) 4).array());
        return seeds;
    }

    private interface Encoder {
        void encode(MemorySegment segment);
    }

    private static byte[] iu(int length, Encoder encoder) {
        MemorySegment s = MemorySegment.ofArray(new byte[length]);
        encoder.encode(s);
        return s.toArray(ValueLayout.JAVA_BYTE);
    }

    private static byte[] command(byte[] cdb, int bufferFormat, long length) {
        boolean withDescriptor = bufferFormat != SrpBufferFormat.NONE;
        return iu(48 + (withDescriptor ? 16 : 0), s -> {
            SrpCommand c = new SrpCommand().wrap(s, 0).reset().setTag(TAG).setLun(0).setCdb(cdb)
                    .setBufferFormats(bufferFormat >>> 4, bufferFormat & 0x0F);
            if ((bufferFormat >>> 4) == SrpBufferFormat.DIRECT) {
                c.dataOutDirect(new SrpDirectBuffer()).set(0x7f00_0010_0000L, 0x00C0_FFEE, length);
            } else if ((bufferFormat & 0x0F) == SrpBufferFormat.DIRECT) {
                c.dataInDirect(new SrpDirectBuffer()).set(0x7f00_0010_0000L, 0x00C0_FFEE, length);
            }
        });
    }

    private static void write(Path folder, Map<String, byte[]> seeds) throws IOException {
        Files.createDirectories(folder);
        for (Map.Entry<String, byte[]> e : seeds.entrySet()) {
            String hex = HexFormat.of().formatHex(e.getValue());
            StringBuilder lines = new StringBuilder();
            for (int i = 0; i < hex.length(); i += 64) {
                lines.append(hex, i, Math.min(hex.length(), i + 64)).append('\n');
            }
            Files.writeString(folder.resolve(e.getKey() + ".hex"), lines);
        }
    }

    /** CDB builders for the seeds (the scsi package's test builders are package-private). */
    static final class ScsiCdb {
        private ScsiCdb() {
        }

        static byte[] inquiry(int allocation) {
            return ByteBuffer.allocate(6).put(0, (byte) 0x12).putShort(3, (short) allocation).array();
        }

        static byte[] vpd(int page) {
            return ByteBuffer.allocate(6).put(0, (byte) 0x12).put(1, (byte) 1).put(2, (byte) page).putShort(3, (short) 255).array();
        }

        static byte[] rw10(boolean write, long lba, int blocks, boolean fua) {
            return ByteBuffer.allocate(10).put(0, (byte) (write ? 0x2A : 0x28)).put(1, (byte) (fua ? 0x08 : 0))
                    .putInt(2, (int) lba).putShort(7, (short) blocks).array();
        }

        static byte[] rw16(boolean write, long lba, int blocks, boolean fua) {
            return ByteBuffer.allocate(16).put(0, (byte) (write ? 0x8A : 0x88)).put(1, (byte) (fua ? 0x08 : 0))
                    .putLong(2, lba).putInt(10, blocks).array();
        }
    }
}

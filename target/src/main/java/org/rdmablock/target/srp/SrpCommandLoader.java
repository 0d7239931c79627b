package org.rdmablock.target.srp;

import org.rdmablock.protocol.scsi.SenseCode;
import org.rdmablock.protocol.srp.SrpBufferFormat;
import org.rdmablock.protocol.srp.SrpCommand;
import org.rdmablock.protocol.srp.SrpDirectBuffer;
import org.rdmablock.protocol.srp.SrpIndirectBuffer;
import org.rdmablock.target.core.CommandSlot;

import java.lang.foreign.MemorySegment;

/**
 * Fills a command slot from an SRP_CMD the intake stage decoded: tag, LUN, CDB, the data lengths and the initiator's
 * descriptors, copied out of the IU into the slot's descriptor list (SRP's direct descriptors are the core's
 * {@link org.rdmablock.target.core.DataDescriptor} form as they are), or, for an indirect table the IU only points at, the table's address for
 * the core to fetch by RDMA READ (SRP r16a 5.5.4).
 *
 * <p>Thread: the intake stage's; its flyweights are its own.
 */
final class SrpCommandLoader {
    private final SrpDirectBuffer direct = new SrpDirectBuffer();
    private final SrpIndirectBuffer indirect = new SrpIndirectBuffer();

    /**
     * Copies what the command needs out of {@code iu} into {@code slot}. Returns null, or the sense code to fail it with
     * when its descriptors cannot be served.
     */
    SenseCode load(final CommandSlot slot, final SrpChannel owner, final SrpCommand iu) {
        slot.begin(owner, iu.tag(), iu.lun());
        slot.command().setCdb(iu.segment(), iu.cdbOffsetInSegment(), iu.cdbLength());
        final int outFormat = iu.dataOutFormat();
        final int inFormat = iu.dataInFormat();
        if (outFormat != SrpBufferFormat.NONE && inFormat != SrpBufferFormat.NONE) {
            return SenseCode.INVALID_FIELD_IN_COMMAND_INFORMATION_UNIT; // bidirectional commands: none in SBC
        }
        slot.dataLengths(iu.dataOutLength(), iu.dataInLength());
        if (iu.dataOutTableIsExternal() || iu.dataInTableIsExternal()) {
            slot.readsDataOut(outFormat == SrpBufferFormat.INDIRECT);
            final SrpIndirectBuffer table = slot.readsDataOut() ? iu.dataOutIndirect(indirect) : iu.dataInIndirect(indirect);
            if (table.tableLength() % SrpDirectBuffer.LENGTH != 0 || table.tableLength() > CommandSlot.DESCRIPTOR_BYTES) {
                return SenseCode.INVALID_FIELD_IN_COMMAND_INFORMATION_UNIT; // more descriptors than a slot carries
            }
            slot.fetchTable(table.tableVirtualAddress(), table.tableKey(), (int) table.tableLength(), table.totalLength());
            return null;
        }
        if (outFormat == SrpBufferFormat.DIRECT) {
            slot.readsDataOut(true);
            return loadDirect(slot, iu, iu.dataOutDescriptorOffset(), iu.dataOutDirect(direct));
        } else if (outFormat == SrpBufferFormat.INDIRECT) {
            slot.readsDataOut(true);
            return loadIndirect(slot, iu, iu.dataOutDescriptorOffset(), iu.dataOutIndirect(indirect), iu.dataOutDescriptorCount());
        } else if (inFormat == SrpBufferFormat.DIRECT) {
            return loadDirect(slot, iu, iu.dataInDescriptorOffset(), iu.dataInDirect(direct));
        } else if (inFormat == SrpBufferFormat.INDIRECT) {
            return loadIndirect(slot, iu, iu.dataInDescriptorOffset(), iu.dataInIndirect(indirect), iu.dataInDescriptorCount());
        }
        return null;
    }

    private static SenseCode loadDirect(final CommandSlot slot, final SrpCommand iu, final int descriptorAt,
                                        final SrpDirectBuffer d) {
        if (d.length() == 0) {
            return null;
        }
        return loadDescriptors(slot, iu.segment(), iu.offset() + descriptorAt, 1, d.length());
    }

    private static SenseCode loadIndirect(final CommandSlot slot, final SrpCommand iu, final int descriptorAt,
                                          final SrpIndirectBuffer table, final int count) {
        if (count > CommandSlot.MAX_DESCRIPTORS) {
            return SenseCode.INVALID_FIELD_IN_COMMAND_INFORMATION_UNIT;
        }
        return loadDescriptors(slot, iu.segment(), iu.offset() + descriptorAt + SrpIndirectBuffer.DESC_LIST_OFFSET, count,
                table.totalLength());
    }

    /**
     * Copies {@code count} direct descriptors at {@code at} of {@code list} into the slot's descriptor list (the IU's
     * receive buffer goes back to the initiator before the data moves); their lengths must add up to {@code total}.
     */
    private static SenseCode loadDescriptors(final CommandSlot slot, final MemorySegment list, final long at, final int count,
                                             final long total) {
        MemorySegment.copy(list, at, slot.descriptorSegment(), slot.descriptorOffset(), (long) count * SrpDirectBuffer.LENGTH);
        return slot.descriptorsAddUpTo(count, total);
    }
}

package org.rdmablock.initiator;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.rdmablock.protocol.nvme.NvmeDsmRange;
import org.rdmablock.protocol.nvme.NvmeOpcode;
import org.rdmablock.protocol.nvme.NvmeSglDescriptor;
import org.rdmablock.protocol.nvme.NvmeSubmission;
import org.rdmablock.verbs.DeviceContext;
import org.rdmablock.verbs.ProtectionDomain;
import org.rdmablock.verbs.VerbsProvider;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The NVMe submission entries the library builds, read back with the protocol's codecs: a write that fits the
 * controller's capsule goes in it (an in-capsule data block, nothing for the controller to read), a larger one and a
 * read by keyed SGL into the caller's registered buffer or the bounce buffer; FUA; a deallocate range in the capsule.
 */
class NvmeCommandEncoderTest {
    static final int IN_CAPSULE = 4096;
    private VerbsProvider provider;
    private DeviceContext context;
    private ProtectionDomain pd;
    private final Arena arena = Arena.ofShared();
    private final List<AutoCloseable> regions = new ArrayList<>();
    private ChannelMemory memory;
    private NvmeCommandEncoder encoder;
    private final NvmeSubmission entry = new NvmeSubmission();
    private final NvmeSglDescriptor sgl = new NvmeSglDescriptor();

    @BeforeEach
    void memory() {
        provider = VerbsProvider.load("soft");
        context = provider.devices().getFirst().open();
        pd = context.allocateProtectionDomain();
        memory = ChannelMemory.register(pd, arena, 4, NvmeAssociation.CAPSULE_LENGTH + IN_CAPSULE, 128 * 1024, regions);
        encoder = new NvmeCommandEncoder(memory, IN_CAPSULE);
    }

    @AfterEach
    void close() throws Exception {
        for (final AutoCloseable region : regions) {
            region.close();
        }
        pd.close();
        context.close();
        arena.close();
        provider.close();
    }

    private OutstandingCommand command(final IoRequest request, final int bytes) {
        final OutstandingCommand c = new OutstandingCommand(1);
        c.nextTag();
        c.add(request, 0, bytes);
        return c;
    }

    private static IoRequest request(final int op, final long lba, final long blocks, final MemorySegment buffer,
                                     final boolean fua) {
        final IoRequest request = new IoRequest();
        request.set(op, 7, 512, lba, blocks, buffer, 0, RegisteredMemory.NOT_REGISTERED, fua, 1 << 20, null, null);
        return request;
    }

    private NvmeSubmission entryOf(final OutstandingCommand c) {
        return entry.wrap(memory.ius().segment(), encoder.iuOffset(c));
    }

    @Test
    void aWriteThatFitsTheCapsuleGoesInIt() {
        final MemorySegment data = Arena.ofAuto().allocate(IN_CAPSULE);
        data.fill((byte) 0x3C);
        final IoRequest write = request(IoRequest.WRITE, 100, 8, data, true);
        final OutstandingCommand c = command(write, IN_CAPSULE);
        assertEquals(NvmeSubmission.LENGTH + IN_CAPSULE, encoder.encode(write, c), "the entry and the data in one SEND");
        final NvmeSubmission e = entryOf(c);
        assertEquals(NvmeOpcode.WRITE, e.opcode());
        assertEquals(7, e.nsid());
        assertEquals(100, e.startingLba());
        assertEquals(8, e.blocks());
        assertTrue((e.control() & NvmeSubmission.CONTROL_FUA) != 0);
        assertEquals(1, e.commandId(), "the command identifier is the slot");
        e.sgl(sgl);
        assertEquals(NvmeSglDescriptor.typeOf(NvmeSglDescriptor.TYPE_DATA_BLOCK, NvmeSglDescriptor.SUBTYPE_OFFSET), sgl.identifier());
        assertEquals(0, sgl.address());
        assertEquals(IN_CAPSULE, sgl.length());
        assertEquals((byte) 0x3C, memory.ius().segment().get(ValueLayout.JAVA_BYTE,
                encoder.iuOffset(c) + NvmeSubmission.LENGTH + IN_CAPSULE - 1), "the data right after the entry");
        assertFalse(c.bounced);
    }

    @Test
    void aLargerWriteAndAReadGoByKeyedSgl() {
        final MemorySegment data = Arena.ofAuto().allocate(2 * IN_CAPSULE);
        final IoRequest write = request(IoRequest.WRITE, 0, 16, data, false);
        final OutstandingCommand c = command(write, 2 * IN_CAPSULE);
        assertEquals(NvmeSubmission.LENGTH, encoder.encode(write, c));
        entryOf(c).sgl(sgl);
        assertEquals(NvmeSglDescriptor.TYPE_KEYED_DATA_BLOCK, sgl.type());
        assertEquals(memory.bounce().address() + 128 * 1024, sgl.address(), "slot 1's bounce buffer");
        assertEquals(2 * IN_CAPSULE, sgl.keyedLength());
        assertTrue(c.bounced);
        final IoRequest read = request(IoRequest.READ, 0, 1, Arena.ofAuto().allocate(512), false);
        final OutstandingCommand r = command(read, 512);
        assertEquals(NvmeSubmission.LENGTH, encoder.encode(read, r), "read data never goes in the capsule");
        assertEquals(NvmeOpcode.READ, entryOf(r).opcode());
        assertTrue(r.dataIn);
    }

    @Test
    void withoutInCapsuleDataEveryWriteIsRead() {
        encoder.immediateLimit(0);
        final IoRequest write = request(IoRequest.WRITE, 0, 1, Arena.ofAuto().allocate(512), false);
        assertEquals(NvmeSubmission.LENGTH, encoder.encode(write, command(write, 512)));
    }

    @Test
    void aDeallocateRangeGoesInTheCapsule() {
        final IoRequest unmap = request(IoRequest.UNMAP, 4096, 2048, null, false);
        final OutstandingCommand c = command(unmap, encoder.controlDataLength(unmap));
        assertEquals(NvmeSubmission.LENGTH + NvmeDsmRange.LENGTH, encoder.encode(unmap, c));
        final NvmeSubmission e = entryOf(c);
        assertEquals(NvmeOpcode.DATASET_MANAGEMENT, e.opcode());
        final NvmeDsmRange range = new NvmeDsmRange().wrap(memory.ius().segment(), encoder.iuOffset(c) + NvmeSubmission.LENGTH);
        assertEquals(4096, range.startingLba());
        assertEquals(2048, range.blocks());
    }
}

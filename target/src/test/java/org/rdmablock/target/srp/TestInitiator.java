package org.rdmablock.target.srp;

import org.rdmablock.protocol.srp.SrpBufferFormat;
import org.rdmablock.protocol.srp.SrpCommand;
import org.rdmablock.protocol.srp.SrpDecodeError;
import org.rdmablock.protocol.srp.SrpIuDecoder;
import org.rdmablock.protocol.srp.SrpLoginRequest;
import org.rdmablock.protocol.srp.SrpLoginRequestRdmaCm;
import org.rdmablock.protocol.srp.SrpLoginResponse;
import org.rdmablock.protocol.srp.SrpOpcode;
import org.rdmablock.protocol.srp.SrpResponse;
import org.rdmablock.verbs.AccessFlags;
import org.rdmablock.verbs.CompletionQueue;
import org.rdmablock.verbs.ConnectionId;
import org.rdmablock.verbs.ConnectionParameters;
import org.rdmablock.verbs.MemoryRegion;
import org.rdmablock.verbs.ProtectionDomain;
import org.rdmablock.verbs.QueuePair;
import org.rdmablock.verbs.QueuePairCapabilities;
import org.rdmablock.verbs.QueuePairInitAttributes;
import org.rdmablock.verbs.QueuePairType;
import org.rdmablock.verbs.ReceiveWorkRequest;
import org.rdmablock.verbs.SendFlags;
import org.rdmablock.verbs.SendOpcode;
import org.rdmablock.verbs.SendWorkRequest;
import org.rdmablock.verbs.VerbsProvider;
import org.rdmablock.verbs.WcOpcode;
import org.rdmablock.verbs.WorkCompletions;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteOrder;
import java.time.Duration;

/**
 * A minimal SRP initiator for the target's tests, built from the protocol codecs: logs in with the 56-byte rdma_cm
 * login (as Linux ib_srp), sends SRP_CMD IUs with direct or immediate data descriptors into one registered buffer,
 * and reads the SRP_RSP IUs back. Single-threaded; several commands may be in flight (one IU buffer per tag).
 */
final class TestInitiator implements AutoCloseable {
    static final Duration TIMEOUT = Duration.ofSeconds(10);
    static final int IU_LENGTH = 8276;
    private static final int RESPONSE_LENGTH = 1024;
    private static final ValueLayout.OfLong BE_LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    final VerbsProvider provider;
    final Arena arena = Arena.ofShared();
    final ProtectionDomain pd;
    final CompletionQueue cq;
    final ConnectionId id;
    final QueuePair qp;
    final MemoryRegion data;
    final MemoryRegion ius;
    final MemoryRegion responses;
    final int slots;
    final SrpLoginResponse login = new SrpLoginResponse();
    final byte[] loginReply;
    final SrpCommand cmd = new SrpCommand();
    final SendWorkRequest send = new SendWorkRequest(1);
    final WorkCompletions wc = new WorkCompletions(16);
    final SrpIuDecoder decoder = new SrpIuDecoder();
    final ReceiveWorkRequest[] receives;
    int credits;
    int immediateDataOffset;

    /** What one SRP_RSP said. */
    record Response(long tag, int status, int flags, int requestLimitDelta, long dataInResidual, long dataOutResidual,
                    byte[] sense, int responseCode, int opcode) {
    }

    static byte[] loginPrivateData(final long idExt, final long iocGuid, final long initiatorHigh, final int iuLength,
                                   final int flags, final int immediateOffset) {
        final MemorySegment out = MemorySegment.ofArray(new byte[SrpLoginRequestRdmaCm.LENGTH]);
        final SrpLoginRequestRdmaCm req = new SrpLoginRequestRdmaCm().wrap(out, 0).reset();
        req.setTag(0x1234).setRequestedMaxInitiatorToTargetIuLength(iuLength)
                .setRequiredBufferFormats(SrpBufferFormat.SUPPORTS_DIRECT | SrpBufferFormat.SUPPORTS_INDIRECT)
                .setFlags(flags).setImmediateDataOffset(immediateOffset);
        final byte[] initiator = new byte[16];
        MemorySegment.ofArray(initiator).set(BE_LONG, 0, initiatorHigh);
        MemorySegment.ofArray(initiator).set(BE_LONG, 8, 0x1L);
        req.setInitiatorPortId(initiator);
        final byte[] target = new byte[16];
        MemorySegment.ofArray(target).set(BE_LONG, 0, idExt);
        MemorySegment.ofArray(target).set(BE_LONG, 8, iocGuid);
        req.setTargetPortId(target);
        return out.toArray(ValueLayout.JAVA_BYTE);
    }

    /** Logs in with immediate data requested at offset 68 (ib_srp's). */
    static TestInitiator login(final InetSocketAddress target, final long idExt, final long iocGuid, final long initiatorId,
                               final long dataBytes) {
        return new TestInitiator(target, loginPrivateData(idExt, iocGuid, initiatorId, IU_LENGTH,
                SrpLoginRequest.IMMEDIATE_DATA_REQUESTED | SrpLoginRequest.MULTICHANNEL_MULTI, 68), dataBytes, 64);
    }

    TestInitiator(final InetSocketAddress target, final byte[] loginData, final long dataBytes, final int slots) {
        this.slots = slots;
        provider = VerbsProvider.load("soft");
        id = provider.connectionManager().resolve(target, TIMEOUT);
        pd = id.context().allocateProtectionDomain();
        cq = id.context().createCompletionQueue(slots * 4 + 16, null);
        qp = id.createQueuePair(pd, new QueuePairInitAttributes(QueuePairType.RC, cq, cq, null,
                new QueuePairCapabilities(slots + 4, slots + 4, 1, 1, 0), false));
        data = pd.registerMemory(arena.allocate(Math.max(dataBytes, 4096), 4096),
                AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_WRITE);
        ius = pd.registerMemory(arena.allocate((long) slots * IU_LENGTH, 4096), AccessFlags.LOCAL_WRITE);
        responses = pd.registerMemory(arena.allocate((long) (slots + 4) * RESPONSE_LENGTH, 4096), AccessFlags.LOCAL_WRITE);
        receives = new ReceiveWorkRequest[slots + 4];
        for (int i = 0; i < receives.length; i++) {
            receives[i] = new ReceiveWorkRequest(1).wrId(i);
            receives[i].sgl().add(responses, (long) i * RESPONSE_LENGTH, RESPONSE_LENGTH);
            qp.postReceive(receives[i]);
        }
        id.connect(new ConnectionParameters(loginData, 16, 16, 7, 7), TIMEOUT);
        loginReply = id.privateData();
        login.wrap(MemorySegment.ofArray(loginReply), 0);
        credits = login.requestLimitDelta();
        immediateDataOffset = login.immediateDataSupported() ? 68 : 0;
    }

    MemorySegment buffer() {
        return data.segment();
    }

    /**
     * Sends one SRP_CMD. {@code dataOut} / {@code dataIn}: bytes at {@code bufferOffset} of the data buffer, offered by
     * a direct descriptor; {@code immediate}: carry the data-out inside the IU instead.
     */
    void submit(final long tag, final long lun, final byte[] cdb, final int dataOut, final int dataIn,
                final long bufferOffset, final boolean immediate) {
        final int slot = (int) (tag % slots);
        final long at = (long) slot * IU_LENGTH;
        cmd.wrap(ius.segment(), at).reset();
        cmd.setTag(tag).setLun(lun).setCdb(cdb);
        int length;
        if (dataOut > 0 && immediate) {
            cmd.setBufferFormats(SrpBufferFormat.IMMEDIATE, SrpBufferFormat.NONE).setImmediateDataLength(dataOut);
            MemorySegment.copy(data.segment(), bufferOffset, ius.segment(), at + immediateDataOffset, dataOut);
            length = immediateDataOffset + dataOut;
        } else if (dataOut > 0) {
            cmd.setBufferFormats(SrpBufferFormat.DIRECT, SrpBufferFormat.NONE);
            new org.rdmablock.protocol.srp.SrpDirectBuffer().wrap(ius.segment(), at + cmd.dataOutDescriptorOffset())
                    .set(data.address() + bufferOffset, data.rkey(), dataOut);
            length = cmd.dataOutDescriptorOffset() + 16;
        } else if (dataIn > 0) {
            cmd.setBufferFormats(SrpBufferFormat.NONE, SrpBufferFormat.DIRECT);
            new org.rdmablock.protocol.srp.SrpDirectBuffer().wrap(ius.segment(), at + cmd.dataInDescriptorOffset())
                    .set(data.address() + bufferOffset, data.rkey(), dataIn);
            length = cmd.dataInDescriptorOffset() + 16;
        } else {
            length = SrpCommand.FIXED_LENGTH;
        }
        sendRaw(slot, length);
    }

    /** Sends {@code length} bytes of IU buffer {@code slot} as they are (tests write malformed IUs there). */
    void sendRaw(final int slot, final int length) {
        credits--;
        send.opcode(SendOpcode.SEND).flags(SendFlags.SIGNALED).wrId(-1L).next(null);
        send.sgl().clear().add(ius, (long) slot * IU_LENGTH, length);
        qp.postSend(send);
    }

    /** The IU buffer of {@code slot}, for building raw IUs. */
    MemorySegment iuBuffer(final int slot) {
        return ius.segment().asSlice((long) slot * IU_LENGTH, IU_LENGTH);
    }

    /** Waits for the next response IU (SEND completions of our own IUs are skipped). */
    Response awaitResponse() {
        final long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            final int n = cq.poll(wc, 1);
            if (n == 0) {
                Thread.onSpinWait();
                continue;
            }
            if (!wc.isSuccess(0)) {
                throw new IllegalStateException("completion failed: " + wc.toString(0));
            }
            if (wc.opcode(0) != WcOpcode.RECV) {
                continue;
            }
            final int index = (int) wc.wrId(0);
            final long at = (long) index * RESPONSE_LENGTH;
            final SrpDecodeError error = decoder.decode(responses.segment(), at, wc.byteLength(0));
            if (error != SrpDecodeError.NONE) {
                throw new IllegalStateException("undecodable response: " + error);
            }
            final Response r;
            if (decoder.opcode() == SrpOpcode.RSP) {
                final SrpResponse rsp = decoder.response();
                final byte[] sense = new byte[(int) rsp.senseDataLength()];
                MemorySegment.copy(responses.segment(), ValueLayout.JAVA_BYTE, at + rsp.senseDataOffset(), sense, 0, sense.length);
                r = new Response(rsp.tag(), rsp.status(), rsp.flags(), rsp.requestLimitDelta(), rsp.dataInResidualCount(),
                        rsp.dataOutResidualCount(), sense, rsp.responseCode(), SrpOpcode.RSP);
                credits += rsp.requestLimitDelta();
            } else {
                r = new Response(0, -1, 0, 0, 0, 0, new byte[0], -1, decoder.opcode());
            }
            qp.postReceive(receives[index]);
            return r;
        }
        throw new IllegalStateException("no response within " + TIMEOUT);
    }

    /** One command at queue depth 1. */
    Response execute(final long lun, final byte[] cdb, final int dataOut, final int dataIn, final long bufferOffset,
                     final boolean immediate) {
        submit(7, lun, cdb, dataOut, dataIn, bufferOffset, immediate);
        return awaitResponse();
    }

    static byte[] read16(final long lba, final int blocks) {
        return rw16(0x88, lba, blocks);
    }

    static byte[] write16(final long lba, final int blocks) {
        return rw16(0x8A, lba, blocks);
    }

    private static byte[] rw16(final int opcode, final long lba, final int blocks) {
        final byte[] cdb = new byte[16];
        cdb[0] = (byte) opcode;
        MemorySegment.ofArray(cdb).set(BE_LONG, 2, lba);
        MemorySegment.ofArray(cdb).set(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 10, blocks);
        return cdb;
    }

    @Override
    public void close() {
        id.close();
        cq.close();
        data.close();
        ius.close();
        responses.close();
        pd.close();
        provider.close();
        arena.close();
    }
}

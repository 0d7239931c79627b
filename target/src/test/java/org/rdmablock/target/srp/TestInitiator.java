package org.rdmablock.target.srp;

import org.awaitility.core.ConditionTimeoutException;
import org.rdmablock.protocol.srp.SrpBufferFormat;
import org.rdmablock.protocol.srp.SrpCommand;
import org.rdmablock.protocol.srp.SrpDecodeError;
import org.rdmablock.protocol.srp.SrpDirectBuffer;
import org.rdmablock.protocol.srp.SrpIndirectBuffer;
import org.rdmablock.protocol.srp.SrpInitiatorLogout;
import org.rdmablock.protocol.srp.SrpIuDecoder;
import org.rdmablock.protocol.srp.SrpLoginReject;
import org.rdmablock.protocol.srp.SrpLoginRequest;
import org.rdmablock.protocol.srp.SrpLoginRequestRdmaCm;
import org.rdmablock.protocol.srp.SrpLoginResponse;
import org.rdmablock.protocol.srp.SrpOpcode;
import org.rdmablock.protocol.srp.SrpResponse;
import org.rdmablock.protocol.srp.SrpTaskManagement;
import org.rdmablock.verbs.AccessFlags;
import org.rdmablock.verbs.CompletionQueue;
import org.rdmablock.verbs.ConnectionId;
import org.rdmablock.verbs.ConnectionParameters;
import org.rdmablock.verbs.ConnectionRejectedException;
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
import org.rdmablock.verbs.WcStatus;
import org.rdmablock.verbs.WorkCompletions;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import static org.rdmablock.target.Waiting.waitUpTo;

/**
 * A minimal SRP initiator for the target's tests, built from the protocol codecs: logs in with the 56-byte rdma_cm
 * login (as Linux ib_srp), sends SRP_CMD IUs with direct, indirect or immediate data descriptors into one registered
 * buffer, task management and logout IUs, or raw bytes, and reads the target's IUs back. Single-threaded; several
 * commands may be in flight (one IU buffer per tag).
 */
final class TestInitiator implements AutoCloseable {
    /**
     * The verbs provider of the target and the initiators of these tests: {@code soft} on loopback by default; the QEMU
     * harness runs the suite on {@code native} (rxe) with an address of the guest's veth.
     */
    static final String PROVIDER = System.getProperty("rdmablock.target.provider", "soft");
    /** The address the tests' targets listen on. */
    static final String ADDRESS = System.getProperty("rdmablock.target.address", "127.0.0.1");
    /**
     * How long a test initiator waits for an address, a connection, a response; system property
     * {@code rdmablock.test.timeoutSeconds}, default 10. The QEMU harness sets 30: under emulation the first login of
     * its JVM (cold code, rdma_cm on rxe) once took longer than 10 s, and the test failed on the connect.
     */
    static final Duration TIMEOUT = Duration.ofSeconds(Long.getLong("rdmablock.test.timeoutSeconds", 10));
    /** How long the queue stays quiet after the disconnect before {@link #awaitEnding} takes the channel as ended. */
    private static final Duration QUIET = Duration.ofMillis(50);
    static final int IU_LENGTH = 8276;
    /** Where ib_srp puts immediate data in SRP_CMD, and what {@link #login} asks for. */
    static final int IMMEDIATE_OFFSET = 68;
    /** The tag every login request carries. */
    static final long LOGIN_TAG = 0x1234;
    private static final int RESPONSE_LENGTH = 1024;
    private static final ValueLayout.OfLong BE_LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    final VerbsProvider provider;
    private final boolean ownsProvider;
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
    private boolean closed;

    /** What one IU from the target said: an SRP_RSP, or (opcode T_LOGOUT, status -1) a target logout and its reason. */
    record Response(long tag, int status, int flags, int requestLimitDelta, long dataInResidual, long dataOutResidual,
                    byte[] sense, int responseCode, int opcode, int logoutReason) {
        /** The sense key of fixed-format sense, or -1 without sense. */
        int senseKey() {
            return sense.length > 2 ? sense[2] & 0x0F : -1;
        }

        /** ASC and ASCQ of fixed-format sense as one number (0x2500: LOGICAL UNIT NOT SUPPORTED), or -1. */
        int ascAndQualifier() {
            return sense.length > 13 ? (Byte.toUnsignedInt(sense[12]) << 8) | Byte.toUnsignedInt(sense[13]) : -1;
        }

        /** The residual flags (DOOVER, DOUNDER, DIOVER, DIUNDER) alone. */
        int residualFlags() {
            return flags & (SrpResponse.FLAG_DOOVER | SrpResponse.FLAG_DOUNDER | SrpResponse.FLAG_DIOVER | SrpResponse.FLAG_DIUNDER);
        }
    }

    /** {@code length} bytes at {@code offset} of the data buffer, offered by one direct descriptor. */
    record Extent(long offset, int length) {
    }

    /** How a channel ended as this initiator saw it: the IUs that came first, failed completions, the disconnect. */
    record Ending(List<Response> responses, List<WcStatus> failures, boolean disconnected) {
    }

    /** The rdma_cm login private data (56 bytes), with both direct and indirect descriptors asked for. */
    static byte[] loginPrivateData(final long idExt, final long iocGuid, final long initiatorHigh, final int iuLength,
                                   final int flags, final int immediateOffset) {
        final MemorySegment out = MemorySegment.ofArray(new byte[SrpLoginRequestRdmaCm.LENGTH]);
        final SrpLoginRequestRdmaCm req = new SrpLoginRequestRdmaCm().wrap(out, 0).reset();
        req.setTag(LOGIN_TAG).setRequestedMaxInitiatorToTargetIuLength(iuLength)
                .setRequiredBufferFormats(SrpBufferFormat.SUPPORTS_DIRECT | SrpBufferFormat.SUPPORTS_INDIRECT)
                .setFlags(flags).setImmediateDataOffset(immediateOffset);
        req.setInitiatorPortId(portId(initiatorHigh, 0x1L));
        req.setTargetPortId(portId(idExt, iocGuid));
        return out.toArray(ValueLayout.JAVA_BYTE);
    }

    /** A 16-byte port id: two big-endian longs. */
    static byte[] portId(final long high, final long low) {
        final byte[] id = new byte[16];
        MemorySegment.ofArray(id).set(BE_LONG, 0, high);
        MemorySegment.ofArray(id).set(BE_LONG, 8, low);
        return id;
    }

    /** Logs in with immediate data requested at offset 68 (ib_srp's) and multichannel action MULTIPLE. */
    static TestInitiator login(final InetSocketAddress target, final long idExt, final long iocGuid, final long initiatorId,
                               final long dataBytes) {
        return new TestInitiator(target, loginPrivateData(idExt, iocGuid, initiatorId, IU_LENGTH,
                SrpLoginRequest.IMMEDIATE_DATA_REQUESTED | SrpLoginRequest.MULTICHANNEL_MULTI, IMMEDIATE_OFFSET), dataBytes, 64);
    }

    /**
     * Connects with {@code loginData}; a rejected login throws {@link ConnectionRejectedException} (see
     * {@link #loginReject}) and leaves nothing open.
     */
    TestInitiator(final InetSocketAddress target, final byte[] loginData, final long dataBytes, final int slots) {
        this(null, target, loginData, dataBytes, slots);
    }

    /** As above on {@code shared} (closed by its owner, not here), or on a provider of its own when null. */
    TestInitiator(final VerbsProvider shared, final InetSocketAddress target, final byte[] loginData, final long dataBytes,
                  final int slots) {
        this.slots = slots;
        this.ownsProvider = shared == null;
        provider = shared != null ? shared : VerbsProvider.load(PROVIDER);
        ConnectionId connection = null;
        ProtectionDomain protection = null;
        CompletionQueue completions = null;
        try {
            connection = provider.connectionManager().resolve(target, TIMEOUT);
            protection = connection.context().allocateProtectionDomain();
            completions = connection.context().createCompletionQueue(slots * 4 + 16, null);
        } catch (RuntimeException e) {
            closeAll(connection, completions, protection);
            throw e;
        }
        id = connection;
        pd = protection;
        cq = completions;
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
        try {
            id.connect(new ConnectionParameters(loginData, 16, 16, 7, 7), TIMEOUT);
        } catch (RuntimeException e) {
            close();
            throw e;
        }
        loginReply = id.privateData();
        login.wrap(MemorySegment.ofArray(loginReply), 0);
        credits = login.requestLimitDelta();
        immediateDataOffset = login.immediateDataSupported() ? IMMEDIATE_OFFSET : 0;
    }

    private void closeAll(final ConnectionId connection, final CompletionQueue completions, final ProtectionDomain protection) {
        if (connection != null) {
            connection.close();
        }
        if (completions != null) {
            completions.close();
        }
        if (protection != null) {
            protection.close();
        }
        if (ownsProvider) {
            provider.close();
        }
    }

    /** The SRP_LOGIN_REJ in a rejected connect's private data, which must be a well-formed LOGIN_REJ. */
    static SrpLoginReject loginReject(final ConnectionRejectedException rejected) {
        final byte[] privateData = rejected.privateData();
        final SrpLoginReject reject = new SrpLoginReject().wrap(MemorySegment.ofArray(privateData), 0);
        final SrpDecodeError error = reject.validate(privateData.length);
        if (error != SrpDecodeError.NONE) {
            throw new AssertionError("the reject's private data is no SRP_LOGIN_REJ: " + error + " (" + privateData.length + " bytes)");
        }
        return reject;
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
        if (dataOut > 0 && immediate) {
            final SrpCommand c = command(tag, lun, cdb);
            c.setBufferFormats(SrpBufferFormat.IMMEDIATE, SrpBufferFormat.NONE).setImmediateDataLength(dataOut);
            MemorySegment.copy(data.segment(), bufferOffset, ius.segment(), c.offset() + immediateDataOffset, dataOut);
            sendRaw(slotOf(tag), immediateDataOffset + dataOut);
        } else if (dataOut > 0 || dataIn > 0) {
            submitDirect(tag, lun, cdb, dataOut > 0, data.address() + bufferOffset, data.rkey(), dataOut > 0 ? dataOut : dataIn);
        } else {
            command(tag, lun, cdb);
            sendRaw(slotOf(tag), SrpCommand.FIXED_LENGTH);
        }
    }

    /** Sends one SRP_CMD with a direct descriptor as given (tests point it at memory the target must not reach). */
    void submitDirect(final long tag, final long lun, final byte[] cdb, final boolean dataOut, final long address,
                      final int key, final long length) {
        sendRaw(slotOf(tag), buildDirect(tag, lun, cdb, dataOut, address, key, length));
    }

    /** Writes the SRP_CMD of {@link #submitDirect} into the IU buffer of {@code tag}; returns its length. */
    int buildDirect(final long tag, final long lun, final byte[] cdb, final boolean dataOut, final long address,
                    final int key, final long length) {
        final SrpCommand c = command(tag, lun, cdb);
        c.setBufferFormats(dataOut ? SrpBufferFormat.DIRECT : SrpBufferFormat.NONE, dataOut ? SrpBufferFormat.NONE : SrpBufferFormat.DIRECT);
        final int at = dataOut ? c.dataOutDescriptorOffset() : c.dataInDescriptorOffset();
        new SrpDirectBuffer().wrap(ius.segment(), c.offset() + at).set(address, key, length);
        return at + SrpDirectBuffer.LENGTH;
    }

    /**
     * Sends one SRP_CMD with an indirect descriptor whose whole table is in the IU, one direct descriptor per extent
     * of the data buffer; the total length is what the extents add up to.
     */
    void submitIndirect(final long tag, final long lun, final byte[] cdb, final boolean dataOut, final Extent... extents) {
        final long[] addresses = new long[extents.length];
        final int[] lengths = new int[extents.length];
        long total = 0;
        for (int i = 0; i < extents.length; i++) {
            addresses[i] = data.address() + extents[i].offset();
            lengths[i] = extents[i].length();
            total += lengths[i];
        }
        sendRaw(slotOf(tag), buildIndirect(tag, lun, cdb, dataOut, addresses, data.rkey(), lengths, total));
    }

    /**
     * Writes an SRP_CMD with an indirect descriptor into the IU buffer of {@code tag}, the descriptors and the total
     * length as given (tests make them disagree or point elsewhere); returns its length.
     */
    int buildIndirect(final long tag, final long lun, final byte[] cdb, final boolean dataOut, final long[] addresses,
                      final int key, final int[] lengths, final long totalLength) {
        final SrpCommand c = command(tag, lun, cdb);
        final int n = addresses.length;
        if (dataOut) {
            c.setBufferFormats(SrpBufferFormat.INDIRECT, SrpBufferFormat.NONE).setDataOutDescriptorCount(n);
        } else {
            c.setBufferFormats(SrpBufferFormat.NONE, SrpBufferFormat.INDIRECT).setDataInDescriptorCount(n);
        }
        final int at = dataOut ? c.dataOutDescriptorOffset() : c.dataInDescriptorOffset();
        final SrpIndirectBuffer table = new SrpIndirectBuffer().wrap(ius.segment(), c.offset() + at);
        // The table descriptor names the in-IU list, as ib_srp's does; the target needs not read it.
        table.setTable(ius.address() + c.offset() + at + SrpIndirectBuffer.DESC_LIST_OFFSET, 0,
                (long) n * SrpDirectBuffer.LENGTH, totalLength);
        for (int i = 0; i < n; i++) {
            table.setDescriptor(i, addresses[i], key, lengths[i]);
        }
        return at + SrpIndirectBuffer.length(n);
    }

    /** Writes the fixed part of an SRP_CMD (no descriptors) into the IU buffer of {@code tag}. */
    SrpCommand command(final long tag, final long lun, final byte[] cdb) {
        return cmd.wrap(ius.segment(), (long) slotOf(tag) * IU_LENGTH).reset().setTag(tag).setLun(lun).setCdb(cdb);
    }

    /** Sends an SRP_TSK_MGMT IU. */
    void submitTaskManagement(final long tag, final long lun, final int function, final long taskTag) {
        sendRaw(slotOf(tag), buildTaskManagement(tag, lun, function, taskTag));
    }

    /** Writes an SRP_TSK_MGMT IU into the IU buffer of {@code tag}; returns its length. */
    int buildTaskManagement(final long tag, final long lun, final int function, final long taskTag) {
        new SrpTaskManagement().wrap(ius.segment(), (long) slotOf(tag) * IU_LENGTH).reset().setTag(tag).setLun(lun)
                .setFunction(function).setTaskTag(taskTag);
        return SrpTaskManagement.LENGTH;
    }

    /** Sends SRP_I_LOGOUT. */
    void sendLogout(final long tag) {
        new SrpInitiatorLogout().wrap(ius.segment(), (long) slotOf(tag) * IU_LENGTH).reset().setTag(tag);
        sendRaw(slotOf(tag), SrpInitiatorLogout.LENGTH);
    }

    int slotOf(final long tag) {
        return (int) Long.remainderUnsigned(tag, slots);
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

    /**
     * Waits for the next IU from the target (SEND completions of our own IUs are skipped); a failed completion throws.
     * Polls the completion queue without a pause between looks, as an initiator's completion loop does.
     */
    Response awaitResponse() {
        return waitUpTo(TIMEOUT, "a response from the target").pollInterval(Duration.ZERO)
                .until(this::pollResponse, Objects::nonNull);
    }

    /** The IU that arrives within {@code window}, or null: a look for an answer that must not have come yet. */
    Response responseWithin(final Duration window) {
        try {
            return waitUpTo(window, "a response from the target").pollInterval(Duration.ZERO)
                    .until(this::pollResponse, Objects::nonNull);
        } catch (ConditionTimeoutException e) {
            return null;
        }
    }

    /** Takes one completion off the queue: the IU of a receive, or null (none, or our own SEND's); a failed one throws. */
    private Response pollResponse() {
        if (cq.poll(wc, 1) == 0) {
            return null;
        }
        if (!wc.isSuccess(0)) {
            throw new IllegalStateException("completion failed: " + wc.toString(0));
        }
        return wc.opcode(0) == WcOpcode.RECV ? received() : null;
    }

    /** Decodes the IU of the receive that {@code wc} entry 0 completed, and posts that receive again. */
    private Response received() {
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
                    rsp.dataOutResidualCount(), sense, rsp.responseCode(), SrpOpcode.RSP, 0);
            credits += rsp.requestLimitDelta();
        } else if (decoder.opcode() == SrpOpcode.T_LOGOUT) {
            r = new Response(decoder.targetLogout().tag(), -1, 0, 0, 0, 0, new byte[0], -1, SrpOpcode.T_LOGOUT,
                    decoder.targetLogout().reason());
        } else {
            r = new Response(0, -1, 0, 0, 0, 0, new byte[0], -1, decoder.opcode(), 0);
        }
        qp.postReceive(receives[index]);
        return r;
    }

    /** Waits for {@code count} IUs and returns them in arrival order. */
    List<Response> awaitResponses(final int count) {
        final List<Response> all = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            all.add(awaitResponse());
        }
        return all;
    }

    /**
     * Waits, up to {@code timeout}, for the channel to end: collects the IUs that still arrive and the failed
     * completions (flushes, the transport's errors) until the connection is down and the queue is quiet.
     */
    Ending awaitEnding(final Duration timeout) {
        final List<Response> seen = new ArrayList<>();
        final List<WcStatus> failures = new ArrayList<>();
        try {
            waitUpTo(timeout, "the channel's end: disconnected, and no completion for " + QUIET.toMillis() + " ms")
                    .pollInterval(Duration.ZERO).during(QUIET)
                    .until(() -> !takeCompletion(seen, failures) && id.state() == ConnectionId.State.DISCONNECTED);
        } catch (ConditionTimeoutException e) {
            // not over within the timeout: what came is returned, and whether the connection is down
        }
        return new Ending(seen, failures, id.state() == ConnectionId.State.DISCONNECTED);
    }

    /** Takes one completion off the queue into {@code seen} (an IU) or {@code failures} (failed); false when none. */
    private boolean takeCompletion(final List<Response> seen, final List<WcStatus> failures) {
        if (cq.poll(wc, 1) == 0) {
            return false;
        }
        if (!wc.isSuccess(0)) {
            failures.add(wc.status(0));
        } else if (wc.opcode(0) == WcOpcode.RECV) {
            seen.add(received());
        }
        return true;
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
        return Cdb.of(16, opcode).u64(2, lba).u32(10, blocks).bytes();
    }

    /** Closes everything; again, nothing. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        id.close();
        cq.close();
        data.close();
        ius.close();
        responses.close();
        pd.close();
        if (ownsProvider) {
            provider.close();
        }
        arena.close();
    }
}

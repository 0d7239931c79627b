package org.rdmablock.target.nvme;

import org.rdmablock.protocol.nvme.NvmeCompletion;
import org.rdmablock.protocol.nvme.NvmeRdmaCmReply;
import org.rdmablock.protocol.nvme.NvmeRdmaCmRequest;
import org.rdmablock.protocol.nvme.NvmeSglDescriptor;
import org.rdmablock.protocol.nvme.NvmeSubmission;
import org.rdmablock.protocol.nvme.NvmfCommandType;
import org.rdmablock.protocol.nvme.NvmfConnectCommand;
import org.rdmablock.protocol.nvme.NvmfConnectData;
import org.rdmablock.protocol.nvme.NvmfPropertyCommand;
import org.rdmablock.protocol.nvme.NvmeOpcode;
import org.rdmablock.verbs.AccessFlags;
import org.rdmablock.verbs.CompletionQueue;
import org.rdmablock.verbs.ConnectionId;
import org.rdmablock.verbs.ConnectionParameters;
import org.rdmablock.verbs.MemoryRegion;
import org.rdmablock.verbs.MemoryWindow;
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
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;

import static org.rdmablock.target.Waiting.waitUpTo;

/**
 * One queue of a minimal NVMe over Fabrics host for the target's tests, built from the protocol codecs as Linux's
 * nvme-rdma builds its capsules: the rdma_cm private data with queue id and sizes, Connect (its data by keyed SGL on
 * the admin queue, in the capsule on I/O queues), Property Get / Set, admin and I/O commands with a keyed SGL into one
 * registered buffer or data in the capsule, and the completions back. Single-threaded; one command at a time unless a
 * test sends several and awaits their completions.
 */
final class TestNvmeHost implements AutoCloseable {
    static final String PROVIDER = System.getProperty("rdmablock.target.provider", "soft");
    static final String ADDRESS = System.getProperty("rdmablock.target.address", "127.0.0.1");
    static final Duration TIMEOUT = Duration.ofSeconds(Long.getLong("rdmablock.test.timeoutSeconds", 10));
    static final String HOST_NQN = "nqn.2014-08.org.nvmexpress:uuid:00000000-0000-0000-0000-00000000beef";
    /** The host identifier every Connect carries (its UUID, as nvme-cli's hostid). */
    static final String HOST_ID = "000000000000000100000000cafebeef";
    /** A capsule: the entry and up to 4 KiB of in-capsule data. */
    static final int CAPSULE = NvmeSubmission.LENGTH + 4096;
    private static final int RESPONSE = 64;

    /** A completion, and the key its SEND invalidated here (SEND_WITH_INV), or 0 for a plain SEND. */
    record Completion(int commandId, int status, long result, int sqHead, int sqId, int invalidatedRkey) {
    }

    final int queueId;
    final int entries;
    private final VerbsProvider provider;
    private final boolean ownsProvider;
    private final Arena arena = Arena.ofShared();
    private final ProtectionDomain pd;
    private final CompletionQueue cq;
    private final ConnectionId id;
    private final QueuePair qp;
    final MemoryRegion data;
    private final MemoryRegion capsules;
    private final MemoryRegion responses;
    private final ReceiveWorkRequest[] receives;
    private final SendWorkRequest send = new SendWorkRequest(1);
    private final java.util.List<MemoryWindow> windows = new java.util.ArrayList<>();
    private final WorkCompletions wc = new WorkCompletions(16);
    private final NvmeSubmission entry = new NvmeSubmission();
    private final NvmeSglDescriptor sgl = new NvmeSglDescriptor();
    private final NvmeCompletion completion = new NvmeCompletion();
    final int controllerReceiveQueueSize;
    private int nextCommandId = 1;

    /** Connects queue {@code queueId} of {@code entries} entries; throws when the target rejects it. */
    TestNvmeHost(final VerbsProvider shared, final InetSocketAddress target, final int queueId, final int entries,
                 final long dataBytes) {
        this(shared, target, cmRequest(queueId, entries), queueId, entries, dataBytes);
    }

    TestNvmeHost(final VerbsProvider shared, final InetSocketAddress target, final byte[] privateData, final int queueId,
                 final int entries, final long dataBytes) {
        this.queueId = queueId;
        this.entries = entries;
        this.ownsProvider = shared == null;
        this.provider = shared != null ? shared : VerbsProvider.load(PROVIDER);
        id = provider.connectionManager().resolve(target, TIMEOUT);
        pd = id.context().allocateProtectionDomain();
        cq = id.context().createCompletionQueue(entries * 4 + 16, null);
        qp = id.createQueuePair(pd, new QueuePairInitAttributes(QueuePairType.RC, cq, cq, null,
                new QueuePairCapabilities(entries + 4, entries + 4, 1, 1, 0), false));
        data = pd.registerMemory(arena.allocate(Math.max(dataBytes, 4096), 4096),
                AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_WRITE | AccessFlags.MW_BIND);
        capsules = pd.registerMemory(arena.allocate((long) entries * CAPSULE, 4096), AccessFlags.LOCAL_WRITE);
        responses = pd.registerMemory(arena.allocate((long) (entries + 4) * RESPONSE, 4096), AccessFlags.LOCAL_WRITE);
        receives = new ReceiveWorkRequest[entries + 4];
        for (int i = 0; i < receives.length; i++) {
            receives[i] = new ReceiveWorkRequest(1).wrId(i);
            receives[i].sgl().add(responses, (long) i * RESPONSE, RESPONSE);
            qp.postReceive(receives[i]);
        }
        try {
            id.connect(new ConnectionParameters(privateData, 16, 16, 7, 7), TIMEOUT);
        } catch (RuntimeException e) {
            close();
            throw e;
        }
        controllerReceiveQueueSize = new NvmeRdmaCmReply().wrap(MemorySegment.ofArray(id.privateData()), 0)
                .controllerReceiveQueueSize();
    }

    static byte[] cmRequest(final int queueId, final int entries) {
        final byte[] bytes = new byte[NvmeRdmaCmRequest.LENGTH];
        new NvmeRdmaCmRequest().wrap(MemorySegment.ofArray(bytes), 0).reset().setQueueId(queueId)
                .setHostReceiveQueueSize(entries).setHostSendQueueSize(entries).setControllerId(0xFFFF);
        return bytes;
    }

    MemorySegment buffer() {
        return data.segment();
    }

    /**
     * A fresh entry in capsule {@code slot}: {@code opcode}, a new command id, SGLs for data, and the null keyed SGL
     * nvme-rdma gives a command without data ({@code nvme_rdma_set_sg_null}).
     */
    NvmeSubmission entry(final int slot, final int opcode) {
        entry.wrap(capsules.segment(), (long) slot * CAPSULE).reset().setOpcode(opcode)
                .setFlags(NvmeSubmission.FLAGS_SGL_METABUF).setCommandId(nextCommandId++ & 0xFFFF);
        entry.sgl(sgl).setKeyed(0, 0, 0, false);
        return entry;
    }

    /** Points the entry's data at {@code length} bytes at {@code offset} of the registered buffer. */
    void keyed(final NvmeSubmission e, final long offset, final int length) {
        e.sgl(sgl).setKeyed(data.address() + offset, length, Integer.toUnsignedLong(data.rkey()), false);
    }

    /**
     * Binds a memory window over {@code length} bytes at {@code offset} of the buffer, through this queue's QP (as
     * nvme-rdma's fast-registered buffers are keys the target may invalidate), and points the entry's data at it with
     * a keyed SGL asking for remote invalidation. Returns the window's key.
     */
    int keyedInvalidating(final NvmeSubmission e, final long offset, final int length) {
        final MemoryWindow window = pd.allocateMemoryWindow();
        windows.add(window);
        final SendWorkRequest bind = new SendWorkRequest(1).opcode(SendOpcode.BIND_MW).flags(SendFlags.SIGNALED)
                .wrId(-2L).bind(window, data, data.address() + offset, length,
                        AccessFlags.REMOTE_READ | AccessFlags.REMOTE_WRITE);
        qp.postSend(bind);
        waitUpTo(TIMEOUT, "the window's bind").pollInterval(Duration.ZERO).until(() -> {
            if (cq.poll(wc, 1) == 0) {
                return false;
            }
            if (!wc.isSuccess(0)) {
                throw new IllegalStateException("bind failed: " + wc.toString(0));
            }
            return wc.opcode(0) == WcOpcode.BIND_MW;
        });
        e.sgl(sgl).setKeyed(data.address() + offset, length, Integer.toUnsignedLong(window.rkey()), true);
        return window.rkey();
    }

    /** Puts {@code length} bytes at {@code offset} of the buffer into the capsule after the entry; returns the capsule's length. */
    int inCapsule(final NvmeSubmission e, final long offset, final int length) {
        MemorySegment.copy(data.segment(), offset, capsules.segment(), e.offset() + NvmeSubmission.LENGTH, length);
        e.sgl(sgl).setInCapsule(0, length);
        return NvmeSubmission.LENGTH + length;
    }

    /** Sends capsule {@code slot}, {@code length} bytes. */
    void send(final int slot, final int length) {
        send.opcode(SendOpcode.SEND).flags(SendFlags.SIGNALED).wrId(-1L).next(null);
        send.sgl().clear().add(capsules, (long) slot * CAPSULE, length);
        qp.postSend(send);
    }

    /** Sends capsule 0 ({@code length} bytes) and waits for its completion. */
    Completion call(final int length) {
        send(0, length);
        return await();
    }

    /** The next completion from the target (our SENDs' completions skipped); a failed work completion throws. */
    Completion await() {
        return waitUpTo(TIMEOUT, "a completion from the target").pollInterval(Duration.ZERO)
                .until(this::poll, Objects::nonNull);
    }

    private Completion poll() {
        if (cq.poll(wc, 1) == 0) {
            return null;
        }
        if (!wc.isSuccess(0)) {
            throw new IllegalStateException("completion failed: " + wc.toString(0));
        }
        if (wc.opcode(0) != WcOpcode.RECV) {
            return null;
        }
        final int index = (int) wc.wrId(0);
        if (wc.byteLength(0) != NvmeCompletion.LENGTH) {
            throw new IllegalStateException("a response of " + wc.byteLength(0) + " bytes, not 16");
        }
        completion.wrap(responses.segment(), (long) index * RESPONSE);
        final int invalidated = (wc.flags(0) & WorkCompletions.FLAG_WITH_INV) != 0 ? wc.invalidatedRkey(0) : 0;
        final Completion c = new Completion(completion.commandId(), completion.status(), completion.result64(),
                completion.sqHead(), completion.sqId(), invalidated);
        qp.postReceive(receives[index]);
        return c;
    }

    /** Writes Connect data for {@code subsystem} and controller {@code controllerId} at {@code offset} of the buffer. */
    void connectData(final long offset, final String subsystem, final String hostNqn, final int controllerId) {
        new NvmfConnectData().wrap(data.segment(), offset).reset().setHostId(java.util.HexFormat.of().parseHex(HOST_ID)).setControllerId(controllerId)
                .setSubsystemNqn(subsystem).setHostNqn(hostNqn);
    }

    /** Fabrics Connect of this queue: data by keyed SGL on the admin queue, in the capsule on an I/O queue. */
    Completion connect(final String subsystem, final int controllerId, final long keepAliveMillis) {
        connectData(0, subsystem, HOST_NQN, controllerId);
        final NvmeSubmission e = entry(0, NvmeOpcode.FABRICS).setFabricsType(NvmfCommandType.CONNECT);
        new NvmfConnectCommand().wrap(e.segment(), e.offset()).setQueueId(queueId).setQueueSize(entries)
                .setKeepAliveTimeoutMillis(keepAliveMillis);
        if (queueId == 0) {
            keyed(e, 0, NvmfConnectData.LENGTH);
            return call(NvmeSubmission.LENGTH);
        }
        return call(inCapsule(e, 0, NvmfConnectData.LENGTH));
    }

    Completion propertyGet(final int register, final boolean eightBytes) {
        final NvmeSubmission e = entry(0, NvmeOpcode.FABRICS).setFabricsType(NvmfCommandType.PROPERTY_GET);
        new NvmfPropertyCommand().wrap(e.segment(), e.offset()).setAttributes(eightBytes ? NvmfPropertyCommand.SIZE_8_BYTES : 0)
                .setProperty(register);
        return call(NvmeSubmission.LENGTH);
    }

    Completion propertySet(final int register, final long value) {
        final NvmeSubmission e = entry(0, NvmeOpcode.FABRICS).setFabricsType(NvmfCommandType.PROPERTY_SET);
        new NvmfPropertyCommand().wrap(e.segment(), e.offset()).setProperty(register).setValue(value);
        return call(NvmeSubmission.LENGTH);
    }

    /** An admin command with {@code length} bytes of data-in into the buffer at {@code offset}. */
    Completion admin(final int opcode, final long nsid, final long cdw10, final long cdw11, final long offset, final int length) {
        final NvmeSubmission e = entry(0, opcode).setNsid(nsid).setCdw(10, cdw10).setCdw(11, cdw11);
        keyed(e, offset, length);
        return call(NvmeSubmission.LENGTH);
    }

    /** A Read or Write of {@code blocks} at {@code lba} of namespace {@code nsid}, data at {@code offset} of the buffer. */
    Completion io(final int opcode, final long nsid, final long lba, final int blocks, final long offset, final int bytes,
                  final boolean inCapsule) {
        final NvmeSubmission e = entry(0, opcode).setNsid(nsid).setStartingLba(lba).setBlocks(blocks);
        if (inCapsule) {
            return call(inCapsule(e, offset, bytes));
        }
        keyed(e, offset, bytes);
        return call(NvmeSubmission.LENGTH);
    }

    @Override
    public void close() {
        try {
            id.disconnect();
        } catch (RuntimeException ignored) {
            // already gone
        }
        id.close();
        windows.forEach(MemoryWindow::close);
        capsules.close();
        responses.close();
        data.close();
        cq.close();
        pd.close();
        arena.close();
        if (ownsProvider) {
            provider.close();
        }
    }
}

package org.rdmablock.verbs.conformance;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Random;

import org.rdmablock.verbs.AccessFlags;
import org.rdmablock.verbs.CompletionQueue;
import org.rdmablock.verbs.ConnectionId;
import org.rdmablock.verbs.ConnectionListener;
import org.rdmablock.verbs.ConnectionParameters;
import org.rdmablock.verbs.DeviceContext;
import org.rdmablock.verbs.MemoryRegion;
import org.rdmablock.verbs.ProtectionDomain;
import org.rdmablock.verbs.QueuePair;
import org.rdmablock.verbs.QueuePairInitAttributes;
import org.rdmablock.verbs.QueuePairType;
import org.rdmablock.verbs.ReceiveWorkRequest;
import org.rdmablock.verbs.SendOpcode;
import org.rdmablock.verbs.SendWorkRequest;
import org.rdmablock.verbs.VerbsProvider;
import org.rdmablock.verbs.WcOpcode;
import org.rdmablock.verbs.WorkCompletions;

/**
 * The far end of the cross-process conformance tests, run in its own JVM: accepts one connection, exposes a
 * patterned 1 MiB region (its address and rkey travel in the accept's private data) and echoes every SEND back.
 * Prints {@code LISTENING <port>} when ready; exits when the connection ends.
 *
 * <p>Usage: {@code RemotePeer PROVIDER ADDRESS SEED}
 */
public final class RemotePeer {
    static final int REGION_SIZE = 1 << 20;
    static final int MESSAGE_SIZE = 4096;
    static final int RECEIVES = 32;

    private RemotePeer() {
    }

    /** The pattern a peer with {@code seed} fills its region with. */
    static byte[] pattern(final long seed) {
        final byte[] bytes = new byte[REGION_SIZE];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }

    public static void main(final String[] args) throws Exception {
        try (VerbsProvider provider = VerbsProvider.load(args[0]); Arena arena = Arena.ofShared()) {
            final DeviceContext context = provider.devices().getFirst().open();
            final ProtectionDomain pd = context.allocateProtectionDomain();
            final CompletionQueue cq = context.createCompletionQueue(256, null);
            final MemorySegment exposed = arena.allocate(REGION_SIZE, 64);
            MemorySegment.copy(pattern(Long.parseLong(args[2])), 0, exposed, ValueLayout.JAVA_BYTE, 0, REGION_SIZE);
            final MemoryRegion region = pd.registerMemory(exposed, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ
                | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_ATOMIC);
            final MemoryRegion buffers = pd.registerMemory(arena.allocate((long) RECEIVES * MESSAGE_SIZE, 64), AccessFlags.LOCAL_WRITE);
            final ConnectionListener listener = provider.connectionManager()
                .listen(new InetSocketAddress(InetAddress.getByName(args[1]), 0), 4);
            System.out.println("LISTENING " + listener.localAddress().getPort());
            System.out.flush();
            final ConnectionId id = listener.nextRequest(Duration.ofSeconds(30));
            if (id == null) {
                System.exit(2);
            }
            final QueuePair qp = id.createQueuePair(pd, QueuePairInitAttributes.of(QueuePairType.RC, cq));
            final ReceiveWorkRequest recv = new ReceiveWorkRequest();
            for (int i = 0; i < RECEIVES; i++) {
                recv.wrId(i).sgl().clear().add(buffers, (long) i * MESSAGE_SIZE, MESSAGE_SIZE);
                qp.postReceive(recv);
            }
            final ByteBuffer advert = ByteBuffer.allocate(12).putLong(region.address()).putInt(region.rkey());
            id.accept(ConnectionParameters.of(advert.array()));
            echo(id, qp, cq, buffers, recv);
        }
    }

    private static void echo(final ConnectionId id, final QueuePair qp, final CompletionQueue cq, final MemoryRegion buffers,
                             final ReceiveWorkRequest recv) throws InterruptedException {
        final WorkCompletions wc = new WorkCompletions(16);
        final SendWorkRequest reply = new SendWorkRequest().opcode(SendOpcode.SEND);
        while (id.state() == ConnectionId.State.CONNECTED) {
            final int n = cq.poll(wc);
            for (int i = 0; i < n; i++) {
                if (!wc.isSuccess(i)) {
                    return;
                }
                if (wc.opcode(i) == WcOpcode.RECV) {
                    final long slot = wc.wrId(i);
                    reply.wrId(slot).sgl().clear().add(buffers, slot * MESSAGE_SIZE, wc.byteLength(i));
                    qp.postSend(reply);
                    recv.wrId(slot).sgl().clear().add(buffers, slot * MESSAGE_SIZE, MESSAGE_SIZE);
                    qp.postReceive(recv);
                }
            }
            if (n == 0) {
                Thread.sleep(1);
            }
        }
    }
}

package org.rdmablock.verbs.bench;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.rdmablock.verbs.CompletionQueue;
import org.rdmablock.verbs.ConnectionId;
import org.rdmablock.verbs.ConnectionListener;
import org.rdmablock.verbs.ConnectionParameters;
import org.rdmablock.verbs.DeviceContext;
import org.rdmablock.verbs.ProtectionDomain;
import org.rdmablock.verbs.QueuePairInitAttributes;
import org.rdmablock.verbs.QueuePairType;
import org.rdmablock.verbs.VerbsProvider;
import org.rdmablock.verbs.WorkCompletions;

/**
 * What a target pays to look at its one completion queue when nothing has arrived: an empty poll of a soft CQ
 * that {@code qps} connected QPs share (each with an idle peer). With poll-driven progress an empty poll also
 * looks for incoming bytes; it must cost what the ready QPs cost, not what all of them do.
 * {@code bin/jmh verbs -prof gc SharedCompletionQueueBenchmark}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class SharedCompletionQueueBenchmark {
    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    @Param({"1", "16", "64", "256"})
    public int qps;

    private VerbsProvider target;
    private VerbsProvider initiators;
    private CompletionQueue cq;
    private ConnectionListener listener;
    private final List<ConnectionId> ids = new ArrayList<>();
    private final WorkCompletions wc = new WorkCompletions(16);

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        target = VerbsProvider.load("soft");
        initiators = VerbsProvider.load("soft");
        final DeviceContext targetContext = target.devices().getFirst().open();
        final ProtectionDomain targetPd = targetContext.allocateProtectionDomain();
        cq = targetContext.createCompletionQueue(4 * qps + 16, null);
        final DeviceContext initiatorContext = initiators.devices().getFirst().open();
        final ProtectionDomain initiatorPd = initiatorContext.allocateProtectionDomain();
        final CompletionQueue initiatorCq = initiatorContext.createCompletionQueue(4 * qps + 16, null);
        listener = target.connectionManager().listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), qps);
        for (int i = 0; i < qps; i++) {
            final ConnectionId active = initiators.connectionManager().resolve(listener.localAddress(), TIMEOUT);
            active.createQueuePair(initiatorPd, QueuePairInitAttributes.of(QueuePairType.RC, initiatorCq));
            final CompletableFuture<Void> connected = CompletableFuture.runAsync(() -> active.connect(ConnectionParameters.of(new byte[0]), TIMEOUT));
            final ConnectionId passive = listener.nextRequest(TIMEOUT);
            passive.createQueuePair(targetPd, QueuePairInitAttributes.of(QueuePairType.RC, cq));
            passive.accept(ConnectionParameters.of(new byte[0]));
            connected.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            ids.add(active);
            ids.add(passive);
        }
    }

    @Benchmark
    public int emptyPoll() {
        return cq.poll(wc, 16);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        ids.forEach(ConnectionId::close);
        listener.close();
        initiators.close();
        target.close();
    }
}

package org.rdmablock.verbs.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.rdmablock.verbs.conformance.DataTransferConformanceTest.bytes;
import static org.rdmablock.verbs.conformance.DataTransferConformanceTest.pattern;
import static org.rdmablock.verbs.conformance.DataTransferConformanceTest.postReceive;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.rdmablock.verbs.AccessFlags;
import org.rdmablock.verbs.Await;
import org.rdmablock.verbs.CompletionQueue;
import org.rdmablock.verbs.ConnectionId;
import org.rdmablock.verbs.ConnectionParameters;
import org.rdmablock.verbs.MemoryRegion;
import org.rdmablock.verbs.QueuePair;
import org.rdmablock.verbs.QueuePairInitAttributes;
import org.rdmablock.verbs.QueuePairState;
import org.rdmablock.verbs.QueuePairType;
import org.rdmablock.verbs.SendFlags;
import org.rdmablock.verbs.SendOpcode;
import org.rdmablock.verbs.SendWorkRequest;
import org.rdmablock.verbs.WcStatus;
import org.rdmablock.verbs.conformance.Completions.Wc;

/** The same operations against a peer in another JVM process ({@link RemotePeer}), and that peer's death. */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class CrossProcessConformanceTest {

    /** A running peer process and our connection to it. */
    private static final class Remote implements AutoCloseable {
        final Process process;
        final Host host;
        final CompletionQueue cq;
        final ConnectionId id;
        final QueuePair qp;
        final long address;
        final int rkey;

        Remote(final ProviderFixture fixture, final long seed) throws Exception {
            final String launcher = ProcessHandle.current().info().command().orElse("java");
            final java.util.List<String> command = new java.util.ArrayList<>(List.of(launcher, "--enable-native-access=ALL-UNNAMED", "-Xmx256m"));
            for (final String option : System.getProperty("rdmablock.test.peerJvmOptions", "").split(" ")) {
                if (!option.isBlank()) {
                    command.add(option); // e.g. -XX:ErrorFile=... to keep a crashed peer's report
                }
            }
            command.addAll(List.of("-cp", System.getProperty("rdmablock.test.classpath", System.getProperty("java.class.path")),
                RemotePeer.class.getName(), fixture.name(), fixture.address().getHostAddress(), Long.toString(seed)));
            process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            final BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            final String line = out.readLine();
            if (line == null || !line.startsWith("LISTENING ")) {
                final StringBuilder rest = new StringBuilder(String.valueOf(line));
                for (int i = 0; i < 60 && (rest.length() < 8000); i++) {
                    final String more = out.readLine();
                    if (more == null) {
                        break;
                    }
                    rest.append('\n').append(more);
                }
                process.destroyForcibly();
                throw new AssertionError("peer did not start:\n" + rest);
            }
            final int port = Integer.parseInt(line.substring("LISTENING ".length()).trim());
            host = new Host(fixture);
            cq = host.cq(256);
            id = host.track(host.provider.connectionManager().resolve(new InetSocketAddress(fixture.address(), port), ConnectedPair.TIMEOUT));
            qp = id.createQueuePair(host.pd, QueuePairInitAttributes.of(QueuePairType.RC, cq));
            id.connect(ConnectionParameters.of(new byte[0]), ConnectedPair.TIMEOUT);
            final ByteBuffer advert = ByteBuffer.wrap(id.privateData());
            address = advert.getLong();
            rkey = advert.getInt();
        }

        @Override
        public void close() throws Exception {
            try {
                host.close();
            } finally {
                if (!process.waitFor(10, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.rdmablock.verbs.conformance.Fixtures#providers")
    void everyOperationWorksAgainstAnotherProcess(final ProviderFixture fixture) throws Exception {
        try (Remote remote = new Remote(fixture, 41)) {
            final byte[] expected = RemotePeer.pattern(41);
            final MemoryRegion local = remote.host.register(RemotePeer.REGION_SIZE, AccessFlags.LOCAL_WRITE);
            final SendWorkRequest read = new SendWorkRequest().opcode(SendOpcode.RDMA_READ).flags(SendFlags.SIGNALED)
                .remote(remote.address, remote.rkey);
            read.sgl().add(local, 0, RemotePeer.REGION_SIZE);
            remote.qp.postSend(read);
            assertEquals(WcStatus.SUCCESS, Completions.awaitOne(remote.cq).status());
            assertArrayEquals(expected, bytes(local.segment(), 0, RemotePeer.REGION_SIZE));

            final MemoryRegion source = remote.host.register(pattern(remote.host, 100_000, 42), AccessFlags.LOCAL_WRITE);
            final SendWorkRequest write = new SendWorkRequest().opcode(SendOpcode.RDMA_WRITE).remote(remote.address + 8, remote.rkey);
            write.sgl().add(source, 0, 100_000);
            read.sgl().clear().add(local, 0, 100_008);
            remote.qp.postSend(write.next(read));
            assertEquals(WcStatus.SUCCESS, Completions.awaitOne(remote.cq).status());
            assertArrayEquals(bytes(source.segment(), 0, 100_000), bytes(local.segment(), 8, 100_000), "READ sees the WRITE before it");

            local.segment().set(ValueLayout.JAVA_LONG, 0, 0);
            final SendWorkRequest add = new SendWorkRequest().opcode(SendOpcode.ATOMIC_FETCH_AND_ADD).flags(SendFlags.SIGNALED)
                .remote(remote.address + 200_000, remote.rkey).atomic(5, 0);
            add.sgl().add(local, 0, 8);
            remote.qp.postSend(add);
            remote.qp.postSend(add);
            assertEquals(2, Completions.await(remote.cq, 2, ConnectedPair.TIMEOUT).size());
            final long original = ByteBuffer.wrap(expected, 200_000, 8).order(java.nio.ByteOrder.nativeOrder()).getLong();
            assertEquals(original + 5, local.segment().get(ValueLayout.JAVA_LONG, 0), "the second add saw the first");

            final MemoryRegion echoes = remote.host.register(RemotePeer.MESSAGE_SIZE, AccessFlags.LOCAL_WRITE);
            postReceive(remote.qp, echoes, 0, RemotePeer.MESSAGE_SIZE, 99);
            final SendWorkRequest send = new SendWorkRequest().opcode(SendOpcode.SEND_WITH_IMM).immediateData(3).flags(SendFlags.SIGNALED);
            send.sgl().add(source, 0, 1000);
            remote.qp.postSend(send);
            final List<Wc> done = Completions.await(remote.cq, 2, ConnectedPair.TIMEOUT);
            assertTrue(done.stream().allMatch(wc -> wc.status() == WcStatus.SUCCESS), done.toString());
            assertArrayEquals(bytes(source.segment(), 0, 1000), bytes(echoes.segment(), 0, 1000));
            remote.id.disconnect();
            assertTrue(remote.process.waitFor(10, TimeUnit.SECONDS), "the peer sees the disconnect and exits");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.rdmablock.verbs.conformance.Fixtures#providers")
    void killedPeerProcessFailsOutstandingWork(final ProviderFixture fixture) throws Exception {
        try (Remote remote = new Remote(fixture, 43)) {
            final MemoryRegion local = remote.host.register(RemotePeer.REGION_SIZE, AccessFlags.LOCAL_WRITE);
            postReceive(remote.qp, local, 0, 64, 1);
            postReceive(remote.qp, local, 64, 64, 2);
            remote.process.destroyForcibly();
            assertTrue(remote.process.waitFor(10, TimeUnit.SECONDS));
            final SendWorkRequest read = new SendWorkRequest().wrId(3).opcode(SendOpcode.RDMA_READ).flags(SendFlags.SIGNALED)
                .remote(remote.address, remote.rkey);
            read.sgl().add(local, 0, RemotePeer.REGION_SIZE);
            try {
                remote.qp.postSend(read);
            } catch (final org.rdmablock.verbs.VerbsException e) {
                throw new AssertionError("posting to a QP whose peer died must be accepted (and flushed)", e);
            }
            final List<Wc> done = Completions.await(remote.cq, 3, ConnectedPair.TIMEOUT);
            assertEquals(List.of(1L, 2L, 3L), done.stream().map(Wc::wrId).sorted().toList());
            assertTrue(done.stream().noneMatch(wc -> wc.status() == WcStatus.SUCCESS), done.toString());
            assertTrue(remote.id.awaitDisconnect(ConnectedPair.TIMEOUT));
            assertEquals(QueuePairState.ERR, remote.qp.state());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.rdmablock.verbs.conformance.Fixtures#providers")
    void pausedPeerProcessFailsWaitingWorkWithRetryExceeded(final ProviderFixture fixture) throws Exception {
        // a stopped process stops a soft peer's whole transport; a native device keeps answering from the kernel
        org.junit.jupiter.api.Assumptions.assumeTrue(fixture.name().equals("soft"), "the peer's transport must live in its process");
        try (Remote remote = new Remote(fixture, 44)) {
            remote.qp.modify(new org.rdmablock.verbs.QueuePairAttributes().timeout(15)); // 134 ms x (7 retries + 1)
            final MemoryRegion local = remote.host.register(4096, AccessFlags.LOCAL_WRITE);
            signal(remote.process, "STOP"); // no FIN, no RST: its kernel still acknowledges what we send
            try {
                // kill returns once the signal is sent; the peer's threads stop a moment later, and a READ posted in
                // between would be answered (one CI run of a loaded machine saw exactly that)
                awaitStopped(remote.process);
                final SendWorkRequest read = new SendWorkRequest().wrId(5).opcode(SendOpcode.RDMA_READ).flags(SendFlags.SIGNALED)
                    .remote(remote.address, remote.rkey);
                read.sgl().add(local, 0, 4096);
                final long posted = System.nanoTime();
                remote.qp.postSend(read);
                final Wc done = Completions.awaitOne(remote.cq);
                assertEquals(WcStatus.RETRY_EXC_ERR, done.status(), done.toString());
                assertTrue(System.nanoTime() - posted >= TimeUnit.MILLISECONDS.toNanos(1000), "not before the transport timeout");
                assertTrue(remote.id.awaitDisconnect(ConnectedPair.TIMEOUT), "the disconnect is raised");
                assertEquals(QueuePairState.ERR, remote.qp.state());
            } finally {
                signal(remote.process, "CONT");
            }
        }
    }

    /** Waits until every thread of {@code process} is stopped (state T in /proc), for 10 s at most. */
    private static void awaitStopped(final Process process) {
        final java.nio.file.Path tasks = java.nio.file.Path.of("/proc", Long.toString(process.pid()), "task");
        Await.atMost("every thread of the peer process stopped", java.time.Duration.ofSeconds(10)).until(() -> {
            try (java.util.stream.Stream<java.nio.file.Path> threads = java.nio.file.Files.list(tasks)) {
                boolean allStopped = true;
                for (final java.nio.file.Path task : threads.toList()) {
                    final String stat = java.nio.file.Files.readString(task.resolve("stat"));
                    // the state follows the command name, which is in parentheses and may hold spaces
                    final char state = stat.charAt(stat.lastIndexOf(')') + 2);
                    allStopped &= state == 'T' || state == 't';
                }
                return allStopped;
            } catch (final java.io.IOException e) {
                return false; // a thread ended while listed: look again
            }
        });
    }

    private static void signal(final Process process, final String signal) throws Exception {
        final Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).inheritIO().start();
        assertTrue(kill.waitFor(10, TimeUnit.SECONDS) && kill.exitValue() == 0, "kill -" + signal);
    }
}

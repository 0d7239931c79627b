package org.rdmablock.target.nvme;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rdmablock.protocol.nvme.NvmeFeature;
import org.rdmablock.protocol.nvme.NvmeGetLogPage;
import org.rdmablock.protocol.nvme.NvmeIdentify;
import org.rdmablock.protocol.nvme.NvmeNamespaceLists;
import org.rdmablock.protocol.nvme.NvmeOpcode;
import org.rdmablock.protocol.nvme.NvmeRegister;
import org.rdmablock.protocol.nvme.NvmeStatus;
import org.rdmablock.protocol.nvme.NvmeSubmission;
import org.rdmablock.protocol.nvme.NvmfConnectData;
import org.rdmablock.target.LogCapture;
import org.rdmablock.target.RunningConfiguration;
import org.rdmablock.target.TargetMain;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.rdmablock.target.Waiting.waitUpTo;

/**
 * The daemon with an {@code [nvme]} subsystem, as a user runs it: its banner gives the {@code nvme connect} line, a
 * host connects beside SRP, and a LUN added by SIGHUP reaches the host: the reload is applied (the subsystem did not
 * change), the host's outstanding Asynchronous Event Request completes with Namespace Attribute Changed, the Changed
 * Namespace List log page and the active namespace list show the new namespace.
 */
class NvmeDaemonTest {
    private static final String NQN = "nqn.2026-12.org.rdmablock:daemon-test";
    private static final String LUN0 = "[[lun]]\nnumber = 0\nbackend = \"memory\"\nsize = \"4MiB\"\n";
    private static final String LUN3 = "[[lun]]\nnumber = 3\nbackend = \"memory\"\nsize = \"8MiB\"\nblock_size = 4096\n";

    @Test
    void aLunAddedByReloadIsAnnouncedToTheConnectedHost(@TempDir final Path dir) throws Exception {
        final int srpPort = freePort();
        final int nvmePort = freePort();
        final String head = "[listen]\nport = %d\n[nvme]\nsubsystem = \"%s\"\nport = %d\n".formatted(srpPort, NQN, nvmePort);
        final Path config = dir.resolve("target.toml");
        Files.writeString(config, head + LUN0);
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final TargetMain main = new TargetMain(new PrintStream(out, true), new PrintStream(new ByteArrayOutputStream(), true));
        final LogCapture log = new LogCapture(TargetMain.class, RunningConfiguration.class, NvmeFrontEnd.class);
        final CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(() -> new CommandLine(main).execute("--config", config.toString()));
        try (log) {
            waitUpTo(Duration.ofSeconds(20), "the daemon's banner, or its end")
                    .until(() -> out.toString(StandardCharsets.UTF_8).contains("reach it") || exit.isDone());
            assertTrue(out.toString(StandardCharsets.UTF_8).contains("nvme connect -t rdma -a 127.0.0.1 -s " + nvmePort + " -n " + NQN),
                    out.toString(StandardCharsets.UTF_8));
            org.junit.jupiter.api.Assumptions.assumeFalse(log.lines().stream().anyMatch(l -> l.contains("SIGHUP is ignored")),
                    "SIGHUP is ignored in this test JVM (its parent ran under nohup)");
            try (TestNvmeHost admin = new TestNvmeHost(null, new InetSocketAddress("127.0.0.1", nvmePort), 0, 32, 1 << 20)) {
                assertEquals(NvmeStatus.SUCCESS, admin.connect(NQN, NvmfConnectData.CNTLID_DYNAMIC, 0).status());
                assertEquals(NvmeStatus.SUCCESS, admin.propertySet(NvmeRegister.CC, NvmeRegister.CC_ENABLE).status());
                assertEquals(NvmeStatus.SUCCESS, admin.admin(NvmeOpcode.SET_FEATURES, 0, NvmeFeature.ASYNC_EVENT_CONFIGURATION,
                        NvmeFeature.NAMESPACE_ATTRIBUTE_NOTICES, 0, 0).status());
                assertEquals(1, activeNamespaces(admin), "LUN 0: namespace 1");
                final int request = admin.entry(1, NvmeOpcode.ASYNC_EVENT).commandId();
                admin.send(1, NvmeSubmission.LENGTH); // held by the controller until an event comes

                Files.writeString(config, head + LUN0 + LUN3);
                new ProcessBuilder("kill", "-HUP", Long.toString(ProcessHandle.current().pid())).start().waitFor();
                assertTrue(log.await(l -> l.contains("LUN 3 added"), Duration.ofSeconds(10)).startsWith("INFO reload"),
                        "the reload is applied: [nvme] did not change");
                final TestNvmeHost.Completion event = admin.await();
                assertEquals(request, event.commandId(), "the Asynchronous Event Request completes");
                assertEquals(NvmeStatus.SUCCESS, event.status());
                assertEquals(NvmeFeature.EVENT_NAMESPACE_ATTRIBUTE_CHANGED, event.result(), "Namespace Attribute Changed");

                assertEquals(NvmeStatus.SUCCESS, admin.admin(NvmeOpcode.GET_LOG_PAGE, 0xFFFF_FFFFL,
                        NvmeGetLogPage.LOG_CHANGED_NAMESPACES | 1023L << 16, 0, 0, 4096).status());
                assertEquals(4, NvmeNamespaceLists.id(admin.buffer(), 0, 1), "the changed list holds namespace 4 (LUN 3)");
                assertEquals(2, activeNamespaces(admin), "LUN 3: namespace 4");
                assertEquals(4, NvmeNamespaceLists.id(admin.buffer(), 0, 1));
            }
        } finally {
            main.stop();
        }
        assertEquals(0, exit.get(20, TimeUnit.SECONDS));
    }

    private static int activeNamespaces(final TestNvmeHost admin) {
        assertEquals(NvmeStatus.SUCCESS, admin.admin(NvmeOpcode.IDENTIFY, 0, NvmeIdentify.CNS_ACTIVE_NAMESPACES, 0, 0, 4096).status());
        int n = 0;
        while (n < NvmeNamespaceLists.MAX_IDS && NvmeNamespaceLists.id(admin.buffer(), 0, n) != 0) {
            n++;
        }
        return n;
    }

    private static int freePort() throws Exception {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}

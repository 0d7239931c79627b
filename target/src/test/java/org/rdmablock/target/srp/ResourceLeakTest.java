package org.rdmablock.target.srp;

import org.junit.jupiter.api.Test;
import org.rdmablock.protocol.scsi.ScsiStatus;
import org.rdmablock.protocol.srp.SrpLoginRequest;
import org.rdmablock.verbs.VerbsProvider;

import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ForkJoinWorkerThread;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.rdmablock.target.Waiting.waitUpTo;

/**
 * Logs in and out many times, a few commands each time, and checks that the target gives everything back: its free
 * command slots, data chunks and channels return to where they started, and the JVM has no more threads than before.
 * The default is the issue's full count, 10 000 (29 s to 190 s on 2 shared cores, with the load);
 * {@code -Drdmablock.target.loginCycles=N} runs fewer, which shows a per-login leak as surely (one slot,
 * chunk or channel kept per login shows after the first).
 */
class ResourceLeakTest extends TargetTestBase {
    private static final int CYCLES = Integer.getInteger("rdmablock.target.loginCycles", 10_000);

    /** Logins before the counts are taken: the first makes the target's device resources and threads. */
    private static final int WARM_UP = 20;

    @Test
    void loginAndLogoutManyTimesGivesEverythingBack() throws InterruptedException {
        final byte[] data = pattern(4096, 11);
        try (VerbsProvider shared = VerbsProvider.load(TestInitiator.PROVIDER)) {
            for (int i = 0; i < WARM_UP; i++) {
                cycle(shared, i, data);
            }
            awaitTargetIdle(0);
            final Set<String> threadsBefore = threads();
            final long commandsBefore = target.commandsCompleted();
            final long start = System.nanoTime();
            for (int i = 0; i < CYCLES; i++) {
                cycle(shared, i, data);
            }
            final double seconds = (System.nanoTime() - start) / 1e9;
            awaitTargetIdle(0);
            System.out.printf("ResourceLeakTest: %d logins and logouts (4 commands each) in %.1f s, %.2f ms each; %s%n",
                    CYCLES, seconds, seconds * 1000 / CYCLES, target.resourceSnapshot());
            assertEquals(RING_SIZE, target.freeSlots());
            assertEquals(0, target.dataChunksInUse());
            assertEquals(0, target.channelCount());
            assertEquals(commandsBefore + 4L * CYCLES, target.commandsCompleted(), "every command was answered once");
            waitUpTo(SETTLE, "the JVM's threads back to as many as before").untilAsserted(() -> assertTrue(
                    threads().size() <= threadsBefore.size(), () -> "the JVM's threads do not grow: "
                    + threadsBefore.size() + " before, " + threads().size() + " after; new: " + newThreads(threadsBefore)));
        }
    }

    /**
     * The JVM's platform threads but the virtual-thread scheduler's carriers ({@link ForkJoinWorkerThread}: the soft
     * listener negotiates on virtual threads, and the JDK sizes and retires their carriers itself).
     */
    private static Set<String> threads() {
        final Set<String> names = new TreeSet<>();
        for (final Thread t : Thread.getAllStackTraces().keySet()) {
            if (!(t instanceof ForkJoinWorkerThread)) {
                names.add(t.getName() + " #" + t.threadId());
            }
        }
        return names;
    }

    private static Set<String> newThreads(final Set<String> before) {
        final Set<String> now = threads();
        now.removeAll(before);
        return now;
    }

    /** One login: WRITE by RDMA READ, WRITE with immediate data, READ of both, SRP_I_LOGOUT, the disconnect. */
    private void cycle(final VerbsProvider shared, final int i, final byte[] data) throws InterruptedException {
        final byte[] login = loginData(0x1000 + (i & 7), TestInitiator.IU_LENGTH,
                SrpLoginRequest.IMMEDIATE_DATA_REQUESTED | SrpLoginRequest.MULTICHANNEL_MULTI);
        try (TestInitiator ini = new TestInitiator(shared, target.localAddress(), login, 16384, 4)) {
            final long lba = (i % 1024) * 16L;
            fill(ini, 0, data);
            assertEquals(ScsiStatus.GOOD, ini.execute(LUN0, TestInitiator.write16(lba, 8), 4096, 0, 0, false).status());
            assertEquals(ScsiStatus.GOOD, ini.execute(LUN0, TestInitiator.write16(lba + 8, 8), 4096, 0, 0, true).status());
            assertEquals(ScsiStatus.GOOD, ini.execute(LUN0, TestInitiator.read16(lba, 16), 0, 8192, 8192, false).status());
            final byte[] twice = Arrays.copyOf(data, 8192);
            System.arraycopy(data, 0, twice, 4096, 4096);
            assertArrayEquals(twice, bytesAt(ini, 8192, 8192), "cycle " + i);
            assertEquals(ScsiStatus.GOOD, ini.execute(LUN0, Cdb.of(6, 0).bytes(), 0, 0, 0, false).status());
            ini.sendLogout(3);
            assertTrue(ini.id.awaitDisconnect(TestInitiator.TIMEOUT), "cycle " + i + ": the target disconnects after SRP_I_LOGOUT");
        }
    }
}

package org.rdmablock.protocol.scsi;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Several threads driving one unit, each with its own command context, over a backend completing on other threads. */
class LogicalUnitConcurrencyTest {
    @Test
    void parallelWritesAndReadsOnDisjointRanges() throws Exception {
        ExecutorService completions = Executors.newFixedThreadPool(2);
        ExecutorService submitters = Executors.newFixedThreadPool(4);
        try (InMemoryBackend backend = new InMemoryBackend(1 << 24, completions)) {
            LogicalUnit unit = new LogicalUnit(LunHarness.config(4096).build(), backend);
            AtomicInteger failures = new AtomicInteger();
            List<java.util.concurrent.Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int thread = t;
                futures.add(submitters.submit(() -> {
                    MemorySegment buffer = Arena.ofConfined().allocate(8192);
                    ScsiCommand cmd = new ScsiCommand();
                    for (int i = 0; i < 200; i++) {
                        long lba = thread * 1000L + i * 2L;
                        buffer.asSlice(0, 8192).fill((byte) (thread * 16 + (i & 15)));
                        if (run(unit, cmd, Cdbs.rw10(true, lba, 2, i % 3 == 0), buffer, 8192, 0) != ScsiStatus.GOOD) {
                            failures.incrementAndGet();
                        }
                        buffer.fill((byte) 0);
                        if (run(unit, cmd, Cdbs.rw10(false, lba, 2, false), buffer, 0, 8192) != ScsiStatus.GOOD
                                || buffer.get(ValueLayout.JAVA_BYTE, 8191) != (byte) (thread * 16 + (i & 15))) {
                            failures.incrementAndGet();
                        }
                    }
                }));
            }
            for (var f : futures) {
                f.get(60, TimeUnit.SECONDS);
            }
            assertEquals(0, failures.get());
            assertEquals(800, backend.writeCount());
            assertTrue(backend.forcedWriteCount() > 0);
        } finally {
            submitters.shutdownNow();
            completions.shutdownNow();
        }
    }

    private static int run(LogicalUnit unit, ScsiCommand cmd, byte[] cdb, MemorySegment buffer, int out, int in) {
        CountDownLatch done = new CountDownLatch(1);
        cmd.setCdb(cdb).setDataBuffer(buffer, 0, buffer.byteSize()).setExpectedLengths(out, in).setCompletion(c -> done.countDown());
        unit.execute(cmd);
        try {
            if (!done.await(10, TimeUnit.SECONDS)) {
                return -1;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
        return cmd.status();
    }
}

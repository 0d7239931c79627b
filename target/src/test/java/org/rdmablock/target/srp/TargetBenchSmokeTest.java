package org.rdmablock.target.srp;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rdmablock.target.backend.LunBackend;
import org.rdmablock.target.config.LunConfig;
import org.rdmablock.target.config.TargetConfig;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link TargetBench}'s pieces work: its initiator keeps 32 commands in flight on two channels against the target
 * (in-memory LUN) and against the raw responder, every command of each kind answered GOOD. Deep enough that the
 * soft provider's confirmation reads fill the read queues (what once terminated connections at queue depth 64).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TargetBenchSmokeTest {
    private static final long RUN_NANOS = TimeUnit.MILLISECONDS.toNanos(300);
    private static final long DEVICE_BYTES = 64L << 20;
    private static final BenchInitiator.Workload[] WORKLOADS = {
        new BenchInitiator.Workload("read", CommandIus.Kind.READ, 4096, false),
        new BenchInitiator.Workload("write", CommandIus.Kind.WRITE, 4096, false),
        new BenchInitiator.Workload("write imm", CommandIus.Kind.WRITE_IMMEDIATE, 4096, false),
        new BenchInitiator.Workload("seq read", CommandIus.Kind.READ, 1 << 20, true),
        new BenchInitiator.Workload("tur", CommandIus.Kind.TEST_UNIT_READY, 0, false),
    };

    @Test
    void theTargetAnswersEveryCommandOfTheBench() throws Exception {
        try (LunBackend memory = TargetBench.lun(LunConfig.BackendKind.MEMORY, DEVICE_BYTES);
             SrpTarget target = SrpTarget.start(TargetBench.config(64, 2, 1), initiator -> PipelineHarness.units(memory));
             BenchInitiator initiator = TargetBench.connect(target.localAddress(), 2, 32, DEVICE_BYTES)) {
            runAll(initiator);
        }
    }

    @Test
    void theRawResponderAnswersEveryCommandOfTheBench() {
        final TargetConfig config = TargetBench.config(64, 2, 1);
        try (RawResponder raw = new RawResponder(config.identity(), config.channel());
             BenchInitiator initiator = TargetBench.connect(raw.localAddress(), 2, 32, DEVICE_BYTES)) {
            runAll(initiator);
        }
    }

    private static void runAll(final BenchInitiator initiator) {
        for (final BenchInitiator.Workload workload : WORKLOADS) {
            final int queueDepth = workload.bytes() > 4096 ? 8 : 32;
            final BenchInitiator.Result result = initiator.run(workload, 2, queueDepth, RUN_NANOS);
            // on a busy machine a cold run may get no further than the first commands: their answers are the check
            assertTrue(result.commands() >= 2 * queueDepth, workload.name() + ": " + result);
            assertEquals(0, result.failed(), workload.name() + ": responses not GOOD");
        }
    }
}

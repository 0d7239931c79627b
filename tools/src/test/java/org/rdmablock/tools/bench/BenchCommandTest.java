package org.rdmablock.tools.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.rdmablock.protocol.scsi.BackendCallback;
import org.rdmablock.protocol.scsi.BackendStatus;
import org.rdmablock.protocol.scsi.BlockBackend;
import org.rdmablock.protocol.scsi.ForwardingBackend;
import org.rdmablock.protocol.scsi.InMemoryBackend;
import org.rdmablock.protocol.scsi.LogicalUnit;
import org.rdmablock.protocol.scsi.LogicalUnitConfig;
import org.rdmablock.protocol.scsi.LogicalUnitTable;
import org.rdmablock.target.config.ChannelConfig;
import org.rdmablock.target.config.IdentityConfig;
import org.rdmablock.target.config.ListenConfig;
import org.rdmablock.target.config.PipelineConfig;
import org.rdmablock.target.config.TargetConfig;
import org.rdmablock.target.config.TimeoutConfig;
import org.rdmablock.target.srp.SrpTarget;
import org.rdmablock.target.CommandLines;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code rdmablock bench} against our target in this process: a verified mixed run that measures and reports every
 * figure, a size-bound run that leaves exactly the pattern it claims on the LUN, a LUN that flips one byte on its way
 * out (verify must fail, exit 3, and name the byte), and the option errors.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BenchCommandTest {
    static final long ID = 0x0272_0000_0000_0B01L;
    static final String ID_HEX = Long.toHexString(ID);
    final List<AutoCloseable> open = new ArrayList<>();

    @TempDir
    Path dir;

    record Run(int exit, String out, String err) {
    }

    static Run bench(final String... args) {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final PrintStream outStream = new PrintStream(out, true, StandardCharsets.UTF_8);
        final PrintStream errStream = new PrintStream(err, true, StandardCharsets.UTF_8);
        final int exit = CommandLines.of(new BenchCommand(outStream, errStream), "rdmablock bench", outStream, errStream)
                .execute(args);
        return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @AfterEach
    void close() throws Exception {
        for (final AutoCloseable c : open) {
            c.close();
        }
    }

    /** Our target on 127.0.0.1, a free port, one LUN 0 of 512-byte blocks over {@code backend}. */
    int target(final BlockBackend backend) {
        final LogicalUnitTable units = new LogicalUnitTable();
        units.add(new LogicalUnit(0, LogicalUnitConfig.builder().serialNumber("bench-lun0").blockSize(512).build(), backend));
        final TargetConfig config = new TargetConfig("<bench test>", new ListenConfig("soft", "127.0.0.1", 0),
                new IdentityConfig(ID, ID), new ChannelConfig(128, 8276, 1 << 20, true, 8192, 16),
                new PipelineConfig((int) PipelineConfig.minimumCqSize(16, 128), 1024, 2,
                        PipelineConfig.ReceiveQueueMode.PER_CHANNEL, PipelineConfig.CompletionMode.POLL),
                new TimeoutConfig(Duration.ZERO, Duration.ofSeconds(30)), List.of());
        final SrpTarget target = SrpTarget.start(config, initiator -> units);
        open.add(target);
        return target.localAddress().getPort();
    }

    /** The same bench over NVMe over Fabrics: the embedded target's NVMe side, namespace 1 by default. */
    @Test
    void aVerifiedRunOverNvmeReachesNamespaceOne() throws Exception {
        final Path json = dir.resolve("bench-nvme.json");
        final Run run = bench("--embedded-target", "memory", "--embedded-size", "8m", "--nvme",
                "nqn.2026-12.org.rdmablock:bench-test", "--rw", "randrw", "--bs", "4k", "--iodepth", "4", "--channels", "2",
                "--threads", "2", "--runtime", "500ms", "--verify", "--no-progress", "--json", json.toString());
        assertEquals(0, run.exit(), run.out() + run.err());
        final JsonNode doc = new ObjectMapper().readTree(Files.readString(json));
        assertEquals("ok", doc.get("result").asText());
        assertEquals(1, doc.get("lun").asInt(), "namespace 1");
        assertTrue(doc.get("read").get("ios").asLong() > 0 && doc.get("write").get("ios").asLong() > 0, doc.toString());
        assertEquals(0, doc.get("verify").get("errors").asInt());
        final Run refused = bench("--embedded-target", "memory", "--embedded-size", "1m", "--host-nqn",
                "nqn.2026-12.example:h", "--no-progress");
        assertEquals(2, refused.exit(), refused.err());
        assertTrue(refused.err().contains("--host-nqn") && refused.err().contains("--nvme"), refused.err());
    }

    @Test
    void aVerifiedMixedRunMeasuresAndReportsEveryFigure() throws Exception {
        final Path json = dir.resolve("bench.json");
        final Run run = bench("--embedded-target", "memory", "--embedded-size", "16m", "--rw", "randrw", "--rwmix-read", "60",
                "--bs", "4k", "--iodepth", "8", "--threads", "2", "--channels", "2", "--runtime", "1s", "--ramp", "200ms",
                "--verify", "--json", json.toString());
        assertEquals(0, run.exit(), run.out() + run.err());
        assertTrue(run.out().contains("summary: rw=randrw bs=4096 iodepth=8 threads=2"), run.out());
        assertTrue(run.err().contains(" IOPS "), "a progress line each second: " + run.err());

        final JsonNode doc = new ObjectMapper().readTree(Files.readString(json));
        assertEquals("ok", doc.get("result").asText());
        assertEquals("randrw", doc.get("rw").asText());
        assertEquals(2, doc.get("channels").asInt());
        assertEquals(1.0, doc.get("seconds").asDouble(), 1e-9, "time mode measures exactly --runtime");
        final long reads = doc.get("read").get("ios").asLong();
        final long writes = doc.get("write").get("ios").asLong();
        assertTrue(reads > 0 && writes > 0, doc.toString());
        assertEquals(reads + writes, doc.get("ios").asLong());
        assertEquals(4096L * (reads + writes), doc.get("bytes").asLong(), "every 4 KiB I/O moved 4 KiB");
        assertTrue(doc.get("iops").asDouble() > 0);
        assertEquals(doc.get("ios").asLong() / doc.get("seconds").asDouble(), doc.get("iops").asDouble(), 1.0);
        final JsonNode lat = doc.get("lat_ns");
        assertTrue(lat.get("min").asLong() > 0 && lat.get("p50").asLong() >= lat.get("min").asLong()
                && lat.get("p99").asLong() >= lat.get("p50").asLong() && lat.get("p99_9").asLong() >= lat.get("p99").asLong()
                && lat.get("max").asLong() >= lat.get("p99_9").asLong(), lat.toString());
        // ramp and drain are requests too, so more requests than counted I/Os; one command each (4 KiB < max transfer),
        // but for those that rode in a neighbour's (merging: random requests are now and then adjacent)
        assertTrue(doc.get("requests").asLong() >= reads + writes, doc.toString());
        assertEquals(doc.get("requests").asLong(), doc.get("commands").asLong() + doc.get("merged").asLong());
        // nothing per I/O on the bench threads: what they allocate (once: class set-up, first calls) is less than
        // one 16-byte object per request
        final long allocated = doc.get("bench_thread_bytes_allocated").asLong();
        assertTrue(allocated >= 0 && allocated < 16 * doc.get("requests").asLong(), "allocated " + allocated + " bytes for "
                + doc.get("requests").asLong() + " requests");
        final JsonNode verify = doc.get("verify");
        assertTrue(verify.get("enabled").asBoolean());
        assertEquals(0, verify.get("errors").asInt());
        // the pre-fill and read-back cover the 16 MiB (32768 blocks of 512) and the reads of the window add more
        assertTrue(verify.get("blocks_checked").asLong() > 32768, verify.toString());
    }

    /**
     * Size mode moves the region once, and the LUN then holds the pattern of generation 1 there and nothing past it.
     * Also with {@code --channel-wait caller}: no channel thread, the two bench threads racing to drive the channel.
     */
    @ParameterizedTest
    @ValueSource(strings = {"yield", "caller"})
    void aSizeBoundRunWritesThePatternOnceOverTheRegion(final String channelWait) throws Exception {
        final InMemoryBackend lun = new InMemoryBackend(8 << 20);
        open.add(lun);
        final int port = target(lun);
        final Path json = dir.resolve("size.json");
        final Run run = bench("--target", "127.0.0.1:" + port, "--id-ext", ID_HEX, "--ioc-guid", "0x" + ID_HEX,
                "--rw", "write", "--bs", "64k", "--size", "2m", "--threads", "2", "--iodepth", "4", "--verify",
                "--channel-wait", channelWait, "--no-progress", "--json", json.toString());
        assertEquals(0, run.exit(), run.out() + run.err());
        final JsonNode doc = new ObjectMapper().readTree(Files.readString(json));
        assertEquals(32, doc.get("ios").asLong(), "2 MiB in 64 KiB I/Os, once");
        assertEquals(2L << 20, doc.get("bytes").asLong());
        assertEquals(32, doc.get("write").get("ios").asLong());
        assertEquals(0, doc.get("read").get("ios").asLong());
        assertEquals(4096, doc.get("verify").get("blocks_checked").asLong(), "the read-back checked every block written");
        final MemorySegment stored = lun.storage();
        for (final long lba : new long[] {0, 1, 127, 2047, 2048, 4095}) {
            assertEquals(-1, VerifyPattern.firstMismatch(stored, lba * 512, lba, 1, 512, 1), "LBA " + lba);
        }
        assertEquals(0L, stored.get(ValueLayout.JAVA_LONG, 4096L * 512), "nothing written past --size");
    }

    /**
     * Every read of LBA 300 comes back with byte 100 flipped: verify names it, in the read-back after writes and in
     * the reads themselves (size mode: one pass over the 1 MiB, so every block is read).
     */
    @ParameterizedTest
    @ValueSource(strings = {"write", "read"})
    void verifyFindsAByteTheLunFlipsOnRead(final String rw) throws Exception {
        final FlippingBackend lun = new FlippingBackend(new InMemoryBackend(4 << 20), 300 * 512 + 100);
        open.add(lun.inner);
        final int port = target(lun);
        final Path json = dir.resolve(rw + ".json");
        final List<String> args = new ArrayList<>(List.of("--target", "127.0.0.1:" + port, "--id-ext", ID_HEX, "--rw", rw,
                "--bs", "4k", "--size", "1m", "--iodepth", "4", "--verify", "--no-progress", "--json", json.toString()));
        final Run run = bench(args.toArray(String[]::new));
        assertEquals(BenchResult.EXIT_VERIFY_FAILED, run.exit(), run.out() + run.err());
        assertTrue(lun.flips > 0, "the LUN flipped a byte");
        assertTrue(run.out().contains("verify failed: LUN 0, LBA 300, byte 100 of the block"), run.out());
        assertTrue(run.out().contains("header says LBA 300, generation 1"), "the rest of the block is right: " + run.out());
        final JsonNode doc = new ObjectMapper().readTree(Files.readString(json));
        assertEquals("verify failed", doc.get("result").asText());
        assertEquals(1, doc.get("verify").get("errors").asInt());
        assertTrue(doc.get("error").asText().contains("LBA 300"), doc.toString());
    }

    @Test
    void optionsTheRunCannotGoWithAreRefusedWithStatus2() {
        assertEquals(2, bench("--rw", "randomread", "--embedded-target", "memory").exit());
        assertEquals(2, bench("--bs", "4q", "--embedded-target", "memory").exit());
        final Run odd = bench("--bs", "1000", "--embedded-target", "memory", "--embedded-size", "1m", "--no-progress");
        assertEquals(2, odd.exit());
        assertTrue(odd.err().contains("not a multiple of LUN 0's block size, 512"), odd.err());
        final Run large = bench("--size", "2m", "--embedded-target", "memory", "--embedded-size", "1m", "--no-progress");
        assertEquals(2, large.exit());
        assertTrue(large.err().contains("larger than LUN 0"), large.err());
    }

    @Test
    void aTargetThatIsNotThereFailsWithStatus1() {
        final Run run = bench("--target", "127.0.0.1:1", "--runtime", "1s", "--no-progress");
        assertEquals(1, run.exit(), run.err());
        assertEquals("rdmablock bench: connection refused: no target listens at 127.0.0.1:1 (soft provider): is the target"
                + " running, on that address and port?", run.err().strip(), "one line, saying what and where");
    }

    @Test
    void aLunTheTargetLacksIsOneLineAndStatus1() {
        final Run run = bench("--embedded-target", "memory", "--embedded-size", "1m", "--lun", "5", "--runtime", "1s",
                "--no-progress");
        assertEquals(1, run.exit(), run.err());
        assertTrue(run.err().startsWith("rdmablock bench: the target reports no LUN 5 to this initiator"), run.err());
        assertEquals(1, run.err().strip().lines().count(), "one line, no stack trace: " + run.err());
    }

    /** A LUN that flips one byte of the device on every read that covers it (the stored data stays right). */
    static final class FlippingBackend extends ForwardingBackend {
        final InMemoryBackend inner;
        final long flipAt;
        volatile int flips;

        FlippingBackend(final InMemoryBackend inner, final long flipAt) {
            super(inner);
            this.inner = inner;
            this.flipAt = flipAt;
        }

        @Override
        public void read(final long deviceOffset, final MemorySegment buffer, final long bufferOffset, final int length,
                         final BackendCallback callback) {
            MemorySegment.copy(inner.storage(), deviceOffset, buffer, bufferOffset, length);
            if (flipAt >= deviceOffset && flipAt < deviceOffset + length) {
                final long at = bufferOffset + flipAt - deviceOffset;
                buffer.set(ValueLayout.JAVA_BYTE, at, (byte) (buffer.get(ValueLayout.JAVA_BYTE, at) ^ 0x10));
                flips++;
            }
            callback.completed(BackendStatus.OK);
        }
    }
}

package org.rdmablock.tools.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The bench's JSON document ({@code --json}) for a result made here, no run: its text, field by field as scripts read
 * it, a failure message with quotes and control characters, and the figures that are not numbers (no time measured).
 */
class BenchResultTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final BenchResult.Setup EMBEDDED = new BenchResult.Setup("127.0.0.1:5555", "soft", 2, "memory");

    /** randrw 70 % reads, 4 KiB, 1.5 s measured: four reads and one write, with these latencies. */
    private static BenchResult result(final double seconds, final String failure, final boolean verifyFailed) {
        final Workload workload = new Workload(Workload.Mode.RANDRW, 70, 4096, 16, 2, 8L << 20, 1_500_000_000L, 0,
                250_000_000L, true);
        final Histogram reads = new Histogram(1, BenchWorker.HIGHEST_LATENCY_NANOS, 3);
        for (final long nanos : new long[] {12_345, 23_456, 34_567, 1_234_567}) {
            reads.recordValue(nanos);
        }
        final Histogram writes = new Histogram(1, BenchWorker.HIGHEST_LATENCY_NANOS, 3);
        writes.recordValue(45_678);
        return new BenchResult(workload, 3, 512, seconds, new BenchResult.OpFigures(4, 16384, reads),
                new BenchResult.OpFigures(1, 4096, writes), 5, 7, 2, 123, 77, failure, verifyFailed, 2.0 / 3);
    }

    /** Names, order, nesting, two-space indents, rates to 7 significant digits written plain. */
    @Test
    void theDocumentReadsAsScriptsExpectIt() {
        assertEquals("""
            {
              "tool": "rdmablock bench",
              "target": "127.0.0.1:5555",
              "provider": "soft",
              "embedded_target": "memory",
              "lun": 3,
              "block_size": 512,
              "rw": "randrw",
              "rwmix_read": 70,
              "bs": 4096,
              "iodepth": 16,
              "threads": 2,
              "channels": 2,
              "region_bytes": 8388608,
              "runtime_s": 1.5,
              "size_bytes": 0,
              "ramp_s": 0.25,
              "seconds": 1.5,
              "wall_seconds": 0.6666667,
              "ios": 5,
              "bytes": 20480,
              "iops": 3.333333,
              "mb_s": 0.01365333,
              "lat_ns": {
                "min": 12344,
                "mean": 270100,
                "p50": 34591,
                "p90": 1234943,
                "p99": 1234943,
                "p99_9": 1234943,
                "max": 1234943
              },
              "read": {
                "ios": 4,
                "bytes": 16384,
                "iops": 2.666667,
                "mb_s": 0.01092267,
                "lat_ns": {
                  "min": 12344,
                  "mean": 326205,
                  "p50": 23471,
                  "p90": 1234943,
                  "p99": 1234943,
                  "p99_9": 1234943,
                  "max": 1234943
                }
              },
              "write": {
                "ios": 1,
                "bytes": 4096,
                "iops": 0.6666667,
                "mb_s": 0.002730667,
                "lat_ns": {
                  "min": 45664,
                  "mean": 45680,
                  "p50": 45695,
                  "p90": 45695,
                  "p99": 45695,
                  "p99_9": 45695,
                  "max": 45695
                }
              },
              "commands": 5,
              "requests": 7,
              "merged": 2,
              "bench_thread_bytes_allocated": 123,
              "verify": {
                "enabled": true,
                "blocks_checked": 77,
                "errors": 0
              },
              "result": "ok",
              "error": null
            }""", result(1.5, null, false).json(EMBEDDED));
    }

    @Test
    void everyFieldReadsBack() throws Exception {
        final JsonNode doc = JSON.readTree(result(1.5, null, false).json(EMBEDDED));
        assertEquals(List.of("tool", "target", "provider", "embedded_target", "lun", "block_size", "rw", "rwmix_read", "bs",
                "iodepth", "threads", "channels", "region_bytes", "runtime_s", "size_bytes", "ramp_s", "seconds",
                "wall_seconds", "ios", "bytes", "iops", "mb_s", "lat_ns", "read", "write", "commands", "requests", "merged",
                "bench_thread_bytes_allocated", "verify", "result", "error"), names(doc));
        assertEquals("rdmablock bench", doc.get("tool").asText());
        assertEquals("memory", doc.get("embedded_target").asText());
        assertEquals("randrw", doc.get("rw").asText());
        assertEquals(70, doc.get("rwmix_read").asInt());
        assertEquals(8L << 20, doc.get("region_bytes").asLong());
        assertEquals(0, doc.get("size_bytes").asLong(), "time mode");
        assertEquals(1.5, doc.get("seconds").asDouble());
        assertEquals(5, doc.get("ios").asLong());
        assertEquals(20480, doc.get("bytes").asLong());
        assertEquals(5 / 1.5, doc.get("iops").asDouble(), 1e-6);
        assertEquals(List.of("ios", "bytes", "iops", "mb_s", "lat_ns"), names(doc.get("read")));
        assertEquals(4, doc.get("read").get("ios").asLong());
        assertEquals(1, doc.get("write").get("ios").asLong());
        final JsonNode lat = doc.get("write").get("lat_ns");
        assertEquals(List.of("min", "mean", "p50", "p90", "p99", "p99_9", "max"), names(lat));
        assertTrue(lat.get("p50").isIntegralNumber() && Math.abs(lat.get("p50").asLong() - 45_678) < 50, lat.toString());
        assertEquals(1_234_567, doc.get("lat_ns").get("max").asLong(), 2_000, "the slowest read");
        assertEquals(List.of("enabled", "blocks_checked", "errors"), names(doc.get("verify")));
        assertEquals(77, doc.get("verify").get("blocks_checked").asLong());
        assertEquals("ok", doc.get("result").asText());
        assertTrue(doc.get("error").isNull());
    }

    @Test
    void aFailureMessageReadsBackAsItWas() throws Exception {
        final String failure = "LBA 300: \"quoted\" \\ back\nslash\tand \u0001 \u00e9";
        final JsonNode doc = JSON.readTree(result(1.5, failure, true).json(new BenchResult.Setup("a\"b", "soft", 1, null)));
        assertEquals(failure, doc.get("error").asText());
        assertEquals("verify failed", doc.get("result").asText());
        assertEquals(1, doc.get("verify").get("errors").asInt());
        assertEquals("a\"b", doc.get("target").asText());
        assertTrue(doc.get("embedded_target").isNull());
    }

    /** No time measured: the rates are not numbers, and JSON has none, so they are null. */
    @Test
    void ratesOfNoTimeAreNull() throws Exception {
        final JsonNode doc = JSON.readTree(result(0, null, false).json(EMBEDDED));
        assertTrue(doc.get("iops").isNull() && doc.get("mb_s").isNull(), doc.toString());
        assertTrue(doc.get("read").get("iops").isNull() && doc.get("write").get("mb_s").isNull(), doc.toString());
        assertEquals(0, doc.get("seconds").asDouble());
        assertTrue(doc.get("wall_seconds").isNumber(), doc.toString());
    }

    private static List<String> names(final JsonNode object) {
        return object.propertyStream().map(Map.Entry::getKey).toList();
    }
}

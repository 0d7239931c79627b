package org.rdmablock.target.srp;

import org.junit.jupiter.api.Test;
import org.rdmablock.protocol.scsi.ScsiStatus;
import org.rdmablock.target.metrics.PrometheusEndpoint;
import org.rdmablock.target.metrics.SummaryLine;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.rdmablock.target.Waiting.waitUpTo;

/**
 * The Prometheus endpoint, scraped over HTTP after known I/O: 10 READs of 4 KiB from LUN 0, 3 WRITEs of 8 KiB to
 * LUN 1 and one command to a LUN the target does not serve. Every count, byte total, histogram count, the session
 * and target gauges are exact; the session's series go when it logs out. The summary line says the same.
 */
class MetricsEndpointTest extends TargetTestBase {
    private static final long INITIATOR = 0x30;
    private static final String SESSION = "initiator=\"" + "0000000000000030" + "0000000000000001" + "\"";
    private static final int READS = 10;
    private static final int READ_BYTES = 4096;
    private static final int WRITES = 3;
    private static final int WRITE_BYTES = 8192;

    @Test
    void aScrapeCountsExactlyWhatWasDone() throws Exception {
        final SummaryLine summary = new SummaryLine(statistics);
        try (PrometheusEndpoint endpoint = PrometheusEndpoint.start("127.0.0.1", 0, statistics)) {
            final TestInitiator ini = login(INITIATOR);
            for (int i = 0; i < READS; i++) {
                final TestInitiator.Response r = ini.execute(LUN0, TestInitiator.read16(i * 8L, 8), 0, READ_BYTES, 0, false);
                assertEquals(ScsiStatus.GOOD, r.status(), "READ " + i);
            }
            for (int i = 0; i < WRITES; i++) {
                fill(ini, 0, pattern(WRITE_BYTES, i));
                final TestInitiator.Response w = ini.execute(LUN1, TestInitiator.write16(i * 2L, 2), WRITE_BYTES, 0, 0, false);
                assertEquals(ScsiStatus.GOOD, w.status(), "WRITE " + i);
            }
            assertEquals(ScsiStatus.CHECK_CONDITION,
                    ini.execute(ABSENT_LUN, TestInitiator.read16(0, 1), 0, 512, 0, false).status(), "a LUN not served");
            awaitTargetIdle(1);
            waitUpTo(SETTLE, "every command has left the target's hands")
                    .until(() -> statistics.sessions().getFirst().io.snapshot().queueDepth(), depth -> depth == 0);

            final Map<String, Double> m = scrape(endpoint);
            assertEquals(READS, m.get("rdmablock_lun_read_commands_total{lun=\"0\"}"));
            assertEquals(READS * READ_BYTES, m.get("rdmablock_lun_read_bytes_total{lun=\"0\"}"));
            assertEquals(0, m.get("rdmablock_lun_write_commands_total{lun=\"0\"}"));
            assertEquals(WRITES, m.get("rdmablock_lun_write_commands_total{lun=\"1\"}"));
            assertEquals(WRITES * WRITE_BYTES, m.get("rdmablock_lun_write_bytes_total{lun=\"1\"}"));
            assertEquals(0, m.get("rdmablock_lun_read_bytes_total{lun=\"1\"}"));
            assertEquals(0, m.get("rdmablock_lun_errors_total{lun=\"0\"}"));
            assertEquals(0, m.get("rdmablock_lun_queue_depth{lun=\"0\"}"));
            assertEquals(READS, m.get("rdmablock_lun_read_latency_seconds_count{lun=\"0\"}"));
            assertEquals(READS, m.get("rdmablock_lun_read_latency_seconds_bucket{lun=\"0\",le=\"+Inf\"}"));
            assertTrue(m.get("rdmablock_lun_read_latency_seconds_sum{lun=\"0\"}") > 0);
            assertEquals(WRITES, m.get("rdmablock_lun_write_latency_seconds_count{lun=\"1\"}"));
            assertEquals(0, m.get("rdmablock_lun_write_latency_seconds_count{lun=\"0\"}"));
            assertFalse(m.containsKey("rdmablock_lun_read_commands_total{lun=\"5\"}"), "no series for a LUN not served");

            // the session's: the READ of the LUN not served too, a READ that failed (no bytes)
            assertEquals(READS + 1, m.get("rdmablock_session_read_commands_total{" + SESSION + "}"));
            assertEquals(WRITES, m.get("rdmablock_session_write_commands_total{" + SESSION + "}"));
            assertEquals(0, m.get("rdmablock_session_other_commands_total{" + SESSION + "}"));
            assertEquals(READS * READ_BYTES, m.get("rdmablock_session_read_bytes_total{" + SESSION + "}"));
            assertEquals(WRITES * WRITE_BYTES, m.get("rdmablock_session_write_bytes_total{" + SESSION + "}"));
            assertEquals(1, m.get("rdmablock_session_errors_total{" + SESSION + "}"));
            assertEquals(READS + 1, m.get("rdmablock_session_read_latency_seconds_count{" + SESSION + "}"));
            assertEquals(WRITES, m.get("rdmablock_session_write_latency_seconds_count{" + SESSION + "}"));
            assertEquals(1, m.get("rdmablock_session_channels{" + SESSION + "}"));
            assertEquals(0, m.get("rdmablock_session_busy_total{" + SESSION + "}"));
            assertEquals(1, m.get("rdmablock_target_sessions"));
            assertEquals(1, m.get("rdmablock_target_channels"));
            assertEquals(1, m.get("rdmablock_target_logins_total{result=\"accepted\"}"));
            assertEquals(0, m.get("rdmablock_target_logins_total{result=\"rejected\"}"));
            assertEquals(1, m.get("rdmablock_target_errors_total"));
            assertEquals(0, m.get("rdmablock_target_lost_channels_total"));

            final String line = summary.next();
            assertTrue(line.contains(" IOPS (" + (READS + WRITES) + " commands: " + READS + " read, " + WRITES
                    + " write, 0 other)"), line);
            assertTrue(line.contains("1 sessions, 1 channels, queue depth 0; 1 errors, 0 BUSY"), line);
            assertTrue(summary.next().contains("(0 commands: 0 read, 0 write, 0 other)"), "the next line counts from here");

            ini.sendLogout(99);
            awaitTargetIdle(0);
            final Map<String, Double> after = scrape(endpoint);
            assertEquals(0, after.get("rdmablock_target_sessions"));
            assertFalse(after.keySet().stream().anyMatch(k -> k.contains(SESSION)), "a session's series go with it");
            assertEquals(READS, after.get("rdmablock_lun_read_commands_total{lun=\"0\"}"), "a LUN's stay");
        }
    }

    /**
     * Credit stalls and queue depth: with LUN 0's completions held, the initiator sends as many READs as it has credits
     * (all in the target's hands; the last takes the last credit: exhausted, once) and one more, beyond them (answered
     * BUSY).
     */
    @Test
    void creditStallsAreCountedWhereTheyHappen() throws Exception {
        try (PrometheusEndpoint endpoint = PrometheusEndpoint.start("127.0.0.1", 0, statistics)) {
            final TestInitiator ini = login(INITIATOR);
            lun0Gate.hold();
            for (int tag = 0; tag < CREDITS; tag++) {
                ini.submit(tag, LUN0, TestInitiator.read16(tag, 1), 0, 512, tag * 512L, false);
            }
            waitUpTo(SETTLE, "every READ reached the backend").until(lun0Gate::heldCount, held -> held == CREDITS);
            final Map<String, Double> full = scrape(endpoint);
            assertEquals(1, full.get("rdmablock_session_credits_exhausted_total{" + SESSION + "}"), "the last credit taken");
            assertEquals(0, full.get("rdmablock_session_busy_total{" + SESSION + "}"));
            assertEquals(CREDITS, full.get("rdmablock_session_queue_depth{" + SESSION + "}"));
            assertEquals(CREDITS, full.get("rdmablock_lun_queue_depth{lun=\"0\"}"));
            ini.submit(CREDITS, LUN0, TestInitiator.read16(0, 1), 0, 512, 0, false);
            final TestInitiator.Response busy = ini.awaitResponse();
            assertEquals(ScsiStatus.BUSY, busy.status(), "the command beyond the credits");
            lun0Gate.release();
            ini.awaitResponses(CREDITS);
            awaitTargetIdle(1);
            final Map<String, Double> m = scrape(endpoint);
            assertEquals(1, m.get("rdmablock_session_credits_exhausted_total{" + SESSION + "}"));
            assertEquals(1, m.get("rdmablock_session_busy_total{" + SESSION + "}"));
            assertEquals(1, m.get("rdmablock_target_credits_exhausted_total"));
            assertEquals(1, m.get("rdmablock_target_busy_total"));
            assertEquals(1, m.get("rdmablock_session_errors_total{" + SESSION + "}"), "BUSY is not GOOD");
            assertEquals(CREDITS + 1, m.get("rdmablock_session_read_commands_total{" + SESSION + "}"));
        }
    }

    /** GET /metrics: each sample line's name and labels to its value. */
    static Map<String, Double> scrape(final PrometheusEndpoint endpoint) throws Exception {
        try (HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()) {
            final HttpResponse<String> response = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                    + endpoint.address().getPort() + "/metrics")).timeout(Duration.ofSeconds(10)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, response.statusCode(), response.body());
            assertTrue(response.headers().firstValue("Content-Type").orElse("").startsWith("text/plain"),
                    "the text format: " + response.headers());
            return parse(response.body());
        }
    }

    /** The sample lines of a text-format exposition (comments skipped): "name{labels}" to value. */
    static Map<String, Double> parse(final String text) {
        final Map<String, Double> samples = new LinkedHashMap<>();
        for (final String line : text.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            final int space = line.lastIndexOf(' ');
            assertNotEquals(-1, space, line);
            samples.put(line.substring(0, space), Double.parseDouble(line.substring(space + 1)));
        }
        return samples;
    }
}

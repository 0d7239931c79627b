package org.rdmablock.target.metrics;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.rdmablock.target.config.InitiatorPortId;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * deploy/grafana/rdmablock-dashboard.json asks only for what the target exports: every metric name in its queries (and
 * in its LUN variable's) is a sample name of a scrape of the Prometheus endpoint, with a LUN and a session present.
 */
class GrafanaDashboardTest {
    /** Surefire runs in the module directory (target/); the dashboard is in the repository's deploy/. */
    static final Path DASHBOARD = Path.of(System.getProperty("basedir", ".")).resolve("../deploy/grafana/rdmablock-dashboard.json")
            .normalize();
    private static final Pattern METRIC = Pattern.compile("\\brdmablock_[a-z_]+");

    @Test
    void everyQueryNamesAMetricTheTargetExports() throws Exception {
        final TargetStatistics statistics = new TargetStatistics();
        statistics.lunsServed(List.of(0));
        statistics.channelJoined(new InitiatorPortId(1, 2));
        final Set<String> exported;
        try (PrometheusEndpoint endpoint = PrometheusEndpoint.start("127.0.0.1", 0, statistics);
             HttpClient client = HttpClient.newHttpClient()) {
            final String scrape = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                    + endpoint.address().getPort() + "/metrics")).build(), HttpResponse.BodyHandlers.ofString()).body();
            exported = scrape.lines().filter(l -> l.startsWith("rdmablock_"))
                    .map(l -> l.split("[{ ]", 2)[0]).collect(Collectors.toCollection(TreeSet::new));
        }
        final Set<String> asked = new TreeSet<>();
        collect(new ObjectMapper().readTree(Files.readString(DASHBOARD)), asked);
        assertTrue(asked.size() >= 20, "the dashboard asks for " + asked);
        final Set<String> missing = new TreeSet<>(asked);
        missing.removeAll(exported);
        assertEquals(Set.of(), missing, "queried but not exported (exported: " + exported + ")");
    }

    /** Every metric name in every text value of {@code node}. */
    private static void collect(final JsonNode node, final Set<String> names) {
        if (node.isTextual()) {
            final Matcher m = METRIC.matcher(node.asText());
            while (m.find()) {
                names.add(m.group());
            }
        }
        node.forEach(child -> collect(child, names));
    }
}

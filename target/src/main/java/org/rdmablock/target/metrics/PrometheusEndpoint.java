package org.rdmablock.target.metrics;

import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.Unit;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;

/**
 * The target's metrics over HTTP in the Prometheus text format ({@code GET /metrics}), through the Prometheus Java
 * client's HTTP server. Nothing of the client is on the path of a command: at each scrape a {@link MultiCollector}
 * reads {@link TargetStatistics} and builds the snapshots.
 *
 * <pre>
 *  rdmablock_lun_{read,write,other}_commands_total{lun}       commands answered
 *  rdmablock_lun_{read,write}_bytes_total{lun}                bytes moved by commands answered GOOD
 *  rdmablock_lun_errors_total{lun}                            commands answered with another status
 *  rdmablock_lun_queue_depth{lun}                             commands in the target's hands now
 *  rdmablock_lun_{read,write}_latency_seconds{lun}            histogram, arrival to response sent
 *  rdmablock_session_... {initiator}                          the same per session, and:
 *  rdmablock_session_channels, _credits_exhausted_total, _busy_total
 *  rdmablock_target_sessions, _channels, _logins_total{result}, _lost_channels_total, _task_management_total,
 *  rdmablock_target_waited_ius_total, _waiting_ius, _command_timeouts_total, _errors_total, _busy_total,
 *  rdmablock_target_credits_exhausted_total, _blocking_calls_total
 * </pre>
 */
public final class PrometheusEndpoint implements AutoCloseable {
    private final HTTPServer server;
    private final InetSocketAddress address;

    private PrometheusEndpoint(final HTTPServer server, final String host) {
        this.server = server;
        this.address = new InetSocketAddress(host, server.getPort());
    }

    /** Serves {@code statistics} on {@code host}:{@code port} (0: any free port). */
    public static PrometheusEndpoint start(final String host, final int port, final TargetStatistics statistics)
            throws IOException {
        final PrometheusRegistry registry = new PrometheusRegistry();
        registry.register(new Collector(statistics));
        return new PrometheusEndpoint(HTTPServer.builder().hostname(host).port(port).registry(registry).buildAndStart(), host);
    }

    /** Where it listens (with the real port when 0 was asked for). */
    public InetSocketAddress address() {
        return address;
    }

    @Override
    public void close() {
        server.close();
    }

    /** One labelled data point of an I/O family: a LUN's or a session's snapshot. */
    private record Point(Labels labels, IoSnapshot io) {
    }

    /** Builds every family from the statistics at scrape time. */
    private static final class Collector implements MultiCollector {
        private final TargetStatistics statistics;

        Collector(final TargetStatistics statistics) {
            this.statistics = statistics;
        }

        @Override
        public MetricSnapshots collect() {
            final List<Point> luns = new ArrayList<>();
            statistics.luns().forEach((number, stats) -> luns.add(new Point(Labels.of("lun", number.toString()), stats.snapshot())));
            final List<SessionStats> sessions = statistics.sessions();
            final List<Point> sessionPoints = new ArrayList<>();
            sessions.forEach(s -> sessionPoints.add(new Point(initiator(s), s.io.snapshot())));
            final MetricSnapshots.Builder out = MetricSnapshots.builder();
            io(out, "rdmablock_lun", "LUN", luns);
            io(out, "rdmablock_session", "session (initiator port)", sessionPoints);
            out.metricSnapshot(gauge("rdmablock_session_channels", "Channels the session has logged in",
                    sessions, PrometheusEndpoint::initiator, SessionStats::channels));
            out.metricSnapshot(counter("rdmablock_session_credits_exhausted",
                    "Commands that took their channel's last credit: the initiator could send no more until a response",
                    null, sessions, PrometheusEndpoint::initiator, SessionStats::creditsExhaustedCount));
            out.metricSnapshot(counter("rdmablock_session_busy",
                    "Commands that came beyond their channel's credits and were answered BUSY", null, sessions,
                    PrometheusEndpoint::initiator, SessionStats::busyCount));
            target(out);
            return out.build();
        }

        private void target(final MetricSnapshots.Builder out) {
            final TargetStatistics t = statistics;
            out.metricSnapshot(single(GaugeSnapshot.builder(), "rdmablock_target_sessions",
                    "Sessions (initiator ports with a channel) logged in now", t.sessions().size()));
            out.metricSnapshot(single(GaugeSnapshot.builder(), "rdmablock_target_channels", "Channels logged in now",
                    t.channels()));
            out.metricSnapshot(CounterSnapshot.builder().name("rdmablock_target_logins").help("Logins, by result")
                    .dataPoint(counterPoint(Labels.of("result", "accepted"), t.loginsAccepted()))
                    .dataPoint(counterPoint(Labels.of("result", "rejected"), t.loginsRejected())).build());
            for (final TargetStatistics.Count count : TargetStatistics.Count.values()) {
                out.metricSnapshot(count.counter
                        ? single(CounterSnapshot.builder(), count.metric, count.help, t.count(count))
                        : single(GaugeSnapshot.builder(), count.metric, count.help, t.count(count)));
            }
        }
    }

    private static Labels initiator(final SessionStats session) {
        return Labels.of("initiator", session.initiator.toString());
    }

    /** The I/O families of LUNs or sessions, named {@code prefix_...}. */
    private static void io(final MetricSnapshots.Builder out, final String prefix, final String per, final List<Point> points) {
        out.metricSnapshot(counter(prefix + "_read_commands", "READ commands answered, per " + per, null, points,
                Point::labels, p -> p.io().readCommands()));
        out.metricSnapshot(counter(prefix + "_write_commands", "WRITE commands answered, per " + per, null, points,
                Point::labels, p -> p.io().writeCommands()));
        out.metricSnapshot(counter(prefix + "_other_commands", "Other commands answered (not READ or WRITE), per " + per,
                null, points, Point::labels, p -> p.io().otherCommands()));
        out.metricSnapshot(counter(prefix + "_read_bytes", "Bytes read by commands answered GOOD, per " + per, Unit.BYTES,
                points, Point::labels, p -> p.io().readBytes()));
        out.metricSnapshot(counter(prefix + "_write_bytes", "Bytes written by commands answered GOOD, per " + per,
                Unit.BYTES, points, Point::labels, p -> p.io().writeBytes()));
        out.metricSnapshot(counter(prefix + "_errors", "Commands answered with a status other than GOOD, per " + per,
                null, points, Point::labels, p -> p.io().errors()));
        out.metricSnapshot(gauge(prefix + "_queue_depth", "Commands in the target's hands (arrived, not yet answered), per "
                + per, points, Point::labels, p -> p.io().queueDepth()));
        out.metricSnapshot(histogram(prefix + "_read_latency_seconds", "READ latency, from the command's arrival to its"
                + " response's send completion, per " + per, points, p -> p.io().readLatency()));
        out.metricSnapshot(histogram(prefix + "_write_latency_seconds", "WRITE latency, from the command's arrival to its"
                + " response's send completion, per " + per, points, p -> p.io().writeLatency()));
    }

    private static <T> CounterSnapshot counter(final String name, final String help, final Unit unit, final List<T> items,
                                               final Function<T, Labels> labels, final ToDoubleFunction<T> value) {
        final CounterSnapshot.Builder b = CounterSnapshot.builder().name(name).help(help);
        if (unit != null) {
            b.unit(unit);
        }
        items.forEach(item -> b.dataPoint(counterPoint(labels.apply(item), value.applyAsDouble(item))));
        return b.build();
    }

    private static CounterSnapshot.CounterDataPointSnapshot counterPoint(final Labels labels, final double value) {
        return CounterSnapshot.CounterDataPointSnapshot.builder().labels(labels).value(value).build();
    }

    private static <T> GaugeSnapshot gauge(final String name, final String help, final List<T> items,
                                           final Function<T, Labels> labels, final ToDoubleFunction<T> value) {
        final GaugeSnapshot.Builder b = GaugeSnapshot.builder().name(name).help(help);
        items.forEach(item -> b.dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder().labels(labels.apply(item))
                .value(value.applyAsDouble(item)).build()));
        return b.build();
    }

    /** A family of one unlabelled point. */
    private static CounterSnapshot single(final CounterSnapshot.Builder b, final String name, final String help, final double value) {
        return b.name(name).help(help).dataPoint(counterPoint(Labels.EMPTY, value)).build();
    }

    private static GaugeSnapshot single(final GaugeSnapshot.Builder b, final String name, final String help, final double value) {
        return b.name(name).help(help)
                .dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder().value(value).build()).build();
    }

    private static HistogramSnapshot histogram(final String name, final String help, final List<Point> points,
                                               final Function<Point, LatencySnapshot> latency) {
        final double[] bounds = Arrays.copyOf(LatencySnapshot.UPPER_BOUNDS_SECONDS, LatencySnapshot.UPPER_BOUNDS_SECONDS.length + 1);
        bounds[bounds.length - 1] = Double.POSITIVE_INFINITY;
        final HistogramSnapshot.Builder b = HistogramSnapshot.builder().name(name).help(help).unit(Unit.SECONDS);
        for (final Point p : points) {
            final LatencySnapshot l = latency.apply(p);
            b.dataPoint(HistogramSnapshot.HistogramDataPointSnapshot.builder().labels(p.labels())
                    .classicHistogramBuckets(ClassicHistogramBuckets.of(bounds, l.bucketCounts())).sum(l.sumSeconds()).build());
        }
        return b.build();
    }
}

package org.rdmablock.tools.soak;

import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.plot.XYPlot;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Draws a soak's samples ({@link SoakCommand}'s CSV) as a PNG: the daemon's and the FUSE mount's resident memory
 * (MiB), threads and open file descriptors over the minutes of the run, a grey line at each restart of the daemon.
 */
final class SoakChart {
    static final int WIDTH = 1200;
    static final int HEIGHT = 700;
    /** The CSV columns drawn, their names in the legend, and the divisor to their unit. */
    private static final List<Drawn> SERIES = List.of(
            new Drawn("daemon_rss_kib", "daemon resident memory (MiB)", 1024),
            new Drawn("daemon_threads", "daemon threads", 1),
            new Drawn("daemon_fds", "daemon open file descriptors", 1),
            new Drawn("mount_rss_kib", "mount resident memory (MiB)", 1024),
            new Drawn("mount_threads", "mount threads", 1),
            new Drawn("mount_fds", "mount open file descriptors", 1));

    private record Drawn(String column, String legend, double divisor) {
    }

    private SoakChart() {
    }

    /** Reads {@code csv} (the columns of {@link SoakCommand#CSV_HEADER}) and writes {@code png}. */
    static void write(final Path csv, final Path png, final String title) throws IOException {
        final List<String> lines = Files.readAllLines(csv);
        final List<String> header = List.of(lines.getFirst().split(","));
        final int at = header.indexOf("seconds");
        final int restartsAt = header.indexOf("restarts");
        final List<XYSeries> series = new ArrayList<>();
        final int[] columns = new int[SERIES.size()];
        for (int i = 0; i < SERIES.size(); i++) {
            columns[i] = header.indexOf(SERIES.get(i).column());
            series.add(new XYSeries(SERIES.get(i).legend()));
        }
        if (at < 0 || restartsAt < 0 || Arrays.stream(columns).anyMatch(c -> c < 0)) {
            throw new IOException(csv + ": not a soak CSV (header " + lines.getFirst() + ")");
        }
        final JFreeChart chart = ChartFactory.createXYLineChart(title, "minutes", null, new XYSeriesCollection(),
                PlotOrientation.VERTICAL, true, false, false);
        final XYPlot plot = chart.getXYPlot();
        long restarts = 0;
        for (final String line : lines.subList(1, lines.size())) {
            final String[] f = line.split(",");
            final double minutes = Double.parseDouble(f[at]) / 60;
            final long r = Long.parseLong(f[restartsAt]);
            if (r > restarts) {
                final ValueMarker marker = new ValueMarker(minutes, Color.LIGHT_GRAY, new BasicStroke(1f));
                plot.addDomainMarker(marker);
                restarts = r;
            }
            for (int i = 0; i < columns.length; i++) {
                final long value = Long.parseLong(f[columns[i]]);
                if (value >= 0) { // a sample taken while that process was down has -1: left out
                    series.get(i).add(minutes, value / SERIES.get(i).divisor());
                }
            }
        }
        final XYSeriesCollection data = new XYSeriesCollection();
        for (final XYSeries s : series) {
            if (!s.isEmpty()) {
                data.addSeries(s); // no mount with --fuse-writers 0
            }
        }
        plot.setDataset(data);
        plot.setBackgroundPaint(Color.WHITE);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        ChartUtils.saveChartAsPNG(png.toFile(), chart, WIDTH, HEIGHT);
    }
}

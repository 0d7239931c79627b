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
import java.util.List;

/**
 * Draws a soak's samples ({@link SoakCommand}'s CSV) as a PNG: the daemon's resident memory (MiB), threads and open
 * file descriptors over the minutes of the run, a grey line at each restart of the daemon.
 */
final class SoakChart {
    static final int WIDTH = 1200;
    static final int HEIGHT = 700;

    private SoakChart() {
    }

    /** Reads {@code csv} (the columns of {@link SoakCommand#CSV_HEADER}) and writes {@code png}. */
    static void write(final Path csv, final Path png, final String title) throws IOException {
        final XYSeries rss = new XYSeries("daemon resident memory (MiB)");
        final XYSeries threads = new XYSeries("daemon threads");
        final XYSeries files = new XYSeries("daemon open file descriptors");
        final List<String> lines = Files.readAllLines(csv);
        final List<String> header = List.of(lines.getFirst().split(","));
        final int at = header.indexOf("seconds");
        final int rssAt = header.indexOf("daemon_rss_kib");
        final int threadsAt = header.indexOf("daemon_threads");
        final int filesAt = header.indexOf("daemon_fds");
        final int restartsAt = header.indexOf("restarts");
        if (at < 0 || rssAt < 0 || threadsAt < 0 || filesAt < 0 || restartsAt < 0) {
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
            addIfKnown(rss, minutes, Long.parseLong(f[rssAt]) / 1024.0);
            addIfKnown(threads, minutes, Long.parseLong(f[threadsAt]));
            addIfKnown(files, minutes, Long.parseLong(f[filesAt]));
        }
        final XYSeriesCollection data = new XYSeriesCollection();
        data.addSeries(rss);
        data.addSeries(threads);
        data.addSeries(files);
        plot.setDataset(data);
        plot.setBackgroundPaint(Color.WHITE);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        ChartUtils.saveChartAsPNG(png.toFile(), chart, WIDTH, HEIGHT);
    }

    /** A sample taken while the daemon was down has -1: left out. */
    private static void addIfKnown(final XYSeries series, final double x, final double y) {
        if (y >= 0) {
            series.add(x, y);
        }
    }
}

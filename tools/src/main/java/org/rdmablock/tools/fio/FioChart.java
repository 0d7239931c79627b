package org.rdmablock.tools.fio;

import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.renderer.category.BarRenderer;
import org.jfree.chart.renderer.category.StandardBarPainter;
import org.jfree.chart.ui.RectangleInsets;
import org.jfree.data.category.DefaultCategoryDataset;

import java.awt.Color;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.DecimalFormat;
import java.util.List;
import java.util.Locale;

/**
 * Draws the fio table ({@code tools/fio/compare.sh}'s {@code fio-table.csv}) as a PNG: for each row, the MB/s of our
 * FUSE volume, of nbdkit + nbdfuse and of the local file as horizontal bars on a log scale, the row's name carrying
 * our ratio to nbdfuse. {@code FioChart CSV PNG [TITLE]}.
 */
public final class FioChart {
    /** Pixels of the image. */
    static final int WIDTH = 1200;
    static final int HEIGHT = 900;
    /** The sides in the CSV, in the order drawn, with their colours. */
    private static final List<String> SIDES = List.of("ours", "nbdfuse", "local");
    private static final List<Color> COLOURS = List.of(new Color(0x1f77b4), new Color(0xff7f0e), new Color(0x7f7f7f));
    private static final List<String> LEGEND = List.of("rdmablock mount (ours)", "nbdkit file + nbdfuse", "local file (the limit)");

    private FioChart() {
    }

    public static void main(final String[] args) throws IOException {
        if (args.length < 2) {
            System.err.println("usage: FioChart fio-table.csv fio-table.png [title]");
            System.exit(2);
        }
        write(Path.of(args[0]), Path.of(args[1]), args.length > 2 ? args[2] : "fio through FUSE");
    }

    /** Reads {@code csv} (row, side, iops, mb_s, p50_us, p99_us, ours_vs_nbdfuse, ours_vs_local) and writes {@code png}. */
    static void write(final Path csv, final Path png, final String title) throws IOException {
        final DefaultCategoryDataset data = new DefaultCategoryDataset();
        double smallest = Double.MAX_VALUE;
        double largest = 0;
        final List<String> lines = Files.readAllLines(csv);
        for (final String line : lines.subList(Math.min(1, lines.size()), lines.size())) {
            final String[] f = line.split(",");
            final int side = SIDES.indexOf(f[1]);
            if (side < 0) {
                throw new IOException(csv + ": unknown side " + f[1] + " in " + line);
            }
            final double mbs = Double.parseDouble(f[3]);
            smallest = Math.min(smallest, mbs);
            largest = Math.max(largest, mbs);
            data.addValue(mbs, LEGEND.get(side), String.format(Locale.ROOT, "%s  (%.2f× nbdfuse)", f[0], Double.parseDouble(f[6])));
        }
        if (data.getColumnCount() == 0) {
            throw new IOException(csv + " holds no rows");
        }
        final JFreeChart chart = ChartFactory.createBarChart(title, null, null, data, PlotOrientation.HORIZONTAL,
                true, false, false);
        final CategoryPlot plot = chart.getCategoryPlot();
        final LogAxis axis = new LogAxis("MB/s (10^6 bytes/s), log scale");
        axis.setBase(10);
        // whole decades around the data, a tick at each, plain numbers
        final double floor = Math.pow(10, Math.floor(Math.log10(Math.max(smallest, 0.01))));
        final double ceiling = Math.pow(10, Math.ceil(Math.log10(Math.max(largest, floor * 10))));
        axis.setRange(floor, ceiling);
        axis.setTickUnit(new NumberTickUnit(1));
        axis.setNumberFormatOverride(new DecimalFormat("#,##0.##"));
        plot.setRangeAxis(axis);
        plot.setBackgroundPaint(Color.WHITE);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        final BarRenderer bars = (BarRenderer) plot.getRenderer();
        bars.setBarPainter(new StandardBarPainter());
        bars.setShadowVisible(false);
        bars.setBase(floor); // bars start at the axis' lower end: a log axis has no zero
        bars.setItemMargin(0.05);
        for (int i = 0; i < SIDES.size(); i++) {
            bars.setSeriesPaint(i, COLOURS.get(i));
        }
        chart.setBackgroundPaint(Color.WHITE);
        chart.setPadding(new RectangleInsets(4, 4, 4, 24)); // room for the last tick's label
        ChartUtils.saveChartAsPNG(png.toFile(), chart, WIDTH, HEIGHT);
    }
}

package org.rdmablock.tools.fio;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The chart is a PNG of the documented size with the three sides' colours in it; a CSV it cannot read is refused. */
class FioChartTest {
    @TempDir
    Path dir;

    @Test
    void drawsEachSidesBarsIntoAPng() throws IOException {
        System.setProperty("java.awt.headless", "true");
        final Path csv = Files.writeString(dir.resolve("t.csv"), """
                row,side,iops,mb_s,p50_us,p99_us,ours_vs_nbdfuse,ours_vs_local
                randread-4k-qd1,ours,5000.000,20.480,190.000,400.000,0.800,0.500
                randread-4k-qd1,nbdfuse,6250.000,25.600,150.000,300.000,0.800,0.500
                randread-4k-qd1,local,10000.000,40.960,90.000,200.000,0.800,0.500
                read-1m-qd16,ours,1500.000,1572.864,9000.000,20000.000,1.100,0.700
                read-1m-qd16,nbdfuse,1363.000,1429.000,9900.000,21000.000,1.100,0.700
                read-1m-qd16,local,2142.000,2246.000,7000.000,9000.000,1.100,0.700
                """);
        final Path png = dir.resolve("t.png");
        FioChart.write(csv, png, "test");
        final BufferedImage image = ImageIO.read(png.toFile());
        assertEquals(FioChart.WIDTH, image.getWidth());
        assertEquals(FioChart.HEIGHT, image.getHeight());
        // the bars' areas: the local file's are the longest in both rows, so its colour covers the most pixels; ours
        // (20 and 1573 MB/s) and nbdfuse's (26 and 1429) differ by less
        long ours = 0;
        long peer = 0;
        long local = 0;
        for (int y = 0; y < image.getHeight(); y++) {
            for (int x = 0; x < image.getWidth(); x++) {
                final int rgb = image.getRGB(x, y) & 0xFFFFFF;
                ours += rgb == 0x1f77b4 ? 1 : 0;
                peer += rgb == 0xff7f0e ? 1 : 0;
                local += rgb == 0x7f7f7f ? 1 : 0;
            }
        }
        assertTrue(ours > 0 && peer > 0, "bars of every side: " + ours + " " + peer + " " + local);
        assertTrue(local > ours * 1.1 && local > peer * 1.1, "the local bars are the longest: " + ours + " " + peer + " " + local);
    }

    @Test
    void anUnknownSideOrNoRowIsRefused() throws IOException {
        final Path bad = Files.writeString(dir.resolve("bad.csv"), "row,side,iops,mb_s,p50_us,p99_us,a,b\nx,theirs,1,1,1,1,1,1\n");
        assertThrows(IOException.class, () -> FioChart.write(bad, dir.resolve("x.png"), "t"));
        final Path empty = Files.writeString(dir.resolve("empty.csv"), "row,side,iops,mb_s,p50_us,p99_us,a,b\n");
        assertThrows(IOException.class, () -> FioChart.write(empty, dir.resolve("y.png"), "t"));
    }
}

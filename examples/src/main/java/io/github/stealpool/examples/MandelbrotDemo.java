package io.github.stealpool.examples;

import io.github.stealpool.WorkStealingPool;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.stream.IntStream;
import javax.imageio.ImageIO;

/**
 * The Mandelbrot set with a range loop over the rows, {@code range(0, height).forEach}. The
 * expensive rows (those crossing the set, where points run to the iteration limit) cluster in
 * the middle of the image, so a split into equal blocks leaves some workers with most of the
 * work; the pool's range loop lets idle workers steal the rest of a busy worker's rows. Writes
 * the image as a PNG.
 */
public final class MandelbrotDemo {

    static final int MAX_ITERATIONS = 500;

    private MandelbrotDemo() {
    }

    /** Iterations before escape for each pixel, row by row. */
    public static int[] render(WorkStealingPool pool, int width, int height) {
        int[] counts = new int[width * height];
        pool.range(0, height).forEach(y -> row(counts, width, height, y));
        return counts;
    }

    public static int[] renderSequential(int width, int height) {
        int[] counts = new int[width * height];
        for (int y = 0; y < height; y++) {
            row(counts, width, height, y);
        }
        return counts;
    }

    /** The JDK way: a parallel stream over the rows (common pool, fixed splits). */
    public static int[] renderParallelStream(int width, int height) {
        int[] counts = new int[width * height];
        IntStream.range(0, height).parallel().forEach(y -> row(counts, width, height, y));
        return counts;
    }

    private static void row(int[] counts, int width, int height, int y) {
        double ci = -1.2 + 2.4 * y / height;
        for (int x = 0; x < width; x++) {
            double cr = -2.2 + 3.2 * x / width;
            double zr = 0;
            double zi = 0;
            int i = 0;
            while (i < MAX_ITERATIONS && zr * zr + zi * zi <= 4) {
                double t = zr * zr - zi * zi + cr;
                zi = 2 * zr * zi + ci;
                zr = t;
                i++;
            }
            counts[y * width + x] = i;
        }
    }

    /** Writes the counts as a PNG: the set black, the rest shaded by escape speed. */
    public static void writePng(int[] counts, int width, int height, Path file) throws IOException {
        BufferedImage image = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        for (int y = 0; y < height; y++) {
            for (int x = 0; x < width; x++) {
                int i = counts[y * width + x];
                int rgb = 0;
                if (i < MAX_ITERATIONS) {
                    int v = (int) (255 * Math.sqrt(i / (double) MAX_ITERATIONS));
                    rgb = (v / 3) << 16 | (v / 2) << 8 | v;
                }
                image.setRGB(x, y, rgb);
            }
        }
        if (!ImageIO.write(image, "png", file.toFile())) {
            throw new IOException("no PNG writer");
        }
    }

    public static void main(String[] args) throws IOException {
        Path out = Path.of(args.length > 0 ? args[0] : "mandelbrot.png");
        int width = 1600;
        int height = 1200;
        try (WorkStealingPool pool = WorkStealingPool.create()) {
            long t0 = System.nanoTime();
            int[] counts = render(pool, width, height);
            System.out.printf("rendered %dx%d in %d ms; %s%n", width, height,
                    (System.nanoTime() - t0) / 1_000_000, pool.stats());
            writePng(counts, width, height, out);
            System.out.println("wrote " + out.toAbsolutePath());
        }
    }
}

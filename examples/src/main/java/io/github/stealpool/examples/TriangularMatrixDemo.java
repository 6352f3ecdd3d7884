package io.github.stealpool.examples;

import io.github.stealpool.WorkStealingPool;
import java.util.stream.IntStream;

/**
 * C = A x B where A is lower triangular: row i of C costs i x n multiply-adds, so the work per
 * row grows linearly and the last rows are the expensive ones. Written with the chunk form of
 * the range loop, {@code range(0, n).forEachChunk}, whose body gets a whole {@code [lo, hi)}
 * batch of rows and writes the loop itself (no per-index lambda call in the inner loop).
 */
public final class TriangularMatrixDemo {

    private TriangularMatrixDemo() {
    }

    /** A lower-triangular n x n matrix and a dense one, row-major. */
    public static double[][] inputs(int n) {
        double[] a = new double[n * n];
        double[] b = new double[n * n];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                a[i * n + j] = j <= i ? (i + j) % 7 + 1 : 0;
                b[i * n + j] = (i * 3 + j) % 5 - 2;
            }
        }
        return new double[][] {a, b};
    }

    public static double[] multiply(WorkStealingPool pool, double[] a, double[] b, int n) {
        double[] c = new double[n * n];
        pool.range(0, n).forEachChunk((lo, hi) -> {
            for (int i = (int) lo; i < hi; i++) {
                row(a, b, c, n, i);
            }
        });
        return c;
    }

    public static double[] multiplySequential(double[] a, double[] b, int n) {
        double[] c = new double[n * n];
        for (int i = 0; i < n; i++) {
            row(a, b, c, n, i);
        }
        return c;
    }

    /** The JDK way: a parallel stream over the rows. */
    public static double[] multiplyParallelStream(double[] a, double[] b, int n) {
        double[] c = new double[n * n];
        IntStream.range(0, n).parallel().forEach(i -> row(a, b, c, n, i));
        return c;
    }

    private static void row(double[] a, double[] b, double[] c, int n, int i) {
        for (int k = 0; k <= i; k++) { // A is zero right of the diagonal
            double aik = a[i * n + k];
            for (int j = 0; j < n; j++) {
                c[i * n + j] += aik * b[k * n + j];
            }
        }
    }

    public static void main(String[] args) {
        int n = 800;
        double[][] in = inputs(n);
        try (WorkStealingPool pool = WorkStealingPool.create()) {
            long t0 = System.nanoTime();
            double[] c = multiply(pool, in[0], in[1], n);
            System.out.printf("%dx%d triangular product in %d ms, c[n-1][n-1] = %.1f; %s%n", n, n,
                    (System.nanoTime() - t0) / 1_000_000, c[n * n - 1], pool.stats());
        }
    }
}

package io.github.stealpool.bench;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Runs one probe's {@code main} from several builds of the benchmarks jar in turn, in one JVM,
 * each jar in a class loader of its own (so each build's pool is its own set of classes, JIT
 * profiles included). On a shared machine whose speed drifts by half within minutes, runs of
 * two builds started minutes apart compare the minutes; alternated in one process, seconds apart,
 * they compare the builds.
 *
 * <pre>
 * java -cp pool-bench/target/benchmarks.jar io.github.stealpool.bench.InterleavedBuilds \
 *     io.github.stealpool.bench.CpuPerTaskProbe /tmp/before.jar,/tmp/after.jar 4 stealpool 8 1 400 1
 * </pre>
 * Arguments: the probe's class, the jars (comma-separated), how many turns, then the probe's
 * own arguments.
 */
public final class InterleavedBuilds {

    private InterleavedBuilds() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 3) {
            throw new IllegalArgumentException("usage: PROBE_CLASS JAR,JAR,... TURNS [PROBE ARGUMENTS...]");
        }
        String[] jars = args[1].split(",");
        int turns = Integer.parseInt(args[2]);
        String[] probeArgs = Arrays.copyOfRange(args, 3, args.length);
        Method[] mains = new Method[jars.length];
        for (int j = 0; j < jars.length; j++) {
            URL jar = Path.of(jars[j]).toUri().toURL();
            // The platform loader as parent: nothing of the pool or its dependencies is shared.
            ClassLoader loader = new URLClassLoader(new URL[] {jar}, ClassLoader.getPlatformClassLoader());
            mains[j] = loader.loadClass(args[0]).getMethod("main", String[].class);
        }
        for (int turn = 0; turn < turns; turn++) {
            for (int j = 0; j < jars.length; j++) {
                System.out.print(Path.of(jars[j]).getFileName() + ": ");
                System.out.flush();
                try {
                    mains[j].invoke(null, (Object) probeArgs);
                } catch (InvocationTargetException e) {
                    throw new IllegalStateException(jars[j] + " failed", e.getCause());
                }
            }
        }
    }
}

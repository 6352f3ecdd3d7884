package io.github.stealpool.it;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.github.stealpool.WorkStealingPool;
import io.github.stealpool.metrics.WorkStealingPoolMetrics;
import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The public surface of the API packages (what the modules {@code io.github.stealpool} and
 * {@code io.github.stealpool.metrics} export, read from their descriptors, and the exports
 * themselves) is exactly the approved list in
 * {@code src/test/resources/api/approved-api.txt}: every public type, its supertypes, and every
 * public or protected constructor, method and field a user can reach through it, inherited ones
 * included unless another library's type declares them (the JDK's {@code ExecutorService}, say,
 * or Micrometer's {@code MeterBinder}: their API, not ours). So a member
 * leaking from the internal package (as {@code Task} once inherited {@code trySetResult} and
 * {@code abandon} from its internal base class) fails here, and so does any unplanned change.
 * No line may name an internal type, not even as a supertype (Task once extended an internal
 * class; issue 36): so a signature or a hierarchy that exposes one fails even in a list
 * rewritten with {@code -Dapi.update=true}.
 *
 * <p>A deliberate change: run with {@code -Dapi.update=true} (it rewrites the list in the source
 * tree and fails once, so the change is never silent), review the diff, commit it.
 */
class ApiSurfaceTest {

    private static final String APPROVED = "api/approved-api.txt";

    @Test
    void publicSurfaceIsExactlyTheApprovedList() throws Exception {
        TreeSet<String> actual = new TreeSet<>();
        for (Class<?> anchor : List.of(WorkStealingPool.class, WorkStealingPoolMetrics.class)) {
            // The API packages are what each module exports, read from its module-info.class
            // (these tests run on the class path, where getModule() is the unnamed module).
            ModuleDescriptor module = descriptorOf(anchor);
            Set<String> exported = new TreeSet<>();
            for (ModuleDescriptor.Exports e : module.exports()) {
                actual.add("module " + module.name() + ": exports " + e.source()
                        + (e.isQualified() ? " to " + new TreeSet<>(e.targets()) : ""));
                exported.add(e.source());
            }
            for (String name : classNames(anchor)) {
                Class<?> c = Class.forName(name, false, anchor.getClassLoader());
                if (exported.contains(c.getPackageName()) && isReachable(c)) {
                    describe(c, actual);
                }
            }
        }
        List<String> internal = actual.stream()
                .filter(l -> l.contains("io.github.stealpool.internal"))
                .collect(Collectors.toList());
        assertTrue(internal.isEmpty(), () -> "internal types in the public API:\n    " + String.join("\n    ", internal));
        TreeSet<String> approved = readApproved();
        if (Boolean.getBoolean("api.update")) {
            Path file = Paths.get(System.getProperty("user.dir")).resolve("../src/test/resources").resolve(APPROVED);
            Files.write(file, actual, StandardCharsets.UTF_8);
            fail("api.update: wrote " + actual.size() + " lines to " + file.normalize() + "; review and commit");
        }
        TreeSet<String> added = new TreeSet<>(actual);
        added.removeAll(approved);
        TreeSet<String> removed = new TreeSet<>(approved);
        removed.removeAll(actual);
        assertTrue(added.isEmpty() && removed.isEmpty(), () -> "the public API changed; if on purpose, "
                + "rerun with -Dapi.update=true and commit the list.\n  not approved:\n    "
                + String.join("\n    ", added) + "\n  approved but gone:\n    " + String.join("\n    ", removed));
    }

    /**
     * A type a user can name: public, or a protected member type (a subclass sees it), inside
     * classes that are so too.
     */
    private static boolean isReachable(Class<?> c) {
        for (Class<?> k = c; k != null; k = k.getDeclaringClass()) {
            int m = k.getModifiers();
            boolean visible = Modifier.isPublic(m) || (k.getDeclaringClass() != null && Modifier.isProtected(m));
            if (!visible || k.isAnonymousClass() || k.isLocalClass()) {
                return false;
            }
        }
        return true;
    }

    private static ModuleDescriptor descriptorOf(Class<?> anchor) throws IOException, URISyntaxException {
        Path where = Paths.get(anchor.getProtectionDomain().getCodeSource().getLocation().toURI());
        if (Files.isDirectory(where)) {
            try (InputStream in = Files.newInputStream(where.resolve("module-info.class"))) {
                return ModuleDescriptor.read(in);
            }
        }
        try (JarFile jar = new JarFile(where.toFile());
             InputStream in = jar.getInputStream(jar.getEntry("module-info.class"))) {
            return ModuleDescriptor.read(in);
        }
    }

    private static void describe(Class<?> c, TreeSet<String> out) {
        String type = c.getName();
        StringBuilder head = new StringBuilder(Modifier.toString(c.getModifiers() & ~Modifier.INTERFACE))
                .append(c.isInterface() ? " interface " : c.isEnum() ? " enum " : " class ").append(type);
        if (c.getGenericSuperclass() != null && c.getSuperclass() != Object.class && !c.isEnum()) {
            head.append(" extends ").append(c.getGenericSuperclass().getTypeName());
        }
        String interfaces = Stream.of(c.getGenericInterfaces()).map(t -> t.getTypeName()).collect(Collectors.joining(", "));
        if (!interfaces.isEmpty()) {
            head.append(c.isInterface() ? " extends " : " implements ").append(interfaces);
        }
        out.add(type + ": " + head.toString().trim());
        for (Constructor<?> k : c.getDeclaredConstructors()) {
            if (visible(k) && !c.isEnum()) {
                out.add(type + ": " + k.toGenericString());
            }
        }
        // Everything callable through the type: its own members and those of every supertype
        // of ours, internal ones above all.
        for (Class<?> k = c; k != null; k = k.getSuperclass()) {
            addMembers(type, k, out);
        }
        for (Class<?> i : allInterfaces(c)) {
            addMembers(type, i, out);
        }
    }

    private static void addMembers(String type, Class<?> declaring, TreeSet<String> out) {
        if (!declaring.getName().startsWith("io.github.stealpool.")) {
            return;
        }
        for (Method m : declaring.getDeclaredMethods()) {
            if (visible(m) && !m.isSynthetic() && !m.isBridge()) {
                out.add(type + ": " + m.toGenericString());
            }
        }
        for (Field f : declaring.getDeclaredFields()) {
            if (visible(f) && !f.isSynthetic()) {
                out.add(type + ": " + f.toGenericString());
            }
        }
    }

    private static List<Class<?>> allInterfaces(Class<?> c) {
        List<Class<?>> all = new ArrayList<>();
        for (Class<?> k = c; k != null; k = k.getSuperclass()) {
            for (Class<?> i : k.getInterfaces()) {
                collect(i, all);
            }
        }
        return all;
    }

    private static void collect(Class<?> i, List<Class<?>> all) {
        if (!all.contains(i)) {
            all.add(i);
            for (Class<?> j : i.getInterfaces()) {
                collect(j, all);
            }
        }
    }

    private static boolean visible(Member m) {
        return (m.getModifiers() & (Modifier.PUBLIC | Modifier.PROTECTED)) != 0;
    }

    private static TreeSet<String> readApproved() throws IOException {
        try (InputStream in = ApiSurfaceTest.class.getClassLoader().getResourceAsStream(APPROVED)) {
            if (in == null) {
                return new TreeSet<>();
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines()
                    .filter(l -> !l.isBlank()).collect(Collectors.toCollection(TreeSet::new));
        }
    }

    /** Every class in the jar or directory that {@code anchor} was loaded from. */
    private static List<String> classNames(Class<?> anchor) throws IOException, URISyntaxException {
        Path where = Paths.get(anchor.getProtectionDomain().getCodeSource().getLocation().toURI());
        List<String> names = new ArrayList<>();
        if (Files.isDirectory(where)) {
            try (Stream<Path> files = Files.walk(where)) {
                files.map(p -> where.relativize(p).toString().replace('\\', '/'))
                        .filter(ApiSurfaceTest::isClassFile)
                        .forEach(p -> names.add(toClassName(p)));
            }
        } else {
            try (JarFile jar = new JarFile(where.toFile())) {
                for (JarEntry e : (Iterable<JarEntry>) jar.stream()::iterator) {
                    if (isClassFile(e.getName())) {
                        names.add(toClassName(e.getName()));
                    }
                }
            }
        }
        return names;
    }

    private static boolean isClassFile(String path) {
        return path.endsWith(".class") && !path.endsWith("module-info.class") && !path.startsWith("META-INF/");
    }

    private static String toClassName(String path) {
        return path.substring(0, path.length() - ".class".length()).replace('/', '.');
    }
}

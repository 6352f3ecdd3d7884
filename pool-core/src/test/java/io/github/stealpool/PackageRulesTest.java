package io.github.stealpool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.stealpool.internal.Scheduler;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Issue 36, item 5: no package cycle, and no internal type in the public hierarchy.
 *
 * <ul>
 *   <li>{@code io.github.stealpool.internal} and its subpackages ({@code internal.jfr}) depend
 *       on the API package only for its interfaces and value types (the allowlist below),
 *       never on its classes ({@code WorkStealingPool},
 *       {@code Task}, {@code Scope}, ...): read from the compiled classes' constant pools, so
 *       imports, fully qualified names, signatures, casts and class literals all count, and
 *       Javadoc does not. A string naming such a class (a {@code Class.forName}) counts too.</li>
 *   <li>No public class of the API package has an internal type among its supertypes: Task
 *       once extended the internal {@code Latch}.</li>
 * </ul>
 */
class PackageRulesTest {

    /**
     * The API types the internal package may use: interfaces and values it hands to or gets
     * from the user's code. A new one is a deliberate change, reviewed here; a class of the API
     * (the pool, Task, Scope, the ranges' builders) never belongs here.
     */
    private static final Set<String> ALLOWED = Set.of("PoolStats", "RangeChunk", "TaskTimingListener");

    /** A reference to a type of the API package, in a descriptor, a class entry or a string. */
    private static final Pattern API_TYPE = Pattern.compile("io[/.]github[/.]stealpool[/.]([A-Za-z0-9_$]+)([/.]?)");

    @Test
    void theInternalPackageUsesNoClassOfTheApi() throws Exception {
        Map<String, Set<String>> used = new TreeMap<>(); // API type -> internal classes using it
        // A name followed by '.' or '/' is a package, unless it is an API class ("Task.fork").
        Set<String> apiClasses = new TreeSet<>();
        for (String file : classFiles("io/github/stealpool/", false).keySet()) {
            apiClasses.add(file.substring("io/github/stealpool/".length(), file.length() - ".class".length())
                    .split("\\$", 2)[0]);
        }
        int scanned = 0;
        int scannedSubpackage = 0;
        for (Map.Entry<String, byte[]> c : classFiles("io/github/stealpool/internal/", true).entrySet()) {
            scanned++;
            if (c.getKey().indexOf('/', "io/github/stealpool/internal/".length()) >= 0) {
                scannedSubpackage++;
            }
            for (String s : utf8Constants(c.getValue())) {
                Matcher m = API_TYPE.matcher(s);
                while (m.find()) {
                    if (!m.group(2).isEmpty() && !apiClasses.contains(m.group(1))) {
                        continue; // a subpackage: internal itself, or another
                    }
                    String top = m.group(1).split("\\$", 2)[0];
                    used.computeIfAbsent(top, k -> new TreeSet<>()).add(c.getKey());
                }
            }
        }
        assertTrue(scanned > 20, "found " + scanned + " internal class files");
        assertTrue(scannedSubpackage > 0, "the scan did not reach the subpackages (internal.jfr)");
        // The scan sees references: the allowed ones are there (Scheduler builds PoolStats).
        assertTrue(used.containsKey("PoolStats"), () -> "the scan found no reference at all: " + used);
        Map<String, Set<String>> forbidden = new TreeMap<>(used);
        forbidden.keySet().removeAll(ALLOWED);
        assertTrue(forbidden.isEmpty(), () -> "io.github.stealpool.internal uses classes of the API "
                + "package (a package cycle; pass an interface or an opaque Object instead, see "
                + "internal.TaskSecrets and Scheduler.owner()): " + forbidden);
    }

    @Test
    void noPublicApiTypeHasAnInternalSupertype() throws Exception {
        List<String> offenders = new ArrayList<>();
        int checked = 0;
        for (String file : classFiles("io/github/stealpool/", false).keySet()) {
            String name = file.substring(0, file.length() - ".class".length()).replace('/', '.');
            if (name.indexOf('.', "io.github.stealpool.".length()) >= 0) {
                continue; // a subpackage
            }
            Class<?> c = Class.forName(name, false, Task.class.getClassLoader());
            if (!Modifier.isPublic(c.getModifiers())) {
                continue;
            }
            checked++;
            for (Class<?> s : supertypes(c)) {
                if (s.getPackageName().startsWith("io.github.stealpool.internal")) {
                    offenders.add(c.getName() + " < " + s.getName());
                }
            }
        }
        assertTrue(checked > 5, "found " + checked + " public API classes");
        assertTrue(offenders.isEmpty(), () -> "internal types in the public hierarchy: " + offenders);
        // Task above all: a latch without extending one.
        assertEquals(Object.class, Task.class.getSuperclass());
        assertFalse(supertypes(Task.class).stream().anyMatch(s -> s.getName().contains(".internal.")));
    }

    /** Every superclass and interface of {@code c}, transitively. */
    private static Set<Class<?>> supertypes(Class<?> c) {
        Set<Class<?>> all = new java.util.LinkedHashSet<>();
        List<Class<?>> todo = new ArrayList<>(List.of(c));
        while (!todo.isEmpty()) {
            Class<?> k = todo.remove(todo.size() - 1);
            if (k.getSuperclass() != null && all.add(k.getSuperclass())) {
                todo.add(k.getSuperclass());
            }
            for (Class<?> i : k.getInterfaces()) {
                if (all.add(i)) {
                    todo.add(i);
                }
            }
        }
        return all;
    }

    /**
     * The class files in package {@code dir} (a package path ending in '/'), and with
     * {@code subpackages} in the packages under it, by path, with their bytes.
     */
    private static Map<String, byte[]> classFiles(String dir, boolean subpackages)
            throws IOException, URISyntaxException {
        Path where = Paths.get(Scheduler.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Map<String, byte[]> files = new TreeMap<>();
        if (Files.isDirectory(where)) {
            Path root = where.resolve(dir);
            try (Stream<Path> s = subpackages ? Files.walk(root) : Files.list(root)) {
                for (Path p : (Iterable<Path>) s::iterator) {
                    if (p.toString().endsWith(".class")) {
                        files.put(dir + root.relativize(p).toString().replace(java.io.File.separatorChar, '/'),
                                Files.readAllBytes(p));
                    }
                }
            }
        } else {
            try (JarFile jar = new JarFile(where.toFile())) {
                for (JarEntry e : (Iterable<JarEntry>) jar.stream()::iterator) {
                    String n = e.getName();
                    if (n.startsWith(dir) && n.endsWith(".class")
                            && (subpackages || n.indexOf('/', dir.length()) < 0)) {
                        try (InputStream in = jar.getInputStream(e)) {
                            files.put(n, in.readAllBytes());
                        }
                    }
                }
            }
        }
        return files;
    }

    /**
     * The CONSTANT_Utf8 entries of a class file's constant pool: every class name, descriptor,
     * signature and string literal the class uses is one of them (JVMS 4.4).
     */
    static List<String> utf8Constants(byte[] classFile) throws IOException {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(classFile));
        if (in.readInt() != 0xCAFEBABE) {
            throw new IOException("not a class file");
        }
        in.readUnsignedShort(); // minor
        in.readUnsignedShort(); // major
        int count = in.readUnsignedShort();
        List<String> out = new ArrayList<>();
        for (int i = 1; i < count; i++) {
            int tag = in.readUnsignedByte();
            switch (tag) {
                case 1: // Utf8: u2 length, modified UTF-8, which readUTF reads
                    out.add(in.readUTF());
                    break;
                case 7: case 8: case 16: case 19: case 20: // Class, String, MethodType, Module, Package
                    in.skipBytes(2);
                    break;
                case 15: // MethodHandle
                    in.skipBytes(3);
                    break;
                case 3: case 4: case 9: case 10: case 11: case 12: case 17: case 18:
                    in.skipBytes(4);
                    break;
                case 5: case 6: // Long, Double: two slots
                    in.skipBytes(8);
                    i++;
                    break;
                default:
                    throw new IOException("constant pool tag " + tag + " at " + i);
            }
        }
        return out;
    }
}

package org.fabricmanager.routing;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The classes each compiled class of a directory refers to, read from the constant pools of the
 * {@code .class} files: class entries and the names inside descriptors and signatures, so that a
 * fully qualified name in the source counts as much as an import. Used by tests that check package
 * dependencies without a library for it.
 */
final class ClassReferences {
    private static final Pattern NAME = Pattern.compile("org/fabricmanager/[A-Za-z0-9_/$]+");

    private ClassReferences() {
    }

    /** The directory the compiled main classes of this module were loaded from. */
    static Path mainClasses() {
        try {
            return Path.of(ForwardingTables.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException("cannot locate the compiled classes of " + ForwardingTables.class, e);
        }
    }

    /**
     * For every class under {@code root} (dotted binary name), the {@code org.fabricmanager} classes
     * it refers to (dotted names, nested classes as {@code Outer$Inner}), itself excluded.
     */
    static Map<String, Set<String>> of(Path root) {
        Map<String, Set<String>> out = new TreeMap<>();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path file : (Iterable<Path>) files.filter(f -> f.toString().endsWith(".class"))::iterator) {
                String self = root.relativize(file).toString().replace('\\', '/');
                self = self.substring(0, self.length() - ".class".length()).replace('/', '.');
                Set<String> refs = new TreeSet<>();
                try (InputStream in = Files.newInputStream(file)) {
                    for (String utf8 : constantStrings(new DataInputStream(in), file)) {
                        Matcher m = NAME.matcher(utf8);
                        while (m.find()) {
                            refs.add(m.group().replace('/', '.'));
                        }
                    }
                }
                refs.remove(self);
                out.put(self, refs);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(root + ": cannot read compiled classes: " + e.getMessage(), e);
        }
        return out;
    }

    /** The package of a dotted class name. */
    static String packageOf(String className) {
        int dot = className.lastIndexOf('.');
        return dot < 0 ? "" : className.substring(0, dot);
    }

    /** The UTF-8 entries of a class file's constant pool (JVMS 4.4). */
    private static Set<String> constantStrings(DataInputStream in, Path file) throws IOException {
        if (in.readInt() != 0xCAFEBABE) {
            throw new IOException(file + ": not a class file");
        }
        in.readUnsignedShort(); // minor version
        in.readUnsignedShort(); // major version
        int count = in.readUnsignedShort();
        Set<String> strings = new TreeSet<>();
        for (int i = 1; i < count; i++) {
            int tag = in.readUnsignedByte();
            switch (tag) {
                case 1 -> strings.add(in.readUTF());
                case 7, 8, 16, 19, 20 -> in.skipNBytes(2);
                case 15 -> in.skipNBytes(3);
                case 3, 4, 9, 10, 11, 12, 17, 18 -> in.skipNBytes(4);
                case 5, 6 -> {
                    in.skipNBytes(8);
                    i++; // longs and doubles take two entries
                }
                default -> throw new IOException(file + ": unknown constant pool tag " + tag + " at entry " + i);
            }
        }
        return strings;
    }
}

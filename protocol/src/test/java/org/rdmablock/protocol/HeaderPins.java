package org.rdmablock.protocol;

import org.junit.jupiter.api.function.Executable;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Wire constants pinned against literals copied from the C headers a protocol is defined by (never from our own
 * constants): what the SRP and NVMe constants tests share. A package's every public int or long constant but its
 * field offsets ({@code *_OFFSET}, the layout tests' job) must have a pin.
 */
public final class HeaderPins {
    /** One constant: {@code owner.field} must equal {@code literal}, which the header names {@code source}. */
    public record Pin(Class<?> owner, String field, long literal, String source) {
    }

    private HeaderPins() {
    }

    public static Pin pin(final Class<?> owner, final String field, final long literal, final String source) {
        return new Pin(owner, field, literal, source);
    }

    /** Asserts every pin, reporting all that fail. */
    public static void check(final List<Pin> pins) {
        final List<Executable> checks = new ArrayList<>();
        for (final Pin p : pins) {
            checks.add(() -> {
                final long actual = p.owner().getField(p.field()).getLong(null);
                assertEquals(p.literal(), actual, () -> String.format("%s.%s is 0x%x; the header's %s is 0x%x",
                        p.owner().getSimpleName(), p.field(), actual, p.source(), p.literal()));
            });
        }
        assertAll(checks);
    }

    /**
     * The public int and long constants of {@code anchor}'s package (its top-level classes) that no pin of
     * {@code pinned} names, field offsets left out: a constant added without a header literal shows here.
     */
    public static Set<String> unpinned(final Class<?> anchor, final List<List<Pin>> pinned)
            throws IOException, URISyntaxException {
        final Set<String> names = pinned.stream().flatMap(List::stream)
                .map(p -> p.owner().getSimpleName() + "." + p.field()).collect(Collectors.toCollection(TreeSet::new));
        final Set<String> unpinned = new TreeSet<>();
        for (final Class<?> type : packageClasses(anchor)) {
            for (final Field f : type.getDeclaredFields()) {
                final int m = f.getModifiers();
                final boolean constant = Modifier.isPublic(m) && Modifier.isStatic(m) && Modifier.isFinal(m)
                        && (f.getType() == int.class || f.getType() == long.class);
                final String name = type.getSimpleName() + "." + f.getName();
                if (constant && !f.getName().endsWith("_OFFSET") && !names.contains(name)) {
                    unpinned.add(name);
                }
            }
        }
        return unpinned;
    }

    /** The top-level classes compiled into {@code anchor}'s package (the main output folder, next to it). */
    public static List<Class<?>> packageClasses(final Class<?> anchor) throws IOException, URISyntaxException {
        final Path folder = Path.of(anchor.getResource(anchor.getSimpleName() + ".class").toURI()).getParent();
        try (Stream<Path> files = Files.list(folder)) {
            final List<Class<?>> classes = new ArrayList<>();
            for (final Path p : files.map(Path::getFileName)
                    .filter(n -> n.toString().endsWith(".class") && !n.toString().contains("$")).sorted().toList()) {
                final String simple = p.toString().replace(".class", "");
                if (!simple.equals("package-info")) {
                    try {
                        classes.add(Class.forName(anchor.getPackageName() + "." + simple));
                    } catch (ClassNotFoundException e) {
                        throw new IllegalStateException(e);
                    }
                }
            }
            return classes;
        }
    }
}

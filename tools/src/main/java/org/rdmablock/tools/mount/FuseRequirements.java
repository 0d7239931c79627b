package org.rdmablock.tools.mount;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * What a mount needs of the machine, looked for before anything starts, each missing piece said in words with what to
 * do: the {@code /dev/fuse} device (readable and writable), libfuse3's runtime library ({@code libfuse3.so.3}: jfuse
 * loads {@code fuse3} by name, which only the -dev package's {@code libfuse3.so} symlink answers, so the mount passes
 * the runtime library's path) and {@code fusermount3} (which libfuse runs to mount and unmount, and which cleans up a
 * stale mount). The machine is read through a {@link Probe}, so that tests can fake one.
 */
final class FuseRequirements {
    /** The FUSE device. */
    static final Path DEVICE = Path.of("/dev/fuse");
    /** libfuse3's runtime library (package libfuse3-3, which fuse3 depends on). */
    static final String LIBRARY = "libfuse3.so.3";
    /** libfuse3's mount helper (package fuse3). */
    static final String FUSERMOUNT = "fusermount3";
    /** Where the library is looked for after {@code LD_LIBRARY_PATH}: Debian's multiarch directories, then the classic ones. */
    static final List<String> LIBRARY_DIRECTORIES = List.of("/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu",
            "/usr/lib/aarch64-linux-gnu", "/lib/aarch64-linux-gnu", "/usr/lib64", "/lib64", "/usr/local/lib", "/usr/lib", "/lib");
    /** What to do about a missing library or helper. */
    static final String INSTALL_FUSE3 = "install the fuse3 package (apt-get install fuse3)";

    /** The machine as the check sees it. */
    interface Probe {
        boolean exists(Path path);

        boolean readableAndWritable(Path path);

        /** An environment variable, or null. */
        String environment(String name);
    }

    /** This machine. */
    static final Probe SYSTEM = new Probe() {
        @Override
        public boolean exists(final Path path) {
            return Files.exists(path);
        }

        @Override
        public boolean readableAndWritable(final Path path) {
            return Files.isReadable(path) && Files.isWritable(path);
        }

        @Override
        public String environment(final String name) {
            return System.getenv(name);
        }
    };

    /**
     * The outcome: the library's and the helper's paths (null when missing) and the problems in words (empty when all
     * is there).
     */
    record Found(Path library, Path fusermount, List<String> problems) {
        boolean ok() {
            return problems.isEmpty();
        }
    }

    private FuseRequirements() {
    }

    /** Looks for everything; {@code library}: a path given by the user instead of the search (null: search). */
    static Found check(final Probe probe, final Path library) {
        final List<String> problems = new ArrayList<>();
        if (!probe.exists(DEVICE)) {
            problems.add(DEVICE + " is missing: load the kernel's fuse module (modprobe fuse), or start this container "
                    + "with the device (docker run --device /dev/fuse --cap-add SYS_ADMIN)");
        } else if (!probe.readableAndWritable(DEVICE)) {
            problems.add(DEVICE + " is not readable and writable by this user");
        }
        Path foundLibrary = null;
        if (library != null) {
            if (probe.exists(library)) {
                foundLibrary = library;
            } else {
                problems.add("libfuse3 is missing: " + library + " (--fuse-library) does not exist");
            }
        } else {
            final Set<String> directories = new LinkedHashSet<>(split(probe.environment("LD_LIBRARY_PATH")));
            directories.addAll(LIBRARY_DIRECTORIES);
            foundLibrary = first(probe, directories, LIBRARY);
            if (foundLibrary == null) {
                problems.add("libfuse3 is missing (no " + LIBRARY + " in LD_LIBRARY_PATH or " + String.join(", ",
                        LIBRARY_DIRECTORIES) + "): " + INSTALL_FUSE3);
            }
        }
        final Set<String> path = new LinkedHashSet<>(split(probe.environment("PATH")));
        path.addAll(List.of("/usr/bin", "/bin"));
        final Path fusermount = first(probe, path, FUSERMOUNT);
        if (fusermount == null) {
            problems.add(FUSERMOUNT + " is missing (not on PATH, nor in /usr/bin or /bin): " + INSTALL_FUSE3);
        }
        return new Found(foundLibrary, fusermount, List.copyOf(problems));
    }

    private static Path first(final Probe probe, final Set<String> directories, final String file) {
        for (final String directory : directories) {
            final Path candidate = Path.of(directory, file);
            if (probe.exists(candidate)) {
                return candidate;
            }
        }
        return null;
    }

    private static List<String> split(final String list) {
        if (list == null || list.isBlank()) {
            return List.of();
        }
        final List<String> parts = new ArrayList<>();
        for (final String part : list.split(":")) {
            if (!part.isBlank()) {
                parts.add(part);
            }
        }
        return parts;
    }
}

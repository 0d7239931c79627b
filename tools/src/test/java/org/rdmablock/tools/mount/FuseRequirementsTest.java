package org.rdmablock.tools.mount;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The mount's checks before it mounts, on a faked machine: each missing piece of FUSE said, with what to do; a mount
 * point that cannot be one; options it cannot go with; and a failed mount leaves no folder it made.
 */
class FuseRequirementsTest {
    private static final Path LIB = Path.of("/usr/lib/x86_64-linux-gnu/libfuse3.so.3");
    private static final Path HELPER = Path.of("/usr/bin/fusermount3");

    /** A machine with exactly {@code files}, {@code /dev/fuse} usable when present unless {@code deviceUsable} is false. */
    private static FuseRequirements.Probe machine(final Set<Path> files, final boolean deviceUsable, final Map<String, String> env) {
        return new FuseRequirements.Probe() {
            @Override
            public boolean exists(final Path path) {
                return files.contains(path);
            }

            @Override
            public boolean readableAndWritable(final Path path) {
                return deviceUsable && files.contains(path);
            }

            @Override
            public String environment(final String name) {
                return env.get(name);
            }
        };
    }

    @Test
    void aCompleteMachineHasNoProblemAndTheRuntimeLibrarysPath() {
        final FuseRequirements.Found found = FuseRequirements.check(
                machine(Set.of(FuseRequirements.DEVICE, LIB, HELPER), true, Map.of("PATH", "/usr/bin")), null);
        assertTrue(found.ok(), found.problems().toString());
        assertEquals(LIB, found.library());
        assertEquals(HELPER, found.fusermount());
    }

    @Test
    void eachMissingPieceIsSaidWithWhatToDo() {
        final FuseRequirements.Found none = FuseRequirements.check(machine(Set.of(), true, Map.of("PATH", "/usr/bin")), null);
        assertEquals(3, none.problems().size(), none.problems().toString());
        assertTrue(none.problems().get(0).startsWith("/dev/fuse is missing") && none.problems().get(0).contains("modprobe fuse"),
                none.problems().get(0));
        assertTrue(none.problems().get(1).startsWith("libfuse3 is missing") && none.problems().get(1).contains("apt-get install fuse3"),
                none.problems().get(1));
        assertTrue(none.problems().get(2).startsWith("fusermount3 is missing") && none.problems().get(2).contains("apt-get install fuse3"),
                none.problems().get(2));
        assertNull(none.library());
        assertNull(none.fusermount());

        final FuseRequirements.Found noHelper = FuseRequirements.check(
                machine(Set.of(FuseRequirements.DEVICE, LIB), true, Map.of()), null);
        assertEquals(1, noHelper.problems().size());
        assertTrue(noHelper.problems().get(0).startsWith("fusermount3 is missing"));

        final FuseRequirements.Found noLibrary = FuseRequirements.check(
                machine(Set.of(FuseRequirements.DEVICE, HELPER), true, Map.of()), null);
        assertEquals(1, noLibrary.problems().size());
        assertTrue(noLibrary.problems().get(0).contains("no libfuse3.so.3"), noLibrary.problems().get(0));
    }

    @Test
    void aDeviceThisUserCannotOpenIsSaidApart() {
        final FuseRequirements.Found found = FuseRequirements.check(
                machine(Set.of(FuseRequirements.DEVICE, LIB, HELPER), false, Map.of()), null);
        assertEquals(1, found.problems().size());
        assertEquals("/dev/fuse is not readable and writable by this user", found.problems().get(0));
    }

    @Test
    void theLibraryIsLookedForInLdLibraryPathFirstOrTakenAsGiven() {
        final Path own = Path.of("/opt/fuse/lib/libfuse3.so.3");
        final Map<String, String> env = new HashMap<>();
        env.put("LD_LIBRARY_PATH", "/opt/fuse/lib");
        assertEquals(own, FuseRequirements.check(machine(Set.of(FuseRequirements.DEVICE, LIB, own, HELPER), true, env), null).library());
        final FuseRequirements.Found given = FuseRequirements.check(
                machine(Set.of(FuseRequirements.DEVICE, LIB, HELPER), true, Map.of()), Path.of("/nowhere/libfuse3.so.3"));
        assertEquals(1, given.problems().size());
        assertTrue(given.problems().get(0).contains("/nowhere/libfuse3.so.3 (--fuse-library) does not exist"));
    }

    @Test
    void theMountCommandStopsWithTheMessagesAndExitStatus1() {
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final MountCommand command = new MountCommand(new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(err, true, StandardCharsets.UTF_8), machine(Set.of(LIB), true, Map.of()));
        final int exit = new picocli.CommandLine(command).execute("--embedded-target", "memory", "/tmp/never-mounted");
        final String text = err.toString(StandardCharsets.UTF_8);
        assertEquals(MountCommand.EXIT_FAILED, exit, text);
        assertTrue(text.contains("this machine cannot mount a FUSE file system"), text);
        assertTrue(text.contains("/dev/fuse is missing") && text.contains("fusermount3 is missing"), text);
    }

    @Test
    void aMountThatFailsLeavesNoFolderItMadeAndAFileIsNoMountPoint(@org.junit.jupiter.api.io.TempDir final Path dir)
            throws java.io.IOException {
        final Path point = dir.resolve("a/b/mnt");
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final MountCommand command = new MountCommand(new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(err, true, StandardCharsets.UTF_8),
                machine(Set.of(FuseRequirements.DEVICE, LIB, HELPER), true, Map.of("PATH", "/usr/bin")));
        final int exit = new picocli.CommandLine(command).execute("--target", "127.0.0.1:1", point.toString());
        assertEquals(MountCommand.EXIT_FAILED, exit, err.toString(StandardCharsets.UTF_8));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("connection refused"), err.toString(StandardCharsets.UTF_8));
        assertTrue(java.nio.file.Files.notExists(dir.resolve("a")), "the folders made for the mount point are removed");

        final Path file = java.nio.file.Files.writeString(dir.resolve("plain"), "x");
        final ByteArrayOutputStream fileErr = new ByteArrayOutputStream();
        final MountCommand onFile = new MountCommand(new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(fileErr, true, StandardCharsets.UTF_8),
                machine(Set.of(FuseRequirements.DEVICE, LIB, HELPER), true, Map.of("PATH", "/usr/bin")));
        assertEquals(MountCommand.EXIT_FAILED, new picocli.CommandLine(onFile).execute("--target", "127.0.0.1:1", file.toString()));
        assertEquals("rdmablock mount: " + file + " is not a directory (a mount point must be one)",
                fileErr.toString(StandardCharsets.UTF_8).strip());
    }

    @Test
    void anIoTimeoutThatIsNotPositiveIsAUsageError() {
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final MountCommand command = new MountCommand(new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(err, true, StandardCharsets.UTF_8), machine(Set.of(), true, Map.of()));
        assertEquals(MountCommand.EXIT_USAGE, new picocli.CommandLine(command).execute("--io-timeout", "0s", "/tmp/never"));
        assertEquals("rdmablock mount: --io-timeout must be positive, not 0s", err.toString(StandardCharsets.UTF_8).strip());
    }
}

package org.rdmablock.tools.mount;

import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The directory a volume is mounted on: whether something is mounted there now (the kernel's mount table,
 * {@code /proc/self/mounts}), whether that mount is stale (its FUSE server is gone: stat answers "Transport endpoint
 * is not connected", ENOTCONN, as after {@code kill -9} of a mount), and cleaning a stale one up with
 * {@code fusermount3 -u -z} (lazy: it succeeds even while a program still holds a file open there).
 */
public final class MountPoint {
    /** The kernel's table of this process's mounts. */
    static final Path MOUNTS = Path.of("/proc/self/mounts");
    /** How long {@code fusermount3 -u -z} may take. */
    static final long UNMOUNT_TIMEOUT_SECONDS = 10;

    /** What is at the directory. */
    public enum State {
        /** Nothing is mounted on it. */
        FREE,
        /** A live mount. */
        MOUNTED,
        /** A mount whose server is gone. */
        STALE
    }

    private MountPoint() {
    }

    /** The state of {@code directory} now. */
    public static State probe(final Path directory) throws IOException {
        if (!mounted(directory, Files.readAllLines(MOUNTS))) {
            return State.FREE;
        }
        try {
            Files.readAttributes(directory, BasicFileAttributes.class);
            return State.MOUNTED;
        } catch (FileSystemException e) {
            if (isNotConnected(e)) {
                return State.STALE;
            }
            throw e;
        }
    }

    /** Whether {@code e} is ENOTCONN, the answer of a FUSE mount whose server has gone. */
    static boolean isNotConnected(final FileSystemException e) {
        return e.getReason() != null && e.getReason().contains("Transport endpoint is not connected");
    }

    /** Whether the mount table {@code lines} (the format of /proc/self/mounts) lists {@code directory} as a mount point. */
    static boolean mounted(final Path directory, final List<String> lines) {
        final String wanted = absolute(directory);
        for (final String line : lines) {
            final String[] fields = line.split(" ");
            if (fields.length > 2 && unescape(fields[1]).equals(wanted)) {
                return true;
            }
        }
        return false;
    }

    /** Unmounts a stale mount: {@code fusermount3 -u -z DIRECTORY}. */
    static void cleanUp(final Path directory, final Path fusermount) throws IOException {
        final Process process = new ProcessBuilder(fusermount.toString(), "-u", "-z", absolute(directory))
                .redirectErrorStream(true).start();
        try {
            if (!process.waitFor(UNMOUNT_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IOException(fusermount + " -u -z " + directory + " did not end within " + UNMOUNT_TIMEOUT_SECONDS + " s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while unmounting " + directory);
        }
        final String output = new String(process.getInputStream().readAllBytes()).strip();
        if (process.exitValue() != 0) {
            throw new IOException(fusermount + " -u -z " + directory + " failed (exit " + process.exitValue() + "): " + output);
        }
    }

    /** The path as the mount table writes it: absolute, resolved where it can be (a stale mount cannot). */
    static String absolute(final Path directory) {
        final Path plain = directory.toAbsolutePath().normalize();
        try {
            final Path parent = plain.getParent();
            return parent == null ? plain.toString() : parent.toRealPath().resolve(plain.getFileName()).toString();
        } catch (IOException e) {
            return plain.toString();
        }
    }

    /** The mount table's octal escapes (\040 a space, \011 a tab, \012 a newline, \134 a backslash). */
    static String unescape(final String field) {
        if (field.indexOf('\\') < 0) {
            return field;
        }
        final StringBuilder out = new StringBuilder(field.length());
        for (int i = 0; i < field.length(); i++) {
            final char c = field.charAt(i);
            if (c == '\\' && isOctal(field, i + 1)) {
                out.append((char) Integer.parseInt(field.substring(i + 1, i + 4), 8));
                i += 3;
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    private static boolean isOctal(final String s, final int from) {
        if (from + 3 > s.length()) {
            return false;
        }
        for (int i = from; i < from + 3; i++) {
            if (s.charAt(i) < '0' || s.charAt(i) > '7') {
                return false;
            }
        }
        return true;
    }
}

package org.rdmablock.tools.mount;

import org.junit.jupiter.api.Test;

import java.nio.file.FileSystemException;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Reading the mount table and telling a stale mount's error. */
class MountPointTest {
    private static final List<String> TABLE = List.of(
            "proc /proc proc rw,nosuid,nodev,noexec,relatime 0 0",
            "rdmablock /srv/my\\040volume fuse.rdmablock rw,nosuid,nodev,relatime,user_id=0,group_id=0 0 0");

    @Test
    void aMountPointIsFoundWithItsEscapesUndone() {
        assertTrue(MountPoint.mounted(Path.of("/srv/my volume"), TABLE));
        assertTrue(MountPoint.mounted(Path.of("/proc"), TABLE));
        assertFalse(MountPoint.mounted(Path.of("/srv/my"), TABLE));
        assertFalse(MountPoint.mounted(Path.of("/srv"), TABLE));
        assertEquals("a\tb\\c d", MountPoint.unescape("a\\011b\\134c\\040d"));
        assertEquals("not\\8escaped", MountPoint.unescape("not\\8escaped"));
    }

    @Test
    void enotconnIsStaleOtherErrorsAreNot() {
        assertTrue(MountPoint.isNotConnected(new FileSystemException("/mnt/x", null, "Transport endpoint is not connected")));
        assertFalse(MountPoint.isNotConnected(new FileSystemException("/mnt/x", null, "Permission denied")));
        assertFalse(MountPoint.isNotConnected(new FileSystemException("/mnt/x")));
    }
}

/**
 * {@code rdmablock mount}: a target's LUNs as files ({@code lunN.img}) in a directory, through FUSE (jfuse's FFM
 * binding to libfuse3), so that fio and any program can use a remote LUN.
 *
 * <pre>
 *  program ─► kernel FUSE ─► libfuse worker thread ─► LunFileSystem ─► LunFile: offset → LBA, copy into the thread's
 *     registered IoSlot ─► Lun.read/write (IoCallback) ─► initiator channel ─► SRP_CMD ─► target
 *     park until the callback ◄────────────────────────────────────────────────────────────────── SRP_RSP
 * </pre>
 *
 * {@link org.rdmablock.tools.mount.MountCommand} checks the machine ({@link org.rdmablock.tools.mount.FuseRequirements}),
 * cleans up a stale mount ({@link org.rdmablock.tools.mount.MountPoint}), logs in and mounts a
 * {@link org.rdmablock.tools.mount.Volume}.
 */
package org.rdmablock.tools.mount;

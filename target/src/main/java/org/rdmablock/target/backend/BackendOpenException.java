package org.rdmablock.target.backend;

import java.nio.file.Path;

/**
 * A LUN's backend could not be opened: a path that cannot be created or written, a file smaller than the configured
 * size, a RocksDB directory locked by another process, a configuration the backend cannot serve. The message names
 * the LUN, its backend and path, and the cause, {@code LUN 3 (file /srv/lun3.img): cannot open the file: EACCES …},
 * so that the daemon can print it as it is; {@link #lun()} says which LUN failed. Thrown on the thread that opens it.
 */
public final class BackendOpenException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int lun;

    BackendOpenException(int lun, String kind, Path path, String cause, Throwable underlying) {
        super("LUN " + lun + " (" + kind + (path != null ? " " + path : "") + "): " + cause, underlying);
        this.lun = lun;
    }

    /** The number of the LUN that could not be opened. */
    public int lun() {
        return lun;
    }
}

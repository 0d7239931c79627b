package org.rdmablock.verbs;

/** No RDMA device is present (libibverbs found none, or the kernel has no RDMA support: ENOSYS). */
public final class NoRdmaDeviceException extends VerbsException {
    public NoRdmaDeviceException(final int errno, final String message) {
        super(errno, message);
    }
}

package org.rdmablock.verbs.soft;

import java.net.InetSocketAddress;
import java.time.Duration;

import org.rdmablock.verbs.ConnectionId;
import org.rdmablock.verbs.ConnectionListener;
import org.rdmablock.verbs.ConnectionManager;
import org.rdmablock.verbs.VerbsException;

/** The soft provider's connection manager: TCP connections negotiated with MPA (see {@link MpaNegotiation}). */
final class SoftConnectionManager implements ConnectionManager {
    private final SoftDevice device;

    SoftConnectionManager(final SoftDevice device) {
        this.device = device;
    }

    @Override
    public int maxPrivateDataLength() {
        return MpaNegotiation.MAX_ULP_PRIVATE_DATA;
    }

    @Override
    public ConnectionListener listen(final InetSocketAddress address, final int backlog) {
        return new SoftConnectionListener(device.context(), address, backlog);
    }

    @Override
    public ConnectionId resolve(final InetSocketAddress remote, final Duration timeout) {
        if (remote.isUnresolved()) {
            final InetSocketAddress resolved = new InetSocketAddress(remote.getHostString(), remote.getPort());
            if (resolved.isUnresolved()) {
                throw new VerbsException(VerbsException.ENOENT, "cannot resolve " + remote.getHostString());
            }
            return new SoftConnectionId(device.context(), resolved);
        }
        return new SoftConnectionId(device.context(), remote);
    }
}

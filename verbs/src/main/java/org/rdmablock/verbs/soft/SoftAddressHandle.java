package org.rdmablock.verbs.soft;

import java.net.InetSocketAddress;

import org.rdmablock.verbs.AddressHandle;
import org.rdmablock.verbs.AddressHandleAttributes;

/** An address handle of the soft provider: the UDP endpoint its destination GID encodes (see {@link SoftGid}). */
final class SoftAddressHandle implements AddressHandle {
    private final SoftProtectionDomain pd;
    private final AddressHandleAttributes attributes;
    private final InetSocketAddress endpoint;

    SoftAddressHandle(final SoftProtectionDomain pd, final AddressHandleAttributes attributes) {
        this.pd = pd;
        this.attributes = attributes;
        this.endpoint = SoftGid.endpoint(attributes.destinationGid());
    }

    @Override
    public AddressHandleAttributes attributes() {
        return attributes;
    }

    InetSocketAddress endpoint() {
        return endpoint;
    }

    @Override
    public void close() {
        pd.released(this);
    }
}

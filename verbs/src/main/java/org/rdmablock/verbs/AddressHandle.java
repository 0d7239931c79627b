package org.rdmablock.verbs;

/** The path to a remote port for UD sends ({@code struct ibv_ah}). */
public interface AddressHandle extends AutoCloseable {
    AddressHandleAttributes attributes();

    @Override
    void close();
}

package org.rdmablock.verbs;

/** An RDMA device as listed by {@link VerbsProvider#devices()} ({@code struct ibv_device}). */
public interface RdmaDevice {
    /** Kernel name of the device, e.g. {@code mlx5_0}, {@code rxe0}, {@code soft0}. */
    String name();

    /** Node GUID. */
    long guid();

    /** The transport the device speaks. */
    Transport transport();

    /**
     * Opens the device (ibv_open_device). Every open of a device through one provider shares one context, the
     * one the connection manager's ids use (as librdmacm shares its contexts), so resources created from it can
     * be used with connections; each open is matched by a close.
     */
    DeviceContext open();

    /** Link-layer transport of a device. */
    enum Transport {
        INFINIBAND,
        /** RDMA over Converged Ethernet (including Soft-RoCE, rxe). */
        ROCE,
        /** iWARP (including siw, and this project's soft provider). */
        IWARP
    }
}

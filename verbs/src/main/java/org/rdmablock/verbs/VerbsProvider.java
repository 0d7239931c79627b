package org.rdmablock.verbs;

import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

/**
 * An implementation of the verbs API: {@code soft} (RDMA in software over TCP, iWARP wire format) or
 * {@code native} (libibverbs and librdmacm through FFM). Providers are found with {@link ServiceLoader}.
 *
 * <pre>
 *   VerbsProvider provider = VerbsProvider.load("auto");   // native if an RDMA device exists, else soft
 *   DeviceContext context = provider.devices().getFirst().open();
 * </pre>
 */
public interface VerbsProvider extends AutoCloseable {
    /** The provider's name, as given to {@link #load(String)}. */
    String name();

    /**
     * Whether registering memory pins it: a native device locks the pages in RAM and maps them for the adapter until
     * they are deregistered, a system call and a page-table walk per registration. False where a registration is only a
     * key to memory of this process ({@code soft}): a buffer may then be registered for a single operation, or a LUN's
     * whole mapping for good, at no cost. Default true.
     */
    default boolean registrationPinsMemory() {
        return true;
    }

    /** Whether this provider can run on this host (for native: libibverbs loads and lists a device). */
    boolean isAvailable();

    /**
     * The RDMA devices this provider sees (ibv_get_device_list).
     *
     * @throws NoRdmaDeviceException when there is none
     */
    List<RdmaDevice> devices();

    /** The connection manager (rdma_cm) of this provider. */
    ConnectionManager connectionManager();

    /** Releases the provider's threads and sockets; resources opened through it must be closed first. */
    @Override
    void close();

    /**
     * Loads a provider by name: {@code soft}, {@code native}, or {@code auto} (the first available of native,
     * then soft).
     *
     * @throws VerbsException ENOENT when no provider of that name is on the class path, or none is available
     */
    static VerbsProvider load(final String name) {
        final List<ServiceLoader.Provider<VerbsProvider>> candidates = ServiceLoader.load(VerbsProvider.class).stream().toList();
        final List<String> seen = new ArrayList<>();
        if ("auto".equals(name)) {
            // each provider is made once (a soft provider is a device: making one numbers it), the rest closed
            final List<VerbsProvider> all = candidates.stream().map(ServiceLoader.Provider::get).toList();
            VerbsProvider chosen = null;
            for (final String preferred : List.of("native", "soft")) {
                for (final VerbsProvider provider : all) {
                    if (chosen == null && provider.name().equals(preferred) && provider.isAvailable()) {
                        chosen = provider;
                    }
                }
            }
            for (final VerbsProvider provider : all) {
                if (provider != chosen) {
                    provider.close();
                }
            }
            if (chosen == null) {
                throw new VerbsException(VerbsException.ENOENT, "no verbs provider is available on this host");
            }
            return chosen;
        }
        for (final ServiceLoader.Provider<VerbsProvider> candidate : candidates) {
            final VerbsProvider provider = candidate.get();
            if (provider.name().equals(name)) {
                return provider;
            }
            seen.add(provider.name());
            provider.close();
        }
        throw new VerbsException(VerbsException.ENOENT, "no verbs provider named '" + name + "' (known: " + seen + ", auto)");
    }
}

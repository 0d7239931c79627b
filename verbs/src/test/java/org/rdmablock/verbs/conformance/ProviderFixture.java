package org.rdmablock.verbs.conformance;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import org.rdmablock.verbs.PortAttributes;
import org.rdmablock.verbs.VerbsProvider;
import org.rdmablock.verbs.soft.SoftProvider;

/**
 * A provider under test: how to open one "host" of it, and which optional behaviours it can show. The
 * conformance suite runs once per fixture named in {@code -Drdmablock.conformance.providers} (default: soft), so
 * the native provider runs the same tests where an RDMA device exists.
 *
 * @param name       provider name
 * @param factory    opens a provider instance (one per simulated host)
 * @param address    the local address the tests listen on and connect to
 * @param portEvents how to raise a port state change, or null when the fixture cannot
 * @param udGidIndex GID table index whose GID addresses UD peers (soft: 0; RoCE v2 IPv4: 1)
 */
public record ProviderFixture(String name, Supplier<VerbsProvider> factory, InetAddress address,
                              PortEvents portEvents, int udGidIndex) {
    /** Raises port state changes on a provider instance. */
    @FunctionalInterface
    public interface PortEvents {
        void set(VerbsProvider provider, PortAttributes.State state);
    }

    @Override
    public String toString() {
        return name;
    }

    /** The fixtures selected for this run. */
    public static List<ProviderFixture> selected() {
        final List<ProviderFixture> fixtures = new ArrayList<>();
        for (final String name : System.getProperty("rdmablock.conformance.providers", "soft").split(",")) {
            fixtures.add(switch (name.trim()) {
                case "soft" -> soft();
                case "native" -> new ProviderFixture("native", () -> VerbsProvider.load("native"),
                    address(System.getProperty("rdmablock.conformance.address", "127.0.0.1")), null,
                    Integer.getInteger("rdmablock.conformance.gidIndex", 1));
                default -> throw new IllegalArgumentException("unknown provider fixture " + name);
            });
        }
        return fixtures;
    }

    /** The soft provider on loopback. */
    public static ProviderFixture soft() {
        return new ProviderFixture("soft", SoftProvider::new, address("127.0.0.1"),
            (provider, state) -> ((SoftProvider) provider).setPortState(state), 0);
    }

    private static InetAddress address(final String text) {
        try {
            return InetAddress.getByName(text);
        } catch (final java.net.UnknownHostException e) {
            throw new IllegalArgumentException(e);
        }
    }
}

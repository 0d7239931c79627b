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
 * @param ucThroughConnectionManager whether UC QPs can be connected by the connection manager (rdma_cm's
 *                                   RDMA_PS_TCP port space, which the native provider uses, carries RC only)
 * @param knownIssues names of device bugs the tests work around or skip (see the constants), from
 *                    {@code -Drdmablock.conformance.knownIssues=a,b} for the native provider
 * @param address6    an IPv6 address to connect over, or null when the fixture has none (soft: ::1; native:
 *                    {@code -Drdmablock.conformance.address6}, an IPv6 address of the RDMA device's interface)
 */
public record ProviderFixture(String name, Supplier<VerbsProvider> factory, InetAddress address,
                              PortEvents portEvents, int udGidIndex, boolean ucThroughConnectionManager,
                              java.util.Set<String> knownIssues, InetAddress address6) {
    /**
     * rxe (Linux 6.1): an access through a memory window that fails leaks a reference, and destroying the QPs
     * then stalls 50 s per object (WARN at rxe_pool.c:255): window error paths are skipped.
     */
    public static final String RXE_WINDOW_ERROR_LEAK = "rxe-mw-error-leak";
    /** rxe (Linux 6.1): receives posted after the QP entered ERR are not flushed. */
    public static final String RXE_NO_FLUSH_AFTER_ERR = "rxe-no-flush-after-err";
    /**
     * rxe (Linux 6.1) with rdma-core's rxe provider: the kernel's wc_flags reach user space unconverted, so SEND
     * with Invalidate completes with IB_WC_WITH_INVALIDATE (bit 2) instead of IBV_WC_WITH_INV (bit 3).
     */
    public static final String RXE_KERNEL_WC_FLAGS = "rxe-kernel-wc-flags";

    /** Whether the device under test has the named bug. */
    public boolean has(final String issue) {
        return knownIssues.contains(issue);
    }

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
                    address(System.getProperty("rdmablock.conformance.address", "127.0.0.1")), linkCommand(),
                    Integer.getInteger("rdmablock.conformance.gidIndex", 1), false,
                    java.util.Set.of(System.getProperty("rdmablock.conformance.knownIssues", "").split(",")),
                    System.getProperty("rdmablock.conformance.address6") == null ? null : address(System.getProperty("rdmablock.conformance.address6")));
                default -> throw new IllegalArgumentException("unknown provider fixture " + name);
            });
        }
        return fixtures;
    }

    /** The soft provider on loopback. */
    public static ProviderFixture soft() {
        return new ProviderFixture("soft", SoftProvider::new, address("127.0.0.1"),
            (provider, state) -> ((SoftProvider) provider).setPortState(state), 0, true, java.util.Set.of(), ipv6Loopback());
    }

    /**
     * Port events for a real device: {@code -Drdmablock.conformance.linkCommand="ip link set rdma0 %s"} takes the
     * device's network link down and up (the QEMU harness sets it for rxe); without it, none.
     */
    private static PortEvents linkCommand() {
        final String command = System.getProperty("rdmablock.conformance.linkCommand");
        if (command == null) {
            return null;
        }
        return (provider, state) -> {
            final String[] argv = String.format(command, state == PortAttributes.State.ACTIVE ? "up" : "down").split(" ");
            try {
                final Process process = new ProcessBuilder(argv).inheritIO().start();
                if (!process.waitFor(30, java.util.concurrent.TimeUnit.SECONDS) || process.exitValue() != 0) {
                    throw new IllegalStateException("'" + String.join(" ", argv) + "' failed");
                }
            } catch (final java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        };
    }

    /** ::1 where this host can listen on it (a container may have IPv6 off), else null. */
    private static InetAddress ipv6Loopback() {
        final InetAddress loopback = address("::1");
        try (java.net.ServerSocket probe = new java.net.ServerSocket(0, 1, loopback)) {
            return probe.isBound() ? loopback : null;
        } catch (final java.io.IOException e) {
            return null;
        }
    }

    private static InetAddress address(final String text) {
        try {
            return InetAddress.getByName(text);
        } catch (final java.net.UnknownHostException e) {
            throw new IllegalArgumentException(e);
        }
    }
}

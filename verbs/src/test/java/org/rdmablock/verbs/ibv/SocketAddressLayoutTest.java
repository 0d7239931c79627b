package org.rdmablock.verbs.ibv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The socket addresses the native provider hands to librdmacm (rdma_bind_addr, rdma_resolve_addr) and reads back
 * from {@code rdma_cm_id.route.addr}: byte layout of {@code struct sockaddr_in} and {@code struct sockaddr_in6}
 * (family, port in network order, address, IPv6 scope) and the round trip. Needs rdma-core's libraries (the
 * bindings load them), not a device.
 */
class SocketAddressLayoutTest {
    @BeforeAll
    static void librariesPresent() {
        assumeTrue(Native.UNAVAILABLE == null, "rdma-core is not installed: " + Native.UNAVAILABLE);
    }

    @Test
    void ipv4IsASockaddrInWithThePortInNetworkOrder() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            final InetSocketAddress address = new InetSocketAddress(InetAddress.getByName("192.0.2.15"), 0x1234);
            final MemorySegment sa = IbvConnectionManager.sockaddr(arena, address);
            assertEquals(16, sa.byteSize());
            assertEquals(2, sa.get(ValueLayout.JAVA_SHORT, 0), "AF_INET");
            assertEquals(0x12, sa.get(ValueLayout.JAVA_BYTE, 2));
            assertEquals(0x34, sa.get(ValueLayout.JAVA_BYTE, 3));
            assertEquals((byte) 192, sa.get(ValueLayout.JAVA_BYTE, 4));
            assertEquals(15, sa.get(ValueLayout.JAVA_BYTE, 7));
            assertEquals(address, IbvConnectionManager.address(sa));
        }
    }

    @Test
    void ipv6IsASockaddrIn6WithItsScope() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            final InetSocketAddress global = new InetSocketAddress(InetAddress.getByName("2001:db8::15"), 4791);
            final MemorySegment sa = IbvConnectionManager.sockaddr(arena, global);
            assertEquals(28, sa.byteSize(), "librdmacm takes the length from the family: sizeof(struct sockaddr_in6)");
            assertEquals(10, sa.get(ValueLayout.JAVA_SHORT, 0), "AF_INET6");
            assertEquals((byte) (4791 >> 8), sa.get(ValueLayout.JAVA_BYTE, 2));
            assertEquals(0x20, sa.get(ValueLayout.JAVA_BYTE, 8), "sin6_addr after the 4-byte flow info");
            assertEquals(0x15, sa.get(ValueLayout.JAVA_BYTE, 23));
            assertEquals(0, sa.get(ValueLayout.JAVA_INT_UNALIGNED, 24), "no scope");
            assertEquals(global, IbvConnectionManager.address(sa));

            final Inet6Address linkLocal = Inet6Address.getByAddress(null, InetAddress.getByName("fe80::1").getAddress(), 3);
            final MemorySegment scoped = IbvConnectionManager.sockaddr(arena, new InetSocketAddress(linkLocal, 7));
            assertEquals(3, scoped.get(ValueLayout.JAVA_INT_UNALIGNED, 24), "sin6_scope_id");
            assertEquals(new InetSocketAddress(linkLocal, 7), IbvConnectionManager.address(scoped));
        }
    }

    @Test
    void aHostNameIsResolvedFirst() {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment sa = IbvConnectionManager.sockaddr(arena, InetSocketAddress.createUnresolved("localhost", 9));
            assertEquals(9, IbvConnectionManager.address(sa).getPort());
        }
    }
}

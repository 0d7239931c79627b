package org.rdmablock.verbs.ibv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

import org.junit.jupiter.api.Test;
import org.rdmablock.verbs.VerbsException;

/**
 * {@link Native#errnoOf}, through which the librdmacm calls (rdma_connect, rdma_accept, rdma_reject, bind, listen,
 * resolve) report their errno, exercised on a libc function with the same convention (0, or -1 and errno) and a
 * pointer argument, so that the boxing of arguments and the capture are checked without a device.
 */
class NativeErrnoTest {
    @Test
    void aFailingCallReportsItsErrnoAndASucceedingOneZero() {
        assumeTrue(Native.UNAVAILABLE == null, "rdma-core is not installed: " + Native.UNAVAILABLE);
        final MethodHandle access = Native.withErrno(Linker.nativeLinker().defaultLookup().find("access").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
        try (Arena arena = Arena.ofConfined()) {
            assertEquals(VerbsException.ENOENT, Native.errnoOf(access, "access", arena.allocateFrom("/nonexistent/rdmablock"), 0));
            assertEquals(0, Native.errnoOf(access, "access", arena.allocateFrom("/"), 0));
        }
    }
}

package org.rdmablock.verbs.ibv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import org.junit.jupiter.api.Test;
import org.rdmablock.verbs.ibv.bindings.Rdma;
import org.rdmablock.verbs.ibv.bindings.pollfd;
import org.rdmablock.verbs.posix.LibC;

/**
 * The wake-up path of the native completion channel without a device: the hand-linked eventfd(2), write(2) and
 * read(2) with the flags {@link IbvCompletionChannel} uses, polled through the bindings' poll(2). A semaphore
 * eventfd must count each wakeup once and never block a reader.
 */
class WakeupEventFdTest {
    @Test
    void eachWriteMakesTheEventFdReadableForOneRead() {
        assumeTrue(Native.UNAVAILABLE == null, "rdma-core is not installed: " + Native.UNAVAILABLE);
        final int fd = LibC.eventfd(0, LibC.EFD_SEMAPHORE | LibC.EFD_NONBLOCK | LibC.EFD_CLOEXEC);
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment fds = arena.allocate(pollfd.layout());
            pollfd.fd(fds, fd);
            pollfd.events(fds, LibC.POLLIN);
            final MemorySegment value = arena.allocate(ValueLayout.JAVA_LONG);
            assertEquals(0, Rdma.poll(fds, 1, 20), "nothing written yet");
            assertEquals(-1, LibC.read(fd, value, Long.BYTES), "non-blocking: an empty eventfd fails the read instead of blocking");
            value.set(ValueLayout.JAVA_LONG, 0, 1L);
            assertEquals(Long.BYTES, LibC.write(fd, value, Long.BYTES));
            assertEquals(Long.BYTES, LibC.write(fd, value, Long.BYTES));
            for (int wakeup = 0; wakeup < 2; wakeup++) {
                assertEquals(1, Rdma.poll(fds, 1, 1000), "wakeup " + wakeup + " pending");
                assertEquals(LibC.POLLIN, pollfd.revents(fds) & LibC.POLLIN);
                assertEquals(Long.BYTES, LibC.read(fd, value, Long.BYTES));
                assertEquals(1L, value.get(ValueLayout.JAVA_LONG, 0), "a semaphore eventfd hands out one count per read");
            }
            assertEquals(0, Rdma.poll(fds, 1, 20), "both wakeups taken");
        } finally {
            LibC.close(fd);
        }
    }
}

package org.rdmablock.target.srp;

import org.rdmablock.target.core.TargetDevice;
import org.rdmablock.target.fakes.FakeVerbs;

import org.junit.jupiter.api.Test;
import org.rdmablock.protocol.scsi.LogicalUnitTable;
import org.rdmablock.protocol.scsi.NexusRegistry;
import org.rdmablock.target.config.InitiatorPortId;
import org.rdmablock.target.metrics.TargetStatistics;
import org.rdmablock.verbs.ConnectionId;

import java.lang.reflect.Proxy;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A channel's disconnect waits for the login thread's accept to return: an initiator may send SRP_I_LOGOUT as soon as
 * it has the LOGIN_RSP, and a disconnect before the target's accept returned was lost on rxe (the channel stayed up).
 * The disconnect goes exactly once, whichever comes first.
 */
class ChannelDisconnectTest {
    private final AtomicInteger disconnects = new AtomicInteger();

    private SrpChannel channel() {
        final ConnectionId connection = (ConnectionId) Proxy.newProxyInstance(ConnectionId.class.getClassLoader(),
                new Class<?>[]{ConnectionId.class}, (proxy, method, args) -> {
                    if (method.getName().equals("disconnect")) {
                        disconnects.incrementAndGet();
                    }
                    return method.getName().equals("toString") ? "fake connection" : null;
                });
        final FakeVerbs.Domain pd = new FakeVerbs.Domain();
        final FakeVerbs.Pair qp = new FakeVerbs.Pair(pd, 1, new FakeVerbs.Completions(64), 8, new long[8]);
        return new SrpChannel(0, connection, qp, new InitiatorPortId(1, 1), new NexusRegistry().ofSrp(1, 1, 1), new LogicalUnitTable(), 4, 8276, 8276, 68,
                TargetDevice.MAX_READ_DEPTH, null, new TargetStatistics().channelJoined(new InitiatorPortId(1, 1)));
    }

    @Test
    void aDisconnectAskedBeforeTheAcceptReturnedGoesWhenItDoes() {
        final SrpChannel channel = channel();
        channel.disconnect(); // an SRP_I_LOGOUT that came before the accept returned
        assertEquals(0, disconnects.get(), "not while the accept is under way");
        channel.acceptReturned();
        assertEquals(1, disconnects.get(), "once the accept returned");
        channel.disconnect();
        assertEquals(1, disconnects.get(), "and only once");
    }

    @Test
    void aDisconnectAfterTheAcceptGoesAtOnceAndOnce() {
        final SrpChannel channel = channel();
        channel.acceptReturned();
        assertEquals(0, disconnects.get(), "an accepted channel stays up");
        channel.disconnect();
        assertEquals(1, disconnects.get());
        channel.disconnect();
        assertEquals(1, disconnects.get());
    }
}

package org.rdmablock.verbs.soft;

import org.rdmablock.verbs.AsyncEvent;
import org.rdmablock.verbs.ProtectionDomain;
import org.rdmablock.verbs.ReceiveWorkRequest;
import org.rdmablock.verbs.SharedReceiveQueue;
import org.rdmablock.verbs.VerbsException;

/** A shared receive queue of the soft provider; its limit event fires once per arming. */
final class SoftSharedReceiveQueue implements SharedReceiveQueue {
    private final SoftProtectionDomain pd;
    private final ReceiveQueue queue;
    private volatile int limit;
    private final java.util.concurrent.CopyOnWriteArrayList<SoftQueuePair> users = new java.util.concurrent.CopyOnWriteArrayList<>();

    SoftSharedReceiveQueue(final SoftProtectionDomain pd, final int maxWr, final int maxSge) {
        this.pd = pd;
        this.queue = new ReceiveQueue(maxWr, maxSge);
    }

    @Override
    public ProtectionDomain protectionDomain() {
        return pd;
    }

    ReceiveQueue queue() {
        return queue;
    }

    @Override
    public void postReceive(final ReceiveWorkRequest wr) {
        queue.post(wr);
        for (final SoftQueuePair qp : users) {
            qp.receivePosted(); // a QP whose stream waits for a receive goes on
        }
    }

    /** Takes a work request for an incoming message and fires the limit event when it drops below the limit. */
    boolean take(final ReceiveQueue.ReceiveWqe out) {
        if (!queue.take(out)) {
            return false;
        }
        final int armedLimit = limit;
        if (armedLimit > 0 && queue.pending() < armedLimit) {
            limit = 0;
            pd.context().raise(AsyncEvent.ofSrq(AsyncEvent.Type.SRQ_LIMIT_REACHED, this));
        }
        return true;
    }

    @Override
    public void armLimit(final int newLimit) {
        if (newLimit < 0 || newLimit > queue.capacity()) {
            throw new VerbsException(VerbsException.EINVAL, "SRQ limit " + newLimit + " outside 0.." + queue.capacity());
        }
        limit = newLimit;
    }

    void attach(final SoftQueuePair qp) {
        users.add(qp);
    }

    void detach(final SoftQueuePair qp) {
        users.remove(qp);
    }

    @Override
    public void close() {
        if (!users.isEmpty()) {
            throw new VerbsException(VerbsException.EBUSY, "SRQ still used by " + users.size() + " queue pair(s)");
        }
        pd.released(this);
    }
}

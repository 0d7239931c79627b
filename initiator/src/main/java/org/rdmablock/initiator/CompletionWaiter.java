package org.rdmablock.initiator;

import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Waits for a request's answer on an application thread, driving the session's channels meanwhile when they are
 * caller-driven ({@link InitiatorConfig.Waiting#CALLER}: nobody else would); in the other modes it blocks on the future.
 */
final class CompletionWaiter {
    /** Completes the {@link CompletableFuture} given as attachment: the one callback the future forms share. */
    @SuppressWarnings("unchecked")
    static final IoCallback COMPLETE_FUTURE = (attachment, bytes, failure) -> {
        final CompletableFuture<Long> future = (CompletableFuture<Long>) attachment;
        if (failure != null) {
            future.completeExceptionally(failure);
        } else {
            future.complete(bytes);
        }
    };
    /** Caller-driven waits: empty polls before the waiting thread yields between polls. */
    private static final int SPINS_BEFORE_YIELD = 64;

    private final List<InitiatorChannel> channels;
    private final boolean callerDriven;

    /** Waits with {@code channels}, which the session fills before the first wait. */
    CompletionWaiter(final List<InitiatorChannel> channels, final InitiatorConfig.Waiting waiting) {
        this.channels = channels;
        this.callerDriven = waiting == InitiatorConfig.Waiting.CALLER;
    }

    /** Caller-driven: one duty cycle of every channel not driven by another thread now. Returns the work done. */
    int poll() {
        if (!callerDriven) {
            return 0;
        }
        int work = 0;
        for (int i = 0, n = channels.size(); i < n; i++) {
            work += channels.get(i).drive();
        }
        return work;
    }

    /** See {@link SrpInitiator#awaitDone}. */
    boolean awaitDone(final Future<?> future, final long timeout, final TimeUnit unit) {
        final long deadline = System.nanoTime() + unit.toNanos(timeout);
        if (!callerDriven) {
            try {
                future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException | TimeoutException | CancellationException e) {
                // done (failed) or not done: isDone tells
            }
            return future.isDone();
        }
        int idle = 0;
        while (!future.isDone() && System.nanoTime() - deadline < 0 && !Thread.currentThread().isInterrupted()) {
            idle = poll() > 0 ? 0 : idle + 1;
            if (idle > SPINS_BEFORE_YIELD) {
                Thread.yield();
            } else if (idle > 0) {
                Thread.onSpinWait();
            }
        }
        return future.isDone();
    }

    /** Waits for {@code future}, turning its failure into the {@link SrpIoException} it carries. */
    long await(final CompletableFuture<Long> future, final String what, final long timeoutSeconds) throws SrpIoException {
        awaitDone(future, timeoutSeconds, TimeUnit.SECONDS);
        try {
            return future.get(0, TimeUnit.SECONDS); // done, timed out or interrupted: no longer get with nobody driving
        } catch (ExecutionException e) {
            if (e.getCause() instanceof SrpIoException io) {
                throw io;
            }
            throw new SrpIoException(what + " failed", e.getCause());
        } catch (TimeoutException e) {
            throw new SrpIoException(what + ": no answer within " + timeoutSeconds + " s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SrpIoException(what + ": interrupted");
        }
    }
}

package org.rdmablock.initiator;

/**
 * Turns requests into commands within the target's credits, the free command slots and the send queue's room, on the
 * agent thread.
 *
 * <p>Parts to be sent again come first, then the requests the {@link RequestScheduler} chooses, each split into
 * commands of at most a command's bytes; the SENDs of one duty cycle go as one chain. A failed channel answers each
 * request at once instead.
 */
final class CommandIssuer {
    private final ChannelState state;
    private final RequestScheduler scheduler;
    private final RetryQueue retryQueue;
    private final CommandTable table;
    private final Credits credits;
    private final SendQueue sendQueue;
    private final CommandEncoder encoder;
    private final RequestCompleter completer;
    private final int maxRetries;
    /** Statistics, read by any thread: commands issued, and parts sent again. */
    private volatile long commandsIssued;
    private volatile long retries;

    CommandIssuer(final ChannelState state, final RequestScheduler scheduler, final RetryQueue retryQueue,
                  final CommandTable table, final Credits credits, final SendQueue sendQueue, final CommandEncoder encoder,
                  final RequestCompleter completer, final int maxRetries) {
        this.state = state;
        this.scheduler = scheduler;
        this.retryQueue = retryQueue;
        this.table = table;
        this.credits = credits;
        this.sendQueue = sendQueue;
        this.encoder = encoder;
        this.completer = completer;
        this.maxRetries = maxRetries;
    }

    long commandsIssued() {
        return commandsIssued;
    }

    long retries() {
        return retries;
    }

    /** Issues what the retry queue and the ring hold while the limits allow, then posts the SENDs. Returns the work done. */
    int issue() {
        final int started = issueRetries() + issueRequests();
        sendQueue.postChained();
        return started;
    }

    /** Whether one more command may go now. */
    private boolean canIssue() {
        // a control IU may have to go any time: send queue entries are kept for it
        return table.hasFree() && credits.allowCommand() && sendQueue.hasRoomForCommand();
    }

    /** Sends again the parts of aborted commands and of commands whose connection was lost, oldest first. */
    private int issueRetries() {
        int started = 0;
        while (!retryQueue.isEmpty() && !state.hasFailed() && !state.isLost()) {
            if (!canIssue()) {
                return started;
            }
            final long offset = retryQueue.headOffset();
            final int length = retryQueue.headLength();
            final IoRequest request = retryQueue.removeHead();
            started++;
            if (++request.retries > maxRetries || request.failure != null) {
                if (request.failure == null) {
                    request.failure = new SrpIoException(request.describe() + ": no answer after " + maxRetries
                            + " tries (each aborted or its channel lost)");
                }
                completer.commandEnded(request);
                continue;
            }
            retries++;
            final OutstandingCommand c = table.acquire();
            c.nextTag();
            c.startNanos = System.nanoTime();
            c.add(request, offset, length);
            send(request, c);
        }
        return started;
    }

    /** Issues the requests of the ring, the one being split first; a failed channel answers each at once. */
    private int issueRequests() {
        int started = 0;
        while (!state.isLost() || state.hasFailed()) {
            IoRequest request = completer.issuing();
            if (request == null) {
                request = scheduler.next();
                if (request == null) {
                    return started;
                }
                if (state.hasFailed()) {
                    request.failure = state.failed();
                    completer.finish(request);
                    started++;
                    continue;
                }
                completer.issuing(request);
            }
            if (!canIssue()) {
                return started;
            }
            issueNext(request, table.acquire());
            started++;
            if (request.allIssued() || request.failure != null) {
                completer.issuing(null);
                if (request.inFlight == 0) {
                    completer.finish(request);
                }
            }
        }
        return started;
    }

    /** Builds the next command of {@code request} (and of requests merged with it) in {@code c} and chains its SEND. */
    private void issueNext(final IoRequest request, final OutstandingCommand c) {
        c.nextTag();
        c.startNanos = System.nanoTime();
        request.inFlight++;
        if (!request.movesBlocks()) {
            c.add(request, 0, encoder.controlDataLength(request));
            request.issuedBlocks = 1;
        } else {
            final int limit = encoder.maxCommandBytes(request);
            final int blocks = (int) Math.min(request.blocks - request.issuedBlocks, limit / request.blockSize);
            final boolean whole = request.issuedBlocks == 0 && blocks == request.blocks;
            c.add(request, request.issuedBlocks * request.blockSize, blocks * request.blockSize);
            request.issuedBlocks += blocks;
            if (whole && (request.rkey == RegisteredMemory.NOT_REGISTERED || encoder.carriesSeveralBuffers())) {
                scheduler.mergeFollowing(request, c, limit);
            }
        }
        send(request, c);
    }

    /** Builds {@code c}'s command ({@code request} its first part) and chains its SEND; it takes a credit. */
    private void send(final IoRequest request, final OutstandingCommand c) {
        final int iuBytes = encoder.encode(request, c);
        credits.take();
        commandsIssued++;
        sendQueue.chainCommand(c.send, encoder.ius(), encoder.iuOffset(c), iuBytes, c.index);
    }
}

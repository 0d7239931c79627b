package org.rdmablock.initiator;

import org.rdmablock.verbs.CompletionQueue;
import org.rdmablock.verbs.ConnectionId;
import org.rdmablock.verbs.QueuePair;

/**
 * A logged-in connection as a login hands it to a channel (made on the connecting or agent thread, immutable): the
 * connection, its QP and CQ, the credits the SRP_LOGIN_RSP granted and the largest write it may carry as immediate
 * data (0: none).
 */
record ChannelLink(ConnectionId connection, QueuePair queuePair, CompletionQueue completionQueue, int credits,
                   int immediateLimit) {
}

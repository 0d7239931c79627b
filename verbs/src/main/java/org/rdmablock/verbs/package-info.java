/**
 * A Java verbs API: RDMA devices, protection domains, memory regions and windows, completion queues, queue
 * pairs, shared receive queues, work requests and a connection manager, with libibverbs / librdmacm
 * semantics so that a provider over real hardware is a thin mapping.
 *
 * <p>Entry point: {@link org.rdmablock.verbs.VerbsProvider#load(String)}. The hot path
 * ({@link org.rdmablock.verbs.QueuePair#postSend}, {@link org.rdmablock.verbs.QueuePair#postReceive},
 * {@link org.rdmablock.verbs.CompletionQueue#poll}) allocates nothing: work requests are reusable objects
 * and completions are read through the {@link org.rdmablock.verbs.WorkCompletions} flyweight.
 *
 * <p>Semantics follow the rdma-core man pages: ibv_post_send(3), ibv_post_recv(3), ibv_poll_cq(3),
 * ibv_modify_qp(3), ibv_reg_mr(3), ibv_bind_mw(3), rdma_cm(7).
 */
package org.rdmablock.verbs;

package org.rdmablock.initiator;

import org.rdmablock.verbs.CompletionChannel;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One logged-in channel (an SRP channel or an NVMe I/O queue) as its session sees it, called from any thread: assembles the channel's parts, starts its
 * agent thread, and takes the submissions, caller-driven polls, statistics queries and the close.
 *
 * <pre>
 *  submitting threads ─► SubmissionRing (multi-producer, preallocated IoRequests) ─┐
 *                                                                                  ▼
 *  ChannelAgent (duty cycle):
 *    ChannelReceiver: CQ ─► SrpInbound: SRP_RSP ─► ResponseMatcher ─► copy-out, credits ─► RequestCompleter ─► IoCallback
 *                                       SRP_CRED_REQ / SRP_AER_REQ ─► Credits, ControlIus answer; SRP_T_LOGOUT ─► lost
 *                           NvmeInbound: completion ─► ResponseMatcher, a credit back
 *    Reconnection (lost: retry queue, login again, down) · TaskManagement (timeouts: ABORT TASK, LUN RESET)
 *    CommandIssuer: RetryQueue, RequestScheduler (read priority, merging) ─► CommandEncoder ─► SendQueue ─► target
 * </pre>
 *
 * <p>Everything mutable but the ring belongs to the agent thread, so the data path has no lock; submitters meet the
 * agent only in the ring and, when it sleeps for lack of work, in one wakeup ({@link AgentWakeup}). Nothing is
 * allocated per I/O: requests, commands, IUs, bounce buffers and work requests are made when the channel is. The parts
 * form no cycle: each is given the parts it uses, none calls back into the one that uses it.
 *
 * <p>With {@link InitiatorConfig.Waiting#CALLER} the channel has no thread: whoever calls {@link #drive} runs one duty
 * cycle (one thread at a time: a CAS on {@link #driver}, a thread that finds another driving goes on), so an
 * application thread that submits and polls does the whole I/O itself, with no hand-off to another thread.
 */
final class InitiatorChannel {
    private static final Logger LOG = LoggerFactory.getLogger(InitiatorChannel.class);
    private static final VarHandle DRIVER;

    static {
        try {
            DRIVER = MethodHandles.lookup().findVarHandle(InitiatorChannel.class, "driver", Thread.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final int index;
    /** An NVMe I/O queue (no logout: the host just disconnects it), else an SRP channel. */
    private final boolean nvme;
    /** The agent thread; null when the callers drive the channel ({@link InitiatorConfig.Waiting#CALLER}). */
    private final Thread thread;
    private final AgentWakeup wakeup;
    private final ChannelState state;
    private final SubmissionRing submissions;
    private final CommandTable table;
    private final ControlIus control;
    private final ChannelReceiver receiver;
    private final RequestScheduler scheduler;
    private final CommandIssuer issuer;
    private final TaskManagement taskManagement;
    private final Reconnection reconnection;
    private final ChannelAgent agent;
    /** The thread now running a duty cycle of a caller-driven channel, or null. */
    @SuppressWarnings("unused") // through DRIVER
    private volatile Thread driver;

    /**
     * @param link        the logged-in connection: QP, CQ, the credits and immediate data the LOGIN_RSP granted
     * @param events      the event channel of the channel's CQs ({@link InitiatorConfig.Waiting#EVENTS}), or null
     * @param reconnector logs in again when the connection is lost
     * @param ownThread   whether the channel has an agent thread (else the callers drive it)
     */
    InitiatorChannel(final int index, final ChannelLink link, final ChannelMemory memory, final int queueDepth,
                     final int ringSize, final int sendQueueSize, final boolean merge, final boolean readPriority,
                     final FaultPolicy faults, final CompletionChannel events, final Reconnector reconnector,
                     final boolean ownThread, final InitiatorConfig.Protocol protocol) {
        this.index = index;
        this.nvme = protocol == InitiatorConfig.Protocol.NVME;
        this.thread = ownThread ? Thread.ofPlatform().daemon().name((nvme ? "nvme-initiator-" : "srp-initiator-") + index)
                .unstarted(this::runAgent) : null;
        this.wakeup = new AgentWakeup(events, thread);
        this.state = new ChannelState(index, link, wakeup);
        this.submissions = new SubmissionRing(ringSize, wakeup);
        this.table = new CommandTable(queueDepth);
        final RetryQueue retryQueue = new RetryQueue(queueDepth * OutstandingCommand.MAX_PARTS);
        final Credits credits = new Credits(link.credits(), nvme ? 0 : Credits.TASK_MANAGEMENT_RESERVE);
        final SendQueue sendQueue = new SendQueue(state, sendQueueSize);
        this.control = new ControlIus(sendQueue, memory.ius(), memory.iuLength(), queueDepth);
        final CommandEncoder encoder = nvme ? new NvmeCommandEncoder(memory, link.immediateLimit())
                : new SrpCommandEncoder(memory, link.immediateLimit());
        this.scheduler = new RequestScheduler(submissions.ring(), merge, readPriority);
        final RequestCompleter completer = new RequestCompleter(submissions.ring(), submissions.answered());
        this.taskManagement = new TaskManagement(state, table, credits, control, retryQueue, faults, !nvme);
        final ResponseMatcher matcher = new ResponseMatcher(index, table, completer, retryQueue, memory);
        final ReceiveBuffers receives = new ReceiveBuffers(state, memory);
        final InboundHandler inbound = nvme ? new NvmeInbound(state, matcher, credits, receives)
                : new SrpInbound(state, matcher, credits, control, taskManagement, receives, reconnector);
        this.receiver = new ChannelReceiver(state, sendQueue, inbound, memory);
        this.issuer = new CommandIssuer(state, scheduler, retryQueue, table, credits, sendQueue, encoder, completer,
                faults.maxRetries());
        this.reconnection = new Reconnection(state, table, retryQueue, taskManagement, credits, sendQueue, encoder,
                reconnector, memory, events, faults);
        this.agent = new ChannelAgent(state, wakeup, table, retryQueue, sendQueue, scheduler, completer, receiver, issuer,
                taskManagement, reconnection);
        link.connection().onDisconnect(c -> state.connectionLost(c, "the connection was disconnected"));
    }

    private void runAgent() {
        agent.run();
    }

    void start() {
        if (thread != null) {
            thread.start();
        }
    }

    /** The agent thread (null when the callers drive the channel). */
    Thread thread() {
        return thread;
    }

    /**
     * Submitting thread: claims a ring slot, waiting while the ring is full of unanswered requests. A callback (this
     * channel's own thread, the only one that frees slots) must not wait: it gets an {@link IllegalStateException}.
     */
    long claim() {
        if (thread == null) {
            return claimDriving();
        }
        if (Thread.currentThread() == thread) {
            final long sequence = submissions.tryClaim();
            if (sequence < 0) {
                throw new IllegalStateException("channel " + index + "'s ring is full of unanswered requests: a callback"
                        + " cannot wait for room, since only its own thread makes it; submit from another thread");
            }
            return sequence;
        }
        return submissions.claim();
    }

    /** Caller-driven: claims a slot; while the ring is full, drives the channel (which answers and frees slots). */
    private long claimDriving() {
        while (true) {
            final long sequence = submissions.tryClaim();
            if (sequence >= 0) {
                return sequence;
            }
            if (drivenByCurrentThread()) {
                throw new IllegalStateException("channel " + index + "'s ring is full of unanswered requests: a"
                        + " callback cannot wait for room, since the poll that runs it makes it; submit after it returns");
            }
            if (drive() == 0) {
                Thread.onSpinWait();
            }
        }
    }

    /** The request in a claimed slot, for the submitter to fill. */
    IoRequest request(final long sequence) {
        return submissions.request(sequence);
    }

    /** Submitting thread: hands the filled request over and wakes the agent if it sleeps. */
    void publish(final long sequence) {
        submissions.publish(sequence);
    }

    /** Whether the calling thread is running a duty cycle of this caller-driven channel (so: inside a callback). */
    boolean drivenByCurrentThread() {
        return driver == Thread.currentThread();
    }

    /**
     * Caller-driven: one duty cycle on the calling thread (sends what was submitted, takes the answers and calls their
     * callbacks here, checks timeouts, reconnects). Returns the work done; 0 at once when another thread is driving
     * the channel or it was stopped.
     */
    int drive() {
        if (!state.isRunning() || !DRIVER.compareAndSet(this, null, Thread.currentThread())) {
            return 0;
        }
        try {
            return agent.dutyCycle();
        } finally {
            DRIVER.setVolatile(this, null);
        }
    }

    /** Commands sent (statistics). */
    long commandsIssued() {
        return issuer.commandsIssued();
    }

    /** Requests that rode in another's command (merging; statistics). */
    long mergedRequests() {
        return scheduler.mergedRequests();
    }

    long aborts() {
        return taskManagement.aborts();
    }

    long lunResets() {
        return taskManagement.lunResets();
    }

    long reconnects() {
        return reconnection.reconnects();
    }

    /** Command parts sent again. */
    long retries() {
        return issuer.retries();
    }

    /**
     * Ends the channel: waits up to {@code drainMillis} for what is in flight, sends SRP_I_LOGOUT (SRP only), stops
     * the agent (requests still queued fail) and disconnects.
     */
    void stop(final long drainMillis) {
        final long deadline = System.nanoTime() + drainMillis * 1_000_000;
        while ((thread == null || thread.isAlive()) && (table.inFlight() > 0 || !submissions.allAnswered())
                && System.nanoTime() < deadline && !state.isLost()) {
            if (thread == null) {
                if (drive() == 0) {
                    LockSupport.parkNanos(50_000);
                }
            } else {
                LockSupport.parkNanos(1_000_000);
            }
        }
        state.stopRunning();
        wakeup.wake();
        if (thread != null) {
            try {
                thread.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        } else {
            // caller-driven: wait out a duty cycle under way (no new one starts; a reconnect in it ends after its
            // current attempt, since the channel no longer runs), then answer what is left, as the agent thread does
            // when it stops; the channel stays taken. Never without the channel: two threads would answer the same
            // commands.
            long waitedFrom = System.nanoTime();
            while (!DRIVER.compareAndSet(this, null, Thread.currentThread())) {
                if (System.nanoTime() - waitedFrom > 5_000_000_000L) {
                    LOG.warn("channel " + index + ": closing waits for a poll still running on " + driver);
                    waitedFrom = System.nanoTime();
                }
                LockSupport.parkNanos(100_000);
            }
            agent.failEverything(new SrpIoException("channel " + index + " closed"));
        }
        if (!state.isLost() && !nvme) {
            // SRP_I_LOGOUT (SRP r16a 6.7), then the disconnect; the agent has stopped, so this thread may post
            control.sendLogout();
            receiver.awaitControlSent(deadline + 1_000_000_000L);
        }
        state.disconnect();
        state.closeConnection();
    }
}

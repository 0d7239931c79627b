package org.rdmablock.initiator;

import com.lmax.disruptor.RingBuffer;
import com.lmax.disruptor.Sequence;
import org.rdmablock.protocol.scsi.SenseData;
import org.rdmablock.protocol.srp.SrpAerResponse;
import org.rdmablock.protocol.srp.SrpBufferFormat;
import org.rdmablock.protocol.srp.SrpCommand;
import org.rdmablock.protocol.srp.SrpCreditResponse;
import org.rdmablock.protocol.srp.SrpDecodeError;
import org.rdmablock.protocol.srp.SrpDirectBuffer;
import org.rdmablock.protocol.srp.SrpIndirectBuffer;
import org.rdmablock.protocol.srp.SrpInitiatorLogout;
import org.rdmablock.protocol.srp.SrpIuDecoder;
import org.rdmablock.protocol.srp.SrpOpcode;
import org.rdmablock.protocol.srp.SrpResponse;
import org.rdmablock.protocol.srp.SrpTaskManagement;
import org.rdmablock.verbs.CompletionChannel;
import org.rdmablock.verbs.CompletionQueue;
import org.rdmablock.verbs.ConnectionId;
import org.rdmablock.verbs.MemoryRegion;
import org.rdmablock.verbs.QueuePair;
import org.rdmablock.verbs.ReceiveWorkRequest;
import org.rdmablock.verbs.SendFlags;
import org.rdmablock.verbs.SendOpcode;
import org.rdmablock.verbs.SendWorkRequest;
import org.rdmablock.verbs.WorkCompletions;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One logged-in SRP channel and the thread that drives it: a duty-cycle agent that takes submissions from the
 * channel's ring, issues them as SRP_CMDs within the target's credits, polls the completion queue, matches responses to
 * their commands by tag and calls the callers back.
 *
 * <pre>
 *  submitting threads ─► ring (multi-producer, preallocated IoRequests) ─┐
 *                                                                        ▼
 *  agent thread:  startRequests: IoRequest ─► OutstandingCommand (tag, IU, bounce) ─► SEND SRP_CMD ─► target
 *                 pollCompletions: RECV SRP_RSP ─► tag ─► command ─► copy-out, credits ─► IoRequest done ─► IoCallback
 *                                  RECV SRP_CRED_REQ / SRP_AER_REQ ─► credits, SEND the answer; SRP_T_LOGOUT ─► lost
 * </pre>
 *
 * <p>Everything mutable but the ring belongs to the agent thread, so the data path has no lock; submitters meet the
 * agent only in the ring (a CAS to claim a slot) and, when it is parked for lack of work, in one unpark. The ring's
 * gating sequence advances over requests once they are called back, in order, so a submitter waits only when a whole
 * ring of requests is unanswered. Nothing is allocated per I/O: requests, commands, IUs, bounce buffers and work
 * requests are made when the channel is.
 *
 * <p>With {@link InitiatorConfig.Waiting#CALLER} the channel has no thread: whoever calls {@link #drive} runs one duty
 * cycle (one thread at a time: a CAS on {@link #driver}, a thread that finds another driving goes on), so an
 * application thread that submits and polls does the whole I/O itself, with no hand-off to another thread.
 */
final class InitiatorChannel implements Runnable {
    private static final Logger LOG = Logger.getLogger(InitiatorChannel.class.getName());
    /** Work request id kinds (high 32 bits). */
    static final long SEND_KIND = 1L << 32;
    static final long RECEIVE_KIND = 2L << 32;
    static final long CONTROL_KIND = 3L << 32;
    /** IU buffers for what the initiator sends beyond commands: SRP_CRED_RSP, SRP_AER_RSP, SRP_I_LOGOUT. */
    static final int CONTROL_IUS = 4;
    /** Receives beyond the queue depth: the target's own requests (credit, AER, logout) need a buffer too. */
    static final int SPARE_RECEIVES = 4;
    /** Credits held back from commands, as Linux's ib_srp does, so that task management always has one. */
    static final int TASK_MANAGEMENT_RESERVE = 1;
    /** Where the target finds immediate data in an SRP_CMD: Linux ib_srp's offset, what the login asks for. */
    static final int IMMEDIATE_DATA_OFFSET = 68;
    /** How far ahead of the oldest waiting request read priority looks for a read. */
    static final int SCHEDULING_WINDOW = 64;
    /** Reads that may start ahead of one waiting write (read priority), so that writes are not starved. */
    static final int MAX_PASSED = 8;
    /** How often the agent looks for commands past the command timeout. */
    static final long TIMEOUT_CHECK_NANOS = 50_000_000;
    /** First wait between reconnect attempts; doubled each time up to {@link #MAX_RECONNECT_BACKOFF_NANOS}. */
    static final long RECONNECT_BACKOFF_NANOS = 100_000_000;
    static final long MAX_RECONNECT_BACKOFF_NANOS = 2_000_000_000;
    /**
     * How often a channel that is down (lost, and not back within the reconnect timeout) tries to log in again: its
     * requests fail at once meanwhile, as Linux ib_srp's do after {@code fast_io_fail_tmo}, and the first login that
     * succeeds brings it back. Default 5 s: a dead target costs one refused connection per interval.
     */
    static final long DOWN_LOGIN_INTERVAL_NANOS = 5_000_000_000L;
    /** Task management requests carry this bit in their tag, so that their responses are told from commands'. */
    static final long TM_TAG = 1L << 62;
    /** Polls without work before the agent yields its core, then parks when nothing is in flight. */
    private static final int SPINS_BEFORE_YIELD = 64;
    private static final long PARK_NANOS = 1_000_000;
    /** Longest event wait with commands in flight: the command timeout is checked this often. */
    private static final java.time.Duration EVENT_WAIT_IN_FLIGHT = java.time.Duration.ofNanos(TIMEOUT_CHECK_NANOS);
    private static final java.time.Duration EVENT_WAIT_IDLE = java.time.Duration.ofMillis(100);

    final int index;
    /** The current connection, its QP and CQ: replaced by a reconnect (agent thread; read by {@link #stop}). */
    private volatile ConnectionId connection;
    private QueuePair queuePair;
    private CompletionQueue completionQueue;
    final RingBuffer<IoRequest> ring;
    private final Sequence answered = new Sequence(-1);
    private long nextToStart;
    private IoRequest current;

    private final MemoryRegion ius;
    private final MemoryRegion receiveRegion;
    private final MemoryRegion bounce;
    private final int iuLength;
    private final int receiveLength;
    private final int bounceBytes;
    /** Largest write carried as immediate data, or 0 when the target did not grant it. */
    private int immediateLimit;

    private final OutstandingCommand[] commands;
    private final int[] freeCommands;
    private int freeCount;
    /** Slots held out of use after an abort (agent thread; read by {@link #inFlight} as a snapshot). */
    private volatile int quarantinedCount;
    private final ReceiveWorkRequest[] receives;
    private final SendWorkRequest[] controlSends = new SendWorkRequest[CONTROL_IUS];
    private int controlNext;
    private int credits;
    /** SENDs posted and not completed yet: a SEND's queue entry outlives its command when the response is faster. */
    private int sendsOutstanding;
    /** Command SENDs posted unsignaled since the last signaled one, which retires them all (RC completes in order). */
    private int unsignaled;
    /** A command SEND is signaled at least this often, so that the send queue's entries come back. */
    static final int SIGNAL_INTERVAL = 16;
    private final int sendQueueSize;
    private final int signalInterval;
    private final WorkCompletions completions = new WorkCompletions(32);
    private final SrpIuDecoder decoder = new SrpIuDecoder();
    private final SrpCommand command = new SrpCommand();
    private final SrpDirectBuffer direct = new SrpDirectBuffer();
    private final SrpIndirectBuffer indirect = new SrpIndirectBuffer();
    private final SrpCreditResponse creditResponse = new SrpCreditResponse();
    private final SrpAerResponse aerResponse = new SrpAerResponse();

    /** The agent thread; null when the callers drive the channel ({@link InitiatorConfig.Waiting#CALLER}). */
    private final Thread thread;
    /** The SENDs of the commands issued in this duty cycle, chained for one post; null when none waits. */
    private SendWorkRequest pendingSends;
    private SendWorkRequest lastPendingSend;
    /** The thread now running a duty cycle of a caller-driven channel, or null. */
    private volatile Thread driver;
    private volatile boolean running = true;
    private volatile boolean parked;
    /** Set by the connection's disconnect handler (a provider thread); the agent fails what is in flight. */
    private volatile String lostBecause;
    /** Set once the channel failed: requests from now on fail at once (until a login again, when it is {@link #down}). */
    private SrpIoException failed;
    /** The channel is down, not failed for good: it tries to log in again every {@link #DOWN_LOGIN_INTERVAL_NANOS}. */
    private boolean down;
    private long downSinceNanos;
    private long nextLoginNanos;
    /** The target's address as the lost connection had it, for the log lines of a down channel. */
    private String downTarget;
    /** The agent's count of commands issued (statistics). */
    volatile long commandsIssued;
    /** Requests that rode in another's command (merging; statistics). */
    volatile long mergedRequests;
    private final boolean merge;
    private final boolean readPriority;
    private final Faults faults;
    /** With {@link InitiatorConfig.Waiting#EVENTS}: the event channel of every CQ this channel has; else null. */
    private final CompletionChannel events;
    private final Reconnector reconnector;
    /** Parts of requests whose command was aborted or whose channel was lost, to be sent again, FIFO. */
    private final IoRequest[] retryRequest;
    private final long[] retryOffset;
    private final int[] retryLength;
    private int retryHead;
    private int retryCount;
    private long nextTimeoutCheck;
    /** The task management request in flight (one at a time): its function, LUN and the command it is about. */
    private int tmFunction = -1;
    private long tmLun;
    private OutstandingCommand tmCommand;
    private long tmSentNanos;
    private final SrpTaskManagement taskManagement = new SrpTaskManagement();
    /** Statistics: ABORT TASKs, LUN RESETs, reconnects, parts sent again. */
    volatile long aborts;
    volatile long lunResets;
    volatile long reconnects;
    volatile long retries;

    /**
     * @param link        the logged-in connection: QP, CQ, the credits and immediate data the LOGIN_RSP granted
     * @param reconnector logs in again when the connection is lost
     */
    InitiatorChannel(final int index, final Link link, final ChannelMemory memory, final int queueDepth, final int ringSize,
                     final int sendQueueSize, final boolean merge, final boolean readPriority, final Faults faults,
                     final CompletionChannel events, final Reconnector reconnector, final boolean ownThread) {
        this.index = index;
        this.connection = link.connection();
        this.queuePair = link.queuePair();
        this.completionQueue = link.completionQueue();
        this.faults = faults;
        this.events = events;
        this.reconnector = reconnector;
        this.retryRequest = new IoRequest[queueDepth * OutstandingCommand.MAX_PARTS];
        this.retryOffset = new long[retryRequest.length];
        this.retryLength = new int[retryRequest.length];
        this.ius = memory.ius();
        this.receiveRegion = memory.receives();
        this.bounce = memory.bounce();
        this.iuLength = memory.iuLength();
        this.receiveLength = memory.receiveLength();
        this.bounceBytes = memory.bounceBytes();
        this.immediateLimit = link.immediateLimit();
        this.credits = link.credits();
        this.sendQueueSize = sendQueueSize;
        // half the entries commands may use, so that a signaled SEND always comes before they run out
        this.signalInterval = Math.max(1, Math.min(SIGNAL_INTERVAL, (sendQueueSize - CONTROL_IUS) / 2));
        this.merge = merge;
        this.readPriority = readPriority;
        this.commands = new OutstandingCommand[queueDepth];
        this.freeCommands = new int[queueDepth];
        for (int i = 0; i < queueDepth; i++) {
            commands[i] = new OutstandingCommand(i);
            freeCommands[i] = queueDepth - 1 - i;
        }
        this.freeCount = queueDepth;
        this.receives = memory.receiveRequests();
        for (int i = 0; i < CONTROL_IUS; i++) {
            controlSends[i] = new SendWorkRequest(1);
        }
        this.ring = RingBuffer.createMultiProducer(IoRequest::new, ringSize);
        ring.addGatingSequences(answered);
        this.thread = ownThread ? Thread.ofPlatform().daemon().name("srp-initiator-" + index).unstarted(this) : null;
    }

    /** A logged-in connection: what a login (or a reconnect) hands the channel. */
    record Link(ConnectionId connection, QueuePair queuePair, CompletionQueue completionQueue, int credits, int immediateLimit) {
    }

    /** Logs channel {@code index} in again over a new connection, posting {@code receives} on its QP first. */
    @FunctionalInterface
    interface Reconnector {
        Link reconnect(int index, InitiatorChannel channel, ReceiveWorkRequest[] receives) throws SrpIoException;
    }

    /** How the channel handles commands that get no answer and connections that are lost. */
    record Faults(long commandTimeoutNanos, long taskManagementTimeoutNanos, long reconnectTimeoutNanos, int maxRetries) {
    }

    /** The registered memory of one channel, made (and closed) by the {@link SrpInitiator}. */
    record ChannelMemory(MemoryRegion ius, int iuLength, MemoryRegion receives, int receiveLength,
                         ReceiveWorkRequest[] receiveRequests, MemoryRegion bounce, int bounceBytes) {
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
            try {
                return ring.tryNext();
            } catch (com.lmax.disruptor.InsufficientCapacityException e) {
                throw new IllegalStateException("channel " + index + "'s ring is full of unanswered requests: a callback"
                        + " cannot wait for room, since only its own thread makes it; submit from another thread");
            }
        }
        return ring.next();
    }

    /** Whether the calling thread is running a duty cycle of this caller-driven channel (so: inside a callback). */
    boolean drivenByCurrentThread() {
        return driver == Thread.currentThread();
    }

    /** Caller-driven: claims a slot; while the ring is full, drives the channel (which answers and frees slots). */
    private long claimDriving() {
        while (true) {
            try {
                return ring.tryNext();
            } catch (com.lmax.disruptor.InsufficientCapacityException e) {
                if (driver == Thread.currentThread()) {
                    throw new IllegalStateException("channel " + index + "'s ring is full of unanswered requests: a"
                            + " callback cannot wait for room, since the poll that runs it makes it; submit after it returns");
                }
                if (drive() == 0) {
                    Thread.onSpinWait();
                }
            }
        }
    }

    /**
     * Caller-driven: one duty cycle on the calling thread (sends what was submitted, takes the answers and calls their
     * callbacks here, checks timeouts, reconnects). Returns the work done; 0 at once when another thread is driving
     * the channel or it was stopped.
     */
    int drive() {
        if (!running || !DRIVER.compareAndSet(this, null, Thread.currentThread())) {
            return 0;
        }
        try {
            return guardedWork();
        } finally {
            DRIVER.setVolatile(this, null);
        }
    }

    private static final java.lang.invoke.VarHandle DRIVER;

    static {
        try {
            DRIVER = java.lang.invoke.MethodHandles.lookup().findVarHandle(InitiatorChannel.class, "driver", Thread.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Submitting thread: hands the filled request over and wakes the agent if it sleeps. */
    void publish(final long sequence) {
        ring.publish(sequence);
        // Dekker with the agent's "parked = true, then look at the ring": the ring's release store must be visible
        // before `parked` is read, or both may miss the other and the request waits out the agent's sleep
        java.lang.invoke.VarHandle.fullFence();
        if (parked) {
            wake();
        }
    }

    /** Wakes the agent from its sleep: in the event channel, or parked. Any thread. */
    private void wake() {
        if (events != null) {
            events.wakeup();
        } else {
            LockSupport.unpark(thread);
        }
    }

    /** The completion event channel the channel's CQs are made with, or null (a reconnect makes the new CQ on it). */
    CompletionChannel events() {
        return events;
    }

    /** Commands in flight now (a snapshot, any thread). */
    int inFlight() {
        return commands.length - freeCount - quarantinedCount;
    }

    /** The agent's loop: one duty cycle after another until {@link #stop}. */
    @Override
    public void run() {
        int idle = 0;
        while (running) {
            final int work = guardedWork();
            if (work > 0) {
                idle = 0;
            } else if (++idle < SPINS_BEFORE_YIELD) {
                Thread.onSpinWait();
            } else if (events != null) {
                // sleeps only in the event channel, where a completion or a submission's wakeup ends the sleep (a
                // park here would outlast a submission: its wakeup goes to the event channel, not to the park)
                idle = awaitEvent() ? 0 : idle;
            } else if (inFlight() > 0) {
                Thread.yield(); // commands in flight: their responses come soon
            } else {
                parked = true;
                java.lang.invoke.VarHandle.fullFence(); // the other half of publish()'s fence: parked before the ring's look
                if (!ring.isAvailable(nextToStart) && current == null) {
                    LockSupport.parkNanos(this, PARK_NANOS);
                }
                parked = false;
            }
        }
        failEverything(new SrpIoException("channel " + index + " closed"));
    }

    /**
     * Event waiting: arms the CQ, looks once more (a completion or a submission just before arming raises no event or
     * wakeup), then sleeps in the event channel until a completion, a submission or the timeout check. Returns
     * whether it slept.
     */
    private boolean awaitEvent() {
        if (failed != null || lostBecause != null) {
            LockSupport.parkNanos(this, PARK_NANOS); // nothing to arm: the connection is gone
            return false;
        }
        completionQueue.requestNotify(false);
        parked = true;
        try {
            if (pollCompletions() + startRequests() > 0 || !running) {
                return false;
            }
            events.awaitEvent(inFlight() > 0 ? EVENT_WAIT_IN_FLIGHT : EVENT_WAIT_IDLE);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } finally {
            parked = false;
        }
    }

    /** {@link #doWork}, failing the channel (everything answered) when it throws: no caller may be left waiting. */
    private int guardedWork() {
        try {
            return doWork();
        } catch (RuntimeException e) {
            LOG.log(Level.SEVERE, "channel " + index + " failed", e);
            failed = new SrpIoException("channel " + index + " failed: " + e, e);
            failEverything(failed);
            return 1;
        }
    }

    /** One duty cycle: completions first (they free credits), then new commands. Returns the work done. */
    int doWork() {
        int work = pollCompletions();
        final String lost = lostBecause;
        if (lost != null && failed == null) {
            recover(lost);
            work++;
        } else if (down && running && System.nanoTime() - nextLoginNanos >= 0) {
            work += loginWhileDown();
        }
        if (failed == null && commands.length != freeCount) {
            final long now = System.nanoTime();
            if (now - nextTimeoutCheck >= 0) {
                nextTimeoutCheck = now + TIMEOUT_CHECK_NANOS;
                work += checkTimeouts(now);
            }
        }
        return work + startRequests();
    }

    /**
     * The connection is gone: every command in flight is to be sent again (reads, and writes the target never
     * answered: acknowledged ones are done); logs in again with back-off until the reconnect timeout, then fails
     * everything and is down: requests fail at once, and a login is tried again every
     * {@link #DOWN_LOGIN_INTERVAL_NANOS} ({@link #loginWhileDown}). Runs on the agent thread, which has nothing else to
     * do meanwhile; submitters wait in the ring.
     */
    private void recover(final String why) {
        final ConnectionId lost = connection;
        LOG.warning("channel " + index + " to " + lost.remoteAddress() + " lost: " + why + "; logging in again");
        requeueEverything();
        closeConnection();
        final long deadline = System.nanoTime() + faults.reconnectTimeoutNanos();
        long backoff = RECONNECT_BACKOFF_NANOS;
        SrpIoException last = null;
        while (running && System.nanoTime() < deadline) {
            try {
                loggedIn(reconnector.reconnect(index, this, receives));
                LOG.info("channel " + index + " logged in again to " + connection.remoteAddress() + "; sending "
                        + retryCount + " command part(s) again");
                return;
            } catch (SrpIoException e) {
                last = e;
                LockSupport.parkNanos(Math.min(backoff, Math.max(0, deadline - System.nanoTime())));
                backoff = Math.min(backoff * 2, MAX_RECONNECT_BACKOFF_NANOS);
            }
        }
        failed = new SrpIoException("channel " + index + " to " + lost.remoteAddress() + " lost: " + why
                + (last != null ? "; no login again within " + java.time.Duration.ofNanos(faults.reconnectTimeoutNanos())
                + " (last: " + last.getMessage() + ")" : ""), last);
        if (running) {
            down = true;
            downTarget = String.valueOf(lost.remoteAddress());
            downSinceNanos = System.nanoTime();
            nextLoginNanos = downSinceNanos + DOWN_LOGIN_INTERVAL_NANOS;
            LOG.warning("channel " + index + " to " + downTarget + " is down: no login again within "
                    + java.time.Duration.ofNanos(faults.reconnectTimeoutNanos()) + "; its requests fail until one succeeds (tried every "
                    + java.time.Duration.ofNanos(DOWN_LOGIN_INTERVAL_NANOS) + ")");
        }
        failEverything(failed);
    }

    /**
     * A down channel's login attempt (agent thread, with nothing in flight: everything was answered when it went down).
     * Returns 1 when the channel is back, 0 when the target is still away (the next attempt after the interval).
     */
    private int loginWhileDown() {
        final Link link;
        try {
            link = reconnector.reconnect(index, this, receives);
        } catch (SrpIoException e) {
            nextLoginNanos = System.nanoTime() + DOWN_LOGIN_INTERVAL_NANOS;
            LOG.fine("channel " + index + " to " + downTarget + " still down: " + e.getMessage());
            return 0;
        }
        loggedIn(link);
        down = false;
        failed = null;
        LOG.info("channel " + index + " logged in again to " + connection.remoteAddress() + " after "
                + TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - downSinceNanos) + " s down");
        return 1;
    }

    /** Takes a new logged-in connection: the channel's QP, CQ, credits and limits from now on. */
    private void loggedIn(final Link link) {
        connection = link.connection();
        queuePair = link.queuePair();
        completionQueue = link.completionQueue();
        credits = link.credits();
        immediateLimit = link.immediateLimit();
        sendsOutstanding = 0;
        unsignaled = 0;
        lostBecause = null;
        reconnects++;
    }

    /** Every command in flight goes to the retry queue, its slot freed (the old QP is gone, so nothing lands late). */
    private void requeueEverything() {
        for (final OutstandingCommand c : commands) {
            for (int i = 0; i < c.partCount; i++) {
                requeue(c.parts[i], c.partOffset[i], c.partLength[i]);
            }
            if (c.inUse() || c.quarantined) {
                if (c.quarantined) {
                    quarantinedCount--;
                }
                c.quarantined = false;
                c.aborting = false;
                release(c);
            }
        }
        tmFunction = -1;
        tmCommand = null;
    }

    private void requeue(final IoRequest request, final long offset, final int length) {
        final int at = (retryHead + retryCount) % retryRequest.length;
        retryRequest[at] = request;
        retryOffset[at] = offset;
        retryLength[at] = length;
        retryCount++;
    }

    /**
     * A command past the command timeout gets ABORT TASK; task management that got no answer in time escalates:
     * after an ABORT TASK, LUN RESET; after a LUN RESET, a reconnect. One task management request at a time.
     */
    private int checkTimeouts(final long now) {
        if (tmFunction >= 0) {
            if (now - tmSentNanos > faults.taskManagementTimeoutNanos()) {
                if (tmFunction == SrpTaskManagement.ABORT_TASK) {
                    LOG.warning("channel " + index + ": ABORT TASK got no answer; LUN RESET");
                    sendTaskManagement(SrpTaskManagement.LUN_RESET, tmLun, null, now);
                } else {
                    lostBecause = "LUN RESET got no answer within " + java.time.Duration.ofNanos(faults.taskManagementTimeoutNanos());
                }
                return 1;
            }
            return 0;
        }
        for (final OutstandingCommand c : commands) {
            if (c.inUse() && !c.aborting && now - c.startNanos > faults.commandTimeoutNanos()) {
                LOG.warning("channel " + index + ": " + c.parts[0].describe() + " got no answer within "
                        + java.time.Duration.ofNanos(faults.commandTimeoutNanos()) + "; ABORT TASK");
                sendTaskManagement(SrpTaskManagement.ABORT_TASK, c.parts[0].lunField, c, now);
                return 1;
            }
        }
        return 0;
    }

    /** Sends SRP_TSK_MGMT (it takes the credit held back for it) from a control IU. */
    private void sendTaskManagement(final int function, final long lun, final OutstandingCommand about, final long now) {
        tmFunction = function;
        tmLun = lun;
        tmCommand = about;
        tmSentNanos = now;
        if (about != null) {
            about.aborting = true;
            aborts++;
        } else {
            lunResets++;
        }
        final int slot = nextControlSlot();
        taskManagement.wrap(ius.segment(), controlOffset(slot)).reset();
        taskManagement.setTag(TM_TAG | (about != null ? about.tag : 0)).setLun(lun).setFunction(function)
                .setTaskTag(about != null ? about.tag : 0);
        credits--;
        postControl(slot, SrpTaskManagement.LENGTH);
    }

    /** The answer to our task management request. */
    private void taskManagementAnswered(final SrpResponse response) {
        final int function = tmFunction;
        final OutstandingCommand about = tmCommand;
        tmFunction = -1;
        tmCommand = null;
        final boolean complete = (response.flags() & SrpResponse.FLAG_RSPVALID) == 0
                || response.responseCode() == SrpTaskManagement.RSP_COMPLETE;
        if (function == SrpTaskManagement.ABORT_TASK) {
            if (about == null || !about.inUse() || about.tag != (response.tag() & ~TM_TAG)) {
                return; // the command was answered meanwhile
            }
            if (complete) {
                quarantine(about);
            } else {
                LOG.warning("channel " + index + ": ABORT TASK answered " + response.responseCode() + "; LUN RESET");
                sendTaskManagement(SrpTaskManagement.LUN_RESET, tmLun, null, System.nanoTime());
            }
        } else if (function == SrpTaskManagement.LUN_RESET) {
            if (!complete) {
                lostBecause = "LUN RESET answered " + response.responseCode();
                return;
            }
            for (final OutstandingCommand c : commands) {
                if (c.inUse() && c.parts[0].lunField == tmLun) {
                    quarantine(c);
                }
            }
        }
    }

    /**
     * An aborted command's parts go to the retry queue; its slot stays out of use until a late response for its tag
     * comes or the channel logs in again, since the target may still move data into its bounce buffer.
     */
    private void quarantine(final OutstandingCommand c) {
        for (int i = 0; i < c.partCount; i++) {
            requeue(c.parts[i], c.partOffset[i], c.partLength[i]);
        }
        for (int i = 0; i < c.partCount; i++) {
            c.parts[i] = null;
        }
        c.partCount = 0;
        c.length = 0;
        c.aborting = false;
        c.quarantined = true;
        quarantinedCount++;
    }

    private int pollCompletions() {
        if (failed != null) {
            return 0; // the connection and its CQ are closed
        }
        final int n = completionQueue.poll(completions, completions.capacity());
        for (int i = 0; i < n; i++) {
            final long id = completions.wrId(i);
            final long kind = id & 0xFFFF_FFFF_0000_0000L;
            if (!completions.isSuccess(i)) {
                if (lostBecause == null) {
                    lostBecause = "completion failed: " + completions.toString(i);
                }
                continue;
            }
            if (kind == RECEIVE_KIND) {
                received((int) id, completions.byteLength(i));
            } else {
                sendsOutstanding -= (int) (id >>> 16) & 0xFFFF; // the SENDs this signaled one retires
            }
        }
        return n;
    }

    private void received(final int receive, final int length) {
        final MemorySegment region = receiveRegion.segment();
        final long at = (long) receive * receiveLength;
        final SrpDecodeError error = decoder.decode(region, at, length);
        if (error != SrpDecodeError.NONE) {
            lostBecause = "the target sent an IU that does not decode (" + error + ", " + length + " bytes)";
            return;
        }
        switch (decoder.opcode()) {
            case SrpOpcode.RSP -> responded(decoder.response());
            case SrpOpcode.CRED_REQ -> {
                credits += decoder.creditRequest().requestLimitDelta();
                final long tag = decoder.creditRequest().tag();
                repost(receive);
                final int slot = nextControlSlot();
                creditResponse.wrap(ius.segment(), controlOffset(slot)).reset().setTag(tag);
                postControl(slot, SrpCreditResponse.LENGTH);
                return;
            }
            case SrpOpcode.AER_REQ -> {
                credits += decoder.aerRequest().requestLimitDelta();
                final long tag = decoder.aerRequest().tag();
                repost(receive);
                final int slot = nextControlSlot();
                aerResponse.wrap(ius.segment(), controlOffset(slot)).reset().setTag(tag);
                postControl(slot, SrpAerResponse.LENGTH);
                return;
            }
            case SrpOpcode.T_LOGOUT -> lostBecause = "the target logged the channel out (SRP_T_LOGOUT reason "
                    + decoder.targetLogout().reason() + ")";
            default -> lostBecause = "the target sent an IU an initiator does not take (opcode " + decoder.opcode() + ")";
        }
        repost(receive);
    }

    private void repost(final int receive) {
        if (failed == null) {
            try {
                queuePair.postReceive(receives[receive]);
            } catch (RuntimeException e) {
                lostBecause = "repost failed: " + e.getMessage();
            }
        }
    }

    /**
     * The next of the control IU buffers (SRP_CRED_RSP, SRP_AER_RSP, SRP_TSK_MGMT, SRP_I_LOGOUT), round robin: what
     * the initiator sends beyond commands, after the commands' IU buffers.
     */
    private int nextControlSlot() {
        final int slot = controlNext;
        controlNext = (controlNext + 1) % CONTROL_IUS;
        return slot;
    }

    private long controlOffset(final int slot) {
        return (long) (commands.length + slot) * iuLength;
    }

    /** Sends the first {@code length} bytes of control IU buffer {@code slot}, signaled. */
    private void postControl(final int slot, final int length) {
        final long offset = controlOffset(slot);
        final SendWorkRequest send = controlSends[slot];
        send.opcode(SendOpcode.SEND).flags(SendFlags.SIGNALED).next(null).wrId(CONTROL_KIND | retired() << 16 | slot);
        send.sgl().clear().add(ius, offset, length);
        sendsOutstanding++;
        try {
            queuePair.postSend(send);
        } catch (RuntimeException e) {
            lostBecause = "post failed: " + e.getMessage();
        }
    }

    /** An SRP_RSP: its command is answered; each request it carried completes when its last command is. */
    private void responded(final SrpResponse response) {
        credits += response.requestLimitDelta();
        final long tag = response.tag();
        if ((tag & TM_TAG) != 0) {
            taskManagementAnswered(response);
            return;
        }
        final int slot = (int) (tag & 0xFFFF);
        if (slot < commands.length && commands[slot].quarantined && commands[slot].tag == tag) {
            commands[slot].quarantined = false; // the aborted command's late answer: its parts went again already
            quarantinedCount--;
            freeCommands[freeCount++] = slot;
            return;
        }
        if (slot >= commands.length || !commands[slot].inUse() || commands[slot].tag != tag) {
            LOG.warning("channel " + index + ": a response for no command in flight (tag 0x" + Long.toHexString(tag) + ")");
            return;
        }
        final OutstandingCommand c = commands[slot];
        final int status = response.status();
        long moved = 0;
        if (status == 0) {
            moved = c.length;
            final int flags = response.flags();
            if (c.dataIn && (flags & SrpResponse.FLAG_DIUNDER) != 0) {
                moved -= response.dataInResidualCount();
            } else if (!c.dataIn && (flags & SrpResponse.FLAG_DOUNDER) != 0) {
                moved -= response.dataOutResidualCount();
            }
            moved = Math.max(0, Math.min(moved, c.length));
        }
        long bounceAt = (long) slot * bounceBytes;
        for (int i = 0; i < c.partCount; i++) {
            final IoRequest request = c.parts[i];
            if (status == 0) {
                final long part = Math.min(moved, c.partLength[i]); // an underflow shortens the parts at the end
                if (c.bounced && c.dataIn && part > 0) {
                    MemorySegment.copy(bounce.segment(), bounceAt, request.buffer, request.bufferOffset + c.partOffset[i], part);
                }
                request.bytesDone += part;
                moved -= part;
            } else if (request.failure == null) {
                request.failure = statusFailure(request, response);
            }
            bounceAt += c.partLength[i];
            commandEnded(request);
        }
        release(c);
    }

    /** One command of {@code request} ended: the request completes once none is left and no more will be issued. */
    private void commandEnded(final IoRequest request) {
        request.inFlight--;
        if (request.failure != null && request == current) {
            current = null; // what is not issued yet is not issued: the request failed
        }
        if (request.inFlight == 0 && (request.failure != null || request.allIssued()) && request != current) {
            finish(request);
        }
    }

    private ScsiStatusException statusFailure(final IoRequest request, final SrpResponse response) {
        final int senseLength = (int) response.senseDataLength();
        final MemorySegment sense = response.segment();
        final long at = response.offset() + response.senseDataOffset();
        if (senseLength < 8) {
            return new ScsiStatusException(request.describe(), response.status(), -1, -1, -1);
        }
        return new ScsiStatusException(request.describe(), response.status(), SenseData.senseKey(sense, at, senseLength),
                SenseData.asc(sense, at, senseLength), SenseData.ascq(sense, at, senseLength));
    }

    private void release(final OutstandingCommand c) {
        c.clear();
        freeCommands[freeCount++] = c.index;
    }

    /** Calls the request back and lets the ring reuse the answered requests in front. */
    private void finish(final IoRequest request) {
        final IoCallback callback = request.callback;
        final Object attachment = request.attachment;
        final long bytes = request.bytesDone;
        final SrpIoException failure = request.failure;
        request.buffer = null;
        request.callback = null;
        request.attachment = null;
        request.done = true;
        long next = answered.get() + 1;
        while (ring.isAvailable(next) && ring.get(next).done) { // requests may finish out of ring order
            next++;
        }
        answered.set(next - 1);
        try {
            callback.completed(attachment, bytes, failure);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "an I/O callback threw; the channel goes on", e);
        }
    }

    /** Issues commands while the target's credits and free command slots allow. */
    /**
     * Issues what the ring and the retry queue hold, within the credits, and posts the commands' SENDs as one chain:
     * one post (on the soft provider one socket write, on hardware one doorbell) for every command of the cycle.
     */
    private int startRequests() {
        final int started = issueRequests();
        postPendingSends();
        return started;
    }

    /** Posts the SENDs {@link #send} chained up, if any. */
    private void postPendingSends() {
        final SendWorkRequest first = pendingSends;
        if (first == null) {
            return;
        }
        pendingSends = null;
        lastPendingSend = null;
        try {
            queuePair.postSend(first);
        } catch (RuntimeException e) {
            lostBecause = "post failed: " + e.getMessage();
        }
    }

    private int issueRequests() {
        int started = 0;
        while (retryCount > 0 && failed == null && lostBecause == null) {
            if (freeCount == 0 || credits <= TASK_MANAGEMENT_RESERVE || sendsOutstanding >= sendQueueSize - CONTROL_IUS) {
                return started;
            }
            final IoRequest request = retryRequest[retryHead];
            final long offset = retryOffset[retryHead];
            final int length = retryLength[retryHead];
            retryRequest[retryHead] = null;
            retryHead = (retryHead + 1) % retryRequest.length;
            retryCount--;
            started++;
            if (++request.retries > faults.maxRetries() || request.failure != null) {
                if (request.failure == null) {
                    request.failure = new SrpIoException(request.describe() + ": no answer after " + faults.maxRetries()
                            + " tries (each aborted or its channel lost)");
                }
                commandEnded(request);
                continue;
            }
            retries++;
            final OutstandingCommand c = commands[freeCommands[--freeCount]];
            c.nextTag();
            c.startNanos = System.nanoTime();
            c.add(request, offset, length);
            send(request, c);
        }
        while (lostBecause == null || failed != null) { // a failed channel answers each request at once
            if (current == null) {
                current = nextRequest();
                if (current == null) {
                    return started;
                }
                if (failed != null) {
                    current.failure = failed;
                    final IoRequest request = current;
                    current = null;
                    finish(request);
                    started++;
                    continue;
                }
            }
            // a control IU may have to go any time: one send queue entry is kept for it
            if (freeCount == 0 || credits <= TASK_MANAGEMENT_RESERVE || sendsOutstanding >= sendQueueSize - CONTROL_IUS) {
                return started;
            }
            final IoRequest request = current;
            issue(request, commands[freeCommands[--freeCount]]);
            started++;
            if (request.allIssued() || request.failure != null) {
                current = null;
                if (request.inFlight == 0) {
                    finish(request);
                }
            }
        }
        return started;
    }

    /**
     * The request to start next: the oldest one not started, or with read priority, when the oldest is a write and
     * reads wait behind it, the first such read that overlaps no write before it (a write is passed
     * {@link #MAX_PASSED} times at most). Marks it started. Null when none is published.
     */
    private IoRequest nextRequest() {
        while (ring.isAvailable(nextToStart) && ring.get(nextToStart).started) {
            nextToStart++;
        }
        if (!ring.isAvailable(nextToStart)) {
            return null;
        }
        long chosen = nextToStart;
        final IoRequest oldest = ring.get(nextToStart);
        if (readPriority && oldest.op == IoRequest.WRITE && oldest.passedBy < MAX_PASSED) {
            final long read = firstReadPassingWrites();
            if (read >= 0) {
                oldest.passedBy++;
                chosen = read;
            }
        }
        final IoRequest request = ring.get(chosen);
        request.started = true;
        request.sequence = chosen;
        return request;
    }

    /**
     * The sequence of the first unstarted read within {@link #SCHEDULING_WINDOW} of the oldest request that no earlier
     * write overlaps, or -1.
     */
    private long firstReadPassingWrites() {
        final long end = nextToStart + SCHEDULING_WINDOW;
        for (long seq = nextToStart + 1; seq < end && ring.isAvailable(seq); seq++) {
            final IoRequest candidate = ring.get(seq);
            if (candidate.started || candidate.op != IoRequest.READ) {
                continue;
            }
            boolean overlaps = false;
            for (long before = nextToStart; before < seq && !overlaps; before++) {
                final IoRequest write = ring.get(before);
                overlaps = !write.started && write.op != IoRequest.READ && write.lunField == candidate.lunField
                        && (write.op == IoRequest.RAW || write.lba < candidate.lba + candidate.blocks
                        && candidate.lba < write.lba + write.blocks);
            }
            if (!overlaps) {
                return seq;
            }
        }
        return -1;
    }

    /** Bytes one command of {@code request} may carry. */
    private int perCommandBytes(final IoRequest request) {
        return request.rkey != RegisteredMemory.NOT_REGISTERED ? request.maxTransferBytes
                : Math.min(bounceBytes, request.maxTransferBytes);
    }

    /**
     * With merging on, adds to {@code c} the whole requests that follow {@code head} in the ring, not started, of the
     * same kind, LUN and buffer kind, each starting where the previous ends, while they fit one command; marks them
     * started. Requests submitted together (a sequential stream, or a burst the credits hold back) so become one command.
     */
    private void mergeFollowing(final IoRequest head, final long headSequence, final OutstandingCommand c, final int limit) {
        long lba = head.lba + head.blocks;
        for (long seq = headSequence + 1; c.partCount < OutstandingCommand.MAX_PARTS && ring.isAvailable(seq); seq++) {
            final IoRequest next = ring.get(seq);
            final long bytes = next.blocks * next.blockSize;
            if (next.started || next.op != head.op || next.lunField != head.lunField || next.fua != head.fua
                    || next.lba != lba || (next.rkey == RegisteredMemory.NOT_REGISTERED) != (head.rkey == RegisteredMemory.NOT_REGISTERED)
                    || c.length + bytes > limit) {
                return;
            }
            next.started = true;
            next.issuedBlocks = next.blocks;
            next.inFlight++;
            c.add(next, 0, (int) bytes);
            lba += next.blocks;
            mergedRequests++;
        }
    }

    /** Builds the next SRP_CMD of {@code request} (and of requests merged with it) in {@code c}'s IU and sends it. */
    private void issue(final IoRequest request, final OutstandingCommand c) {
        c.nextTag();
        c.startNanos = System.nanoTime();
        request.inFlight++;
        if (request.op == IoRequest.RAW) {
            c.add(request, 0, request.rawLength);
            request.issuedBlocks = 1;
        } else {
            final int limit = perCommandBytes(request);
            final int blocks = (int) Math.min(request.blocks - request.issuedBlocks, limit / request.blockSize);
            final boolean whole = request.issuedBlocks == 0 && blocks == request.blocks;
            c.add(request, request.issuedBlocks * request.blockSize, blocks * request.blockSize);
            request.issuedBlocks += blocks;
            if (merge && whole) {
                mergeFollowing(request, request.sequence, c, limit);
            }
        }
        send(request, c);
    }

    /** Builds the SRP_CMD for the parts in {@code c} (the first of {@code request}) in {@code c}'s IU and sends it. */
    private void send(final IoRequest request, final OutstandingCommand c) {
        final long iuOffset = (long) c.index * iuLength;
        command.wrap(ius.segment(), iuOffset).reset().setTag(c.tag).setLun(request.lunField);
        final long cdbAt = command.cdbOffsetInSegment();
        final int direction;
        if (request.op == IoRequest.RAW) {
            MemorySegment.copy(request.cdb, 0, ius.segment(), ValueLayout.JAVA_BYTE, cdbAt, 16);
            direction = request.rawDirection;
        } else {
            final boolean write = request.op == IoRequest.WRITE;
            ScsiCdb.readWrite16(ius.segment(), cdbAt, write ? ScsiCdb.WRITE_16 : ScsiCdb.READ_16,
                    request.lba + c.partOffset[0] / request.blockSize, c.length / request.blockSize, request.fua);
            direction = write ? IoRequest.DATA_OUT : IoRequest.DATA_IN;
        }
        c.dataIn = direction == IoRequest.DATA_IN;
        c.bounced = false;
        final int iuBytes;
        if (direction == IoRequest.NO_DATA || c.length == 0) {
            iuBytes = SrpCommand.FIXED_LENGTH;
        } else if (direction == IoRequest.DATA_OUT && c.length <= immediateLimit) {
            command.setBufferFormats(SrpBufferFormat.IMMEDIATE, SrpBufferFormat.NONE).setImmediateDataLength(c.length);
            gather(c, ius.segment(), command.immediateDataOffsetInSegment(IMMEDIATE_DATA_OFFSET));
            iuBytes = IMMEDIATE_DATA_OFFSET + c.length;
        } else {
            final boolean out = direction == IoRequest.DATA_OUT;
            final int descriptorAt = out ? command.dataOutDescriptorOffset() : command.dataInDescriptorOffset();
            if (request.rkey != RegisteredMemory.NOT_REGISTERED && c.partCount > 1) {
                // merged registered buffers: one descriptor each, the list inside the IU (SRP r16a 5.5.4)
                command.setBufferFormats(out ? SrpBufferFormat.INDIRECT : SrpBufferFormat.NONE, out ? SrpBufferFormat.NONE : SrpBufferFormat.INDIRECT);
                if (out) {
                    command.setDataOutDescriptorCount(c.partCount);
                } else {
                    command.setDataInDescriptorCount(c.partCount);
                }
                final int listAt = (out ? command.dataOutDescriptorOffset() : command.dataInDescriptorOffset());
                indirect.wrap(ius.segment(), iuOffset + listAt).setTable(ius.address() + iuOffset + listAt
                        + SrpIndirectBuffer.DESC_LIST_OFFSET, ius.rkey(), (long) c.partCount * SrpDirectBuffer.LENGTH, c.length);
                for (int i = 0; i < c.partCount; i++) {
                    final IoRequest part = c.parts[i];
                    indirect.setDescriptor(i, part.buffer.address() + part.bufferOffset + c.partOffset[i], part.rkey, c.partLength[i]);
                }
                iuBytes = listAt + SrpIndirectBuffer.length(c.partCount);
            } else {
                final long address;
                final int rkey;
                if (request.rkey != RegisteredMemory.NOT_REGISTERED) {
                    address = request.buffer.address() + request.bufferOffset + c.partOffset[0];
                    rkey = request.rkey;
                } else {
                    c.bounced = true;
                    address = bounce.address() + (long) c.index * bounceBytes;
                    rkey = bounce.rkey();
                    if (out) {
                        gather(c, bounce.segment(), (long) c.index * bounceBytes);
                    }
                }
                command.setBufferFormats(out ? SrpBufferFormat.DIRECT : SrpBufferFormat.NONE, out ? SrpBufferFormat.NONE : SrpBufferFormat.DIRECT);
                direct.wrap(ius.segment(), iuOffset + descriptorAt).set(address, rkey, c.length);
                iuBytes = descriptorAt + SrpDirectBuffer.LENGTH;
            }
        }
        credits--;
        commandsIssued++;
        final SendWorkRequest send = c.send;
        if (++unsignaled >= signalInterval) {
            unsignaled--; // counted again by retired()
            send.opcode(SendOpcode.SEND).flags(SendFlags.SIGNALED).next(null).wrId(SEND_KIND | retired() << 16 | c.index);
        } else {
            send.opcode(SendOpcode.SEND).flags(0).next(null).wrId(SEND_KIND | c.index);
        }
        send.sgl().clear().add(ius, iuOffset, iuBytes);
        sendsOutstanding++;
        // chained, posted at the end of the cycle (startRequests)
        if (lastPendingSend == null) {
            pendingSends = send;
        } else {
            lastPendingSend.next(send);
        }
        lastPendingSend = send;
    }

    /** Copies the data-out of each part of {@code c}, one after another, to {@code at} of {@code to}. */
    private static void gather(final OutstandingCommand c, final MemorySegment to, final long at) {
        long offset = at;
        for (int i = 0; i < c.partCount; i++) {
            final IoRequest part = c.parts[i];
            MemorySegment.copy(source(part), part.bufferOffset + c.partOffset[i], to, offset, c.partLength[i]);
            offset += c.partLength[i];
        }
    }

    /** For a signaled SEND about to go: how many SENDs its completion retires (itself and the unsignaled before it). */
    private long retired() {
        final long count = unsignaled + 1L;
        unsignaled = 0;
        return count;
    }

    /** Where a request's data-out comes from: the caller's buffer, or (a RAW command with none) its inline bytes. */
    private static MemorySegment source(final IoRequest request) {
        return request.buffer != null ? request.buffer : request.inline;
    }

    /** Fails every command in flight and the request being issued (the channel is gone). */
    private void failEverything(final SrpIoException why) {
        // SENDs chained but not posted (the cycle threw before its post) belong to the commands failing now: posting
        // them later would let the target move data to or from buffers their callers already took back
        pendingSends = null;
        lastPendingSend = null;
        while (retryCount > 0) {
            final IoRequest request = retryRequest[retryHead];
            retryRequest[retryHead] = null;
            retryHead = (retryHead + 1) % retryRequest.length;
            retryCount--;
            if (request.failure == null) {
                request.failure = why;
            }
            commandEnded(request);
        }
        for (final OutstandingCommand c : commands) {
            if (c.quarantined) {
                c.quarantined = false;
                quarantinedCount--;
                release(c);
                continue;
            }
            if (!c.inUse()) {
                continue;
            }
            for (int i = 0; i < c.partCount; i++) {
                final IoRequest request = c.parts[i];
                if (request.failure == null) {
                    request.failure = why;
                }
                commandEnded(request);
            }
            release(c);
        }
        if (current != null) {
            final IoRequest request = current;
            current = null;
            if (request.failure == null) {
                request.failure = why;
            }
            if (request.inFlight == 0) {
                finish(request);
            }
        }
    }

    /** After the agent stopped: polls until a control SEND completes (the logout went) or the deadline passes. */
    private void awaitControlSent(final long deadline) {
        while (System.nanoTime() < deadline) {
            final int n = completionQueue.poll(completions, completions.capacity());
            for (int i = 0; i < n; i++) {
                if ((completions.wrId(i) & 0xFFFF_FFFF_0000_0000L) == CONTROL_KIND) {
                    return;
                }
            }
            if (n == 0) {
                LockSupport.parkNanos(100_000);
            }
        }
    }

    /** Provider thread: {@code ended} ended; the agent reconnects if it is still the channel's connection. */
    void connectionLost(final ConnectionId ended, final String why) {
        if (ended != connection) {
            return; // an earlier connection's late notice
        }
        if (events != null) {
            events.wakeup();
        }
        if (lostBecause == null) {
            lostBecause = why;
        }
        LockSupport.unpark(thread);
    }

    /**
     * Ends the channel: waits up to {@code drainMillis} for what is in flight, sends SRP_I_LOGOUT, stops the agent
     * (requests still queued fail) and disconnects.
     */
    void stop(final long drainMillis) {
        final long deadline = System.nanoTime() + drainMillis * 1_000_000;
        while ((thread == null || thread.isAlive()) && (inFlight() > 0 || ring.getCursor() != answered.get())
                && System.nanoTime() < deadline && lostBecause == null) {
            if (thread == null) {
                if (drive() == 0) {
                    LockSupport.parkNanos(50_000);
                }
            } else {
                LockSupport.parkNanos(1_000_000);
            }
        }
        running = false;
        wake();
        if (thread != null) {
            try {
                thread.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        } else {
            // caller-driven: wait out a duty cycle under way (no new one starts; a reconnect in it ends after its
            // current attempt, since running is false), then answer what is left, as the agent thread does when it
            // stops; the channel stays taken. Never without the channel: two threads would answer the same commands.
            long waitedFrom = System.nanoTime();
            while (!DRIVER.compareAndSet(this, null, Thread.currentThread())) {
                if (System.nanoTime() - waitedFrom > 5_000_000_000L) {
                    LOG.warning("channel " + index + ": closing waits for a poll still running on " + driver);
                    waitedFrom = System.nanoTime();
                }
                LockSupport.parkNanos(100_000);
            }
            failEverything(new SrpIoException("channel " + index + " closed"));
        }
        if (lostBecause == null) {
            // SRP_I_LOGOUT (SRP r16a 6.7), then the disconnect; the agent has stopped, so this thread may post
            final int slot = nextControlSlot();
            new SrpInitiatorLogout().wrap(ius.segment(), controlOffset(slot)).reset().setTag(0);
            postControl(slot, SrpInitiatorLogout.LENGTH);
            awaitControlSent(deadline + 1_000_000_000L);
        }
        try {
            connection.disconnect();
        } catch (RuntimeException e) {
            LOG.log(Level.FINE, "disconnecting channel " + index, e);
        }
        closeConnection();
    }

    /** Closes the current connection (its QP goes with it) and its CQ (agent thread, or after the agent stopped). */
    private void closeConnection() {
        try {
            connection.close();
        } catch (RuntimeException e) {
            LOG.log(Level.FINE, "closing the connection of channel " + index, e);
        }
        try {
            completionQueue.close();
        } catch (RuntimeException e) {
            LOG.log(Level.FINE, "closing the completion queue of channel " + index, e);
        }
    }
}

package org.rdmablock.target.metrics;

import org.rdmablock.protocol.scsi.LunAddress;
import org.rdmablock.target.config.InitiatorPortId;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Everything one target counts: each served LUN's {@link IoStats}, each session's {@link SessionStats}, and the
 * target-wide counts (logins, lost channels, task management, IUs that waited, errors, credit stalls).
 *
 * <p>Writers: the pipeline's intake stage for everything per command (single-writer counters, no lock), the login
 * threads for logins and channels joining; readers at scrape and summary time. The LUN table is an array indexed by
 * LUN number, so that the intake stage finds a command's LUN with one volatile read; it holds only the LUNs the
 * target serves ({@link #lunsServed}), so that an initiator naming made-up LUNs makes nothing.
 */
public final class TargetStatistics {
    private static final int WAITED = 0;
    private static final int WAITING = 1;
    private static final int LOST_CHANNELS = 2;
    private static final int TASK_MANAGEMENT = 3;
    private static final int TIMED_OUT = 4;
    private static final int ERRORS = 5;
    private static final int BUSY = 6;
    private static final int CREDITS_EXHAUSTED = 7;
    private static final int INTAKE_COUNTERS = 8;

    private final AtomicReferenceArray<IoStats> luns = new AtomicReferenceArray<>(LunAddress.MAX_LUN + 1);
    private final Map<InitiatorPortId, SessionStats> sessions = new ConcurrentHashMap<>();
    private final SingleWriterCounters intake = new SingleWriterCounters(INTAKE_COUNTERS);
    private final AtomicLong loginsAccepted = new AtomicLong();
    private final AtomicLong loginsRejected = new AtomicLong();

    /**
     * The LUNs served from now on (start-up, and after each reload): a LUN new to the set starts with zeros, one that
     * left it is dropped with its figures (a LUN that comes back starts again from zero, which Prometheus reads as a
     * counter reset).
     */
    public synchronized void lunsServed(final Collection<Integer> numbers) {
        final boolean[] wanted = new boolean[luns.length()];
        numbers.forEach(n -> wanted[n] = true);
        for (int n = 0; n < wanted.length; n++) {
            if (wanted[n] && luns.get(n) == null) {
                luns.set(n, new IoStats());
            } else if (!wanted[n] && luns.get(n) != null) {
                luns.set(n, null);
            }
        }
    }

    /** The statistics of LUN {@code number}, or null when the target does not serve it: one volatile read. */
    public IoStats lun(final int number) {
        return number < 0 || number >= luns.length() ? null : luns.get(number);
    }

    /** Every served LUN's statistics, by number. */
    public Map<Integer, IoStats> luns() {
        final Map<Integer, IoStats> served = new TreeMap<>();
        for (int n = 0; n < luns.length(); n++) {
            final IoStats stats = luns.get(n);
            if (stats != null) {
                served.put(n, stats);
            }
        }
        return served;
    }

    // ---- sessions

    /** Login thread: a channel of {@code initiator} logged in; returns its session, made with the first channel. */
    public SessionStats channelJoined(final InitiatorPortId initiator) {
        return sessions.compute(initiator, (id, session) -> {
            final SessionStats s = session != null ? session : new SessionStats(id);
            s.channels++;
            return s;
        });
    }

    /** A channel of {@code session} is gone; the session's figures are dropped with its last channel. */
    public void channelLeft(final SessionStats session) {
        sessions.computeIfPresent(session.initiator, (id, s) -> s != session || --s.channels > 0 ? s : null);
    }

    /** The sessions that have a channel now, by initiator port id. */
    public List<SessionStats> sessions() {
        final List<SessionStats> all = new ArrayList<>(sessions.values());
        all.sort(Comparator.comparing(s -> s.initiator.toString()));
        return all;
    }

    /** Channels logged in now, over all sessions. */
    public int channels() {
        int n = 0;
        for (final SessionStats s : sessions.values()) {
            n += s.channels;
        }
        return n;
    }

    // ---- logins (login threads)

    public void loginAccepted() {
        loginsAccepted.incrementAndGet();
    }

    public void loginRejected() {
        loginsRejected.incrementAndGet();
    }

    public long loginsAccepted() {
        return loginsAccepted.get();
    }

    public long loginsRejected() {
        return loginsRejected.get();
    }

    // ---- the intake stage's target-wide counts (it alone writes them)

    /** An IU had to wait in the intake stage: no command slot or data buffer was free, or others waited before it. */
    public void iuWaited() {
        intake.add(WAITED, 1);
    }

    /** IUs waiting in the intake stage now. */
    public void iusWaiting(final int count) {
        intake.set(WAITING, count);
    }

    /** A channel ended without a logout from either side: disconnected, or its queue pair failed. */
    public void channelLost() {
        intake.add(LOST_CHANNELS, 1);
    }

    /** A task management request was answered. */
    public void taskManagement() {
        intake.add(TASK_MANAGEMENT, 1);
    }

    /** Commands answered by the command timeout. */
    public void commandsTimedOut(final int count) {
        intake.add(TIMED_OUT, count);
    }

    /** A command was answered with a status other than GOOD (whichever LUN and session). */
    public void commandFailed() {
        intake.add(ERRORS, 1);
    }

    /** A command came beyond its channel's credits and was answered BUSY. */
    public void answeredBusy() {
        intake.add(BUSY, 1);
    }

    /** A command took its channel's last credit. */
    public void creditsExhausted() {
        intake.add(CREDITS_EXHAUSTED, 1);
    }

    public long iusWaited() {
        return intake.get(WAITED);
    }

    public long iusWaiting() {
        return intake.get(WAITING);
    }

    public long channelsLost() {
        return intake.get(LOST_CHANNELS);
    }

    public long taskManagementRequests() {
        return intake.get(TASK_MANAGEMENT);
    }

    public long commandsTimedOut() {
        return intake.get(TIMED_OUT);
    }

    public long commandsFailed() {
        return intake.get(ERRORS);
    }

    public long busyAnswers() {
        return intake.get(BUSY);
    }

    public long creditsExhaustedCount() {
        return intake.get(CREDITS_EXHAUSTED);
    }
}

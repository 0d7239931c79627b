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
    /** The target-wide counts the intake stage keeps (it alone writes them), with their Prometheus name and help. */
    public enum Count {
        WAITED_IUS("rdmablock_target_waited_ius", true,
                "IUs that waited in the intake stage for a command slot or data buffer (or behind others that did)"),
        WAITING_IUS("rdmablock_target_waiting_ius", false, "IUs waiting in the intake stage now"),
        LOST_CHANNELS("rdmablock_target_lost_channels", true,
                "Channels that ended without a logout from either side (disconnected, or their queue pair failed)"),
        TASK_MANAGEMENT("rdmablock_target_task_management", true,
                "Task management requests answered (ABORT TASK, ABORT TASK SET, CLEAR TASK SET, LUN RESET, ...)"),
        COMMAND_TIMEOUTS("rdmablock_target_command_timeouts", true,
                "Commands answered by the command timeout (ABORTED COMMAND)"),
        ERRORS("rdmablock_target_errors", true, "Commands answered with a status other than GOOD, on any LUN and session"),
        BUSY("rdmablock_target_busy", true, "Commands that came beyond their channel's credits and were answered BUSY"),
        CREDITS_EXHAUSTED("rdmablock_target_credits_exhausted", true, "Commands that took their channel's last credit"),
        BLOCKING_CALLS("rdmablock_target_blocking_calls", true, "Backend calls the poller handed to the blocking-call"
                + " threads because they would wait on a device (file reads the page cache did not hold, fdatasync,"
                + " durable writes, RocksDB)"),
        IN_PLACE("rdmablock_target_in_place_commands", true, "READs and WRITEs whose data moved by RDMA straight from or"
                + " into a memory LUN's own memory (soft provider), with no copy through the data buffers");

        /** The Prometheus metric name (a counter's without {@code _total}). */
        public final String metric;
        /** A counter (only grows) or a gauge. */
        public final boolean counter;
        /** The Prometheus help text. */
        public final String help;

        Count(final String metric, final boolean counter, final String help) {
            this.metric = metric;
            this.counter = counter;
            this.help = help;
        }
    }

    private final AtomicReferenceArray<IoStats> luns = new AtomicReferenceArray<>(LunAddress.MAX_LUN + 1);
    private final Map<InitiatorPortId, SessionStats> sessions = new ConcurrentHashMap<>();
    private final SingleWriterCounters intake = new SingleWriterCounters(Count.values().length);
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

    /** Adds {@code n} to a count: the intake stage only. */
    public void add(final Count count, final long n) {
        intake.add(count.ordinal(), n);
    }

    /** Sets a gauge ({@link Count#WAITING_IUS}): the intake stage only. */
    public void set(final Count gauge, final long value) {
        intake.set(gauge.ordinal(), value);
    }

    /** A count, from any thread. */
    public long count(final Count count) {
        return intake.get(count.ordinal());
    }
}

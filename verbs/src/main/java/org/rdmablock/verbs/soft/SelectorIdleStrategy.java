package org.rdmablock.verbs.soft;

import org.agrona.concurrent.IdleStrategy;

/**
 * The I/O agents' idle strategy: for {@code spins} idle duty cycles in a row the agent keeps polling its selector
 * ({@code selectNow()}, part of its duty cycle); after that it parks in a blocking {@code select()}, which returns
 * when a channel is ready, a task or a wake-up arrives or the next timer is due. A busy-spin then a block, as
 * Agrona's {@link org.agrona.concurrent.BackoffIdleStrategy} spins then parks, except that a thread parked in a
 * selector is woken by what it waits for (readiness, {@link java.nio.channels.Selector#wakeup}), not after a period.
 *
 * <p>The blocking select dispatches the channels it finds ready: the work done there counts as work, so the next
 * idle cycle spins again. The agent asks {@link #parking()} so that a duty cycle that will end in the blocking
 * select does not poll the selector first.
 */
final class SelectorIdleStrategy implements IdleStrategy {
    /** Alias, as Agrona's strategies have. */
    static final String ALIAS = "selector";

    /** What the strategy parks in: the agent's blocking select. */
    @FunctionalInterface
    interface Park {
        /**
         * Blocks until a channel is ready, a task or wake-up arrives or the next timer is due, and handles what is
         * ready.
         *
         * @return the work done (0 when nothing happened).
         */
        int park();
    }

    private final int spins;
    private final Park park;
    /** Idle duty cycles in a row, up to {@link #spins}. */
    private int idle;

    /**
     * @param spins idle duty cycles to poll before parking; 0 parks on the first idle cycle.
     * @param park  the blocking select.
     */
    SelectorIdleStrategy(final int spins, final Park park) {
        if (spins < 0) {
            throw new IllegalArgumentException("spins " + spins + " < 0");
        }
        this.spins = spins;
        this.park = park;
    }

    /** Whether the next idle cycle parks (the spins are used up). */
    boolean parking() {
        return idle >= spins;
    }

    @Override
    public void idle(final int workCount) {
        if (workCount > 0) {
            idle = 0;
        } else {
            idle();
        }
    }

    @Override
    public void idle() {
        if (idle < spins) {
            idle++; // the next duty cycle polls the selector again: that is the spin
        } else if (park.park() > 0) {
            idle = 0;
        }
    }

    @Override
    public void reset() {
        idle = 0;
    }

    @Override
    public String alias() {
        return ALIAS;
    }

    @Override
    public String toString() {
        return "SelectorIdleStrategy{alias=" + ALIAS + ", spins=" + spins + "}";
    }
}

package org.rdmablock.target.core;

import java.util.List;

/**
 * Several front ends on one pipeline (SRP and NVMe over Fabrics on the same device, slots, data room and backends):
 * each request goes to the front end that serves its channel ({@link FrontEnd#serves}); every tick reaches them all.
 * The front ends share the core's parts; a channel answers with its own front end's encoders.
 *
 * <p>Thread: the intake stage's, but for {@link #hasWork} (any thread).
 */
public final class FrontEnds implements FrontEnd {
    private final FrontEnd[] frontEnds;

    /** Makes one front end of several factories on the same core parts (each called once, in order). */
    public static Factory of(final List<Factory> factories) {
        if (factories.size() == 1) {
            return factories.getFirst();
        }
        return core -> {
            final FrontEnd[] made = new FrontEnd[factories.size()];
            for (int i = 0; i < made.length; i++) {
                made[i] = factories.get(i).create(core);
            }
            return new FrontEnds(made);
        };
    }

    private FrontEnds(final FrontEnd[] frontEnds) {
        this.frontEnds = frontEnds;
    }

    private FrontEnd of(final Channel channel) {
        for (final FrontEnd f : frontEnds) {
            if (f.serves(channel)) {
                return f;
            }
        }
        throw new IllegalStateException(channel + " belongs to no front end of this pipeline");
    }

    @Override
    public boolean received(final Channel channel, final int receiveIndex, final int length, final PipelineEvent event,
                            final long arrivedNanos) {
        return of(channel).received(channel, receiveIndex, length, event, arrivedNanos);
    }

    @Override
    public void dataOutArrived(final CommandSlot slot, final PipelineEvent event) {
        of(slot.channel()).dataOutArrived(slot, event);
    }

    @Override
    public void commandDropped(final Channel channel) {
        of(channel).commandDropped(channel);
    }

    @Override
    public void tick(final long now, final boolean stopping) {
        for (final FrontEnd f : frontEnds) {
            f.tick(now, stopping);
        }
    }

    @Override
    public boolean hasWork() {
        for (final FrontEnd f : frontEnds) {
            if (f.hasWork()) {
                return true;
            }
        }
        return false;
    }

    @Override
    public boolean serves(final Channel channel) {
        return true;
    }

    @Override
    public ResponseEncoder[] responseEncoders() {
        throw new UnsupportedOperationException("each front end of a shared pipeline has its own encoders");
    }
}

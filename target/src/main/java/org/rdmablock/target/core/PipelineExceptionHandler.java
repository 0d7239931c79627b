package org.rdmablock.target.core;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Logs what a stage threw and keeps the pipeline running: one bad command must not stop the target. Any stage thread. */
final class PipelineExceptionHandler implements com.lmax.disruptor.ExceptionHandler<PipelineEvent> {
    private static final Logger LOG = LoggerFactory.getLogger(CommandPipeline.class);

    @Override
    public void handleEventException(final Throwable ex, final long sequence, final PipelineEvent event) {
        LOG.error("pipeline stage failed on event kind {} index {}", event.kind, event.index, ex);
    }

    @Override
    public void handleOnStartException(final Throwable ex) {
        LOG.error("pipeline start", ex);
    }

    @Override
    public void handleOnShutdownException(final Throwable ex) {
        LOG.error("pipeline shutdown", ex);
    }
}

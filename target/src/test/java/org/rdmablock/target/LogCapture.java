package org.rdmablock.target;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * The lines some loggers write while a test runs, through Logback (the target's tests log through it): each as
 * "LEVEL message". Detached again by {@link #close()}.
 */
public final class LogCapture implements AutoCloseable {
    private final List<Logger> loggers = new ArrayList<>();
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

    /** Captures what the loggers of {@code classes} write from now on. */
    public LogCapture(final Class<?>... classes) {
        appender.start();
        for (final Class<?> c : classes) {
            final Logger logger = (Logger) LoggerFactory.getLogger(c);
            logger.addAppender(appender);
            loggers.add(logger);
        }
    }

    /** The lines so far, "LEVEL message" each. */
    public List<String> lines() {
        synchronized (appender) {
            return appender.list.stream().map(e -> e.getLevel() + " " + e.getFormattedMessage()).toList();
        }
    }

    /** The lines so far that {@code which} accepts. */
    public List<String> lines(final Predicate<String> which) {
        return lines().stream().filter(which).toList();
    }

    /** Waits up to {@code timeout} for a line {@code which} accepts; returns it, or fails listing what came. */
    public String await(final Predicate<String> which, final Duration timeout) {
        Waiting.waitUpTo(timeout, "a log line like that").untilAsserted(() -> {
            if (lines(which).isEmpty()) {
                throw new AssertionError("no such line yet; the lines: " + lines());
            }
        });
        return lines(which).getFirst();
    }

    @Override
    public void close() {
        loggers.forEach(l -> l.detachAppender(appender));
        appender.stop();
    }
}

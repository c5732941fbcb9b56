package org.fabricmanager.daemon;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import org.slf4j.LoggerFactory;

/** The events one logger emits while open (logback's list appender), for tests that assert on log lines. */
final class LogCapture implements AutoCloseable {
    private final Logger logger;
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

    private LogCapture(Class<?> source) {
        logger = (Logger) LoggerFactory.getLogger(source);
        appender.start();
        logger.addAppender(appender);
    }

    static LogCapture of(Class<?> source) {
        return new LogCapture(source);
    }

    /** The events so far (a copy: the appender keeps appending from other threads). */
    List<ILoggingEvent> events() {
        synchronized (appender) { // AppenderBase.doAppend holds this lock
            return List.copyOf(appender.list);
        }
    }

    @Override
    public void close() {
        logger.detachAppender(appender);
        appender.stop();
    }
}

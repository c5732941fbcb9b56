package org.fabricmanager.southbound;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** A listener out of descriptors fails every accept; the log gets one line per interval, without a stack trace. */
class AcceptFailuresTest {

    @Test
    void acceptFailuresAreOneLinePerIntervalWithoutATrace() {
        Logger logger = (Logger) LoggerFactory.getLogger(AcceptFailures.class);
        ListAppender<ILoggingEvent> log = new ListAppender<>();
        log.start();
        logger.addAppender(log);
        AtomicLong now = new AtomicLong(1_000_000);
        AcceptFailures failures = new AcceptFailures("REST 127.0.0.1:7680", now::get);
        EmbeddedChannel listener = new EmbeddedChannel(failures);
        try {
            for (int second = 0; second < 40; second++) { // Netty retries accepting once a second
                listener.pipeline().fireExceptionCaught(new IOException("Too many open files"));
                now.addAndGet(1_000);
            }
            listener.checkException(); // nothing reached the pipeline's tail
        } finally {
            logger.detachAppender(log);
            listener.finishAndReleaseAll();
        }
        var warnings = log.list.stream().filter(e -> e.getLevel() == Level.WARN).toList();
        assertThat(failures.total()).isEqualTo(40);
        assertThat(warnings).as("40 s of failures, one line per %d ms", AcceptFailures.INTERVAL_MS).hasSize(4);
        assertThat(warnings).allMatch(e -> e.getThrowableProxy() == null, "no stack trace");
        assertThat(warnings.get(1).getFormattedMessage()).contains("REST 127.0.0.1:7680").contains("10 time(s)")
                .contains("Too many open files");
    }
}

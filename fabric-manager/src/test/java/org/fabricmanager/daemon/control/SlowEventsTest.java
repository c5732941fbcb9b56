package org.fabricmanager.daemon.control;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class SlowEventsTest {
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
    private final Logger logger = (Logger) LoggerFactory.getLogger(SlowEvents.class);
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();
    private Level level;

    @BeforeEach
    void capture() {
        level = logger.getLevel();
        appender.start();
        logger.addAppender(appender);
    }

    @AfterEach
    void release() {
        logger.detachAppender(appender);
        logger.setLevel(level);
    }

    private List<String> lines(Level at) {
        synchronized (appender) {
            return appender.list.stream().filter(e -> e.getLevel() == at).map(ILoggingEvent::getFormattedMessage).toList();
        }
    }

    @Test
    void anEventThatHoldsTheThreadASecondIsAWarningAtMostOncePerTenSecondsWithTheCountOfTheOthers() {
        logger.setLevel(Level.INFO);
        SlowEvents slow = new SlowEvents();
        long now = 1_000 * MS;
        slow.ran("routing-done v7", 0, 999 * MS, -1, now);
        assertThat(lines(Level.WARN)).isEmpty();
        assertThat(slow.wantsCpu()).as("the CPU clock only for DEBUG lines").isFalse();

        slow.ran("routing-done v8", 0, 1_200 * MS, -1, now += 2_000 * MS);
        slow.ran("push ack", 0, 1_500 * MS, -1, now += 5_000 * MS);
        slow.ran("push ack", 0, 1_000 * MS, -1, now += 4_999 * MS);
        assertThat(lines(Level.WARN)).containsExactly(
                "control event 'routing-done v8' held the control thread for 1200 ms (faults wait meanwhile)");

        slow.ran("detector verdict", 0, 3_000 * MS, -1, now += 1 * MS);
        assertThat(lines(Level.WARN)).hasSize(2).last().isEqualTo("control event 'detector verdict' held the control "
                + "thread for 3000 ms (faults wait meanwhile); 2 more such events since the last warning");
        assertThat(slow.slow()).isEqualTo(4);
        assertThat(slow.longestNanos()).isEqualTo(3_000 * MS);
    }

    @Test
    void atDebugEveryEventThatRanOrWaitedTenMillisecondsIsLogged() {
        logger.setLevel(Level.DEBUG);
        SlowEvents slow = new SlowEvents();
        slow.ran("quick", 2 * MS, 9 * MS, -1, 100 * MS);
        slow.ran("late", 12 * MS, 1 * MS, -1, 200 * MS);
        slow.ran("long", 0, 25 * MS, -1, 300 * MS);
        slow.ran("starved", 0, 30 * MS, 4 * MS, 400 * MS);
        assertThat(lines(Level.DEBUG)).containsExactly("control event 'late': waited 12.0 ms, ran 1.0 ms",
                "control event 'long': waited 0.0 ms, ran 25.0 ms",
                "control event 'starved': waited 0.0 ms, ran 30.0 ms (4.0 ms of CPU)");
        assertThat(slow.wantsCpu()).isTrue();
        assertThat(lines(Level.WARN)).isEmpty();
        assertThat(slow.slow()).isZero();
    }

    @Test
    void aBacklogOfEventsThatOnlyWaitedLogsTwentyLinesASecond() {
        logger.setLevel(Level.DEBUG);
        SlowEvents slow = new SlowEvents();
        long now = 5_000 * MS;
        for (int i = 0; i < 100; i++) {
            slow.ran("ack " + i, 50 * MS, MS / 10, -1, now += MS);
        }
        slow.ran("routing-done v9", 0, 40 * MS, -1, now += MS);
        assertThat(lines(Level.DEBUG)).hasSize(SlowEvents.WAIT_LINES_PER_SECOND + 1)
                .last().isEqualTo("control event 'routing-done v9': waited 0.0 ms, ran 40.0 ms");
        slow.ran("ack late", 50 * MS, MS / 10, -1, now += 1_000 * MS);
        assertThat(lines(Level.DEBUG)).last().isEqualTo("control event 'ack late': waited 50.0 ms, ran 0.1 ms");
    }
}

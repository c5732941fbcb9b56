package org.fabricmanager.detector;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class DetectorMetricsTest {

    @Test
    void membersStartedOnManyThreadsAtOnceRegisterTheHealthGaugeOnceWithoutAWarning() throws Exception {
        Logger micrometer = (Logger) LoggerFactory.getLogger(MeterRegistry.class);
        ListAppender<ILoggingEvent> warnings = new ListAppender<>();
        warnings.start();
        micrometer.addAppender(warnings);
        ExecutorService threads = Executors.newFixedThreadPool(16);
        try {
            for (int round = 0; round < 200; round++) {
                SimpleMeterRegistry registry = new SimpleMeterRegistry();
                CountDownLatch go = new CountDownLatch(1);
                List<Future<DetectorMetrics>> made = new ArrayList<>();
                for (int t = 0; t < 16; t++) {
                    made.add(threads.submit(() -> {
                        go.await();
                        return new DetectorMetrics(registry);
                    }));
                }
                go.countDown();
                for (Future<DetectorMetrics> f : made) {
                    f.get();
                }
                assertThat(registry.find(DetectorMetrics.HEALTH_SCORE).gauges()).hasSize(1);
            }
        } finally {
            threads.shutdownNow();
            micrometer.detachAppender(warnings);
        }
        assertThat(warnings.list).extracting(ILoggingEvent::getFormattedMessage)
                .noneMatch(m -> m.contains("already registered"));
    }
}

package org.fabricmanager.daemon.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.fabricmanager.detector.DetectorMetrics;
import org.junit.jupiter.api.Test;

/**
 * The daemon's detector meters and the ring member's share one Prometheus registry: a name used twice with other tag
 * keys is refused (logged, not thrown) and one of the two silently disappears from {@code /metrics}. Both orders of
 * registration, as the daemon may build them either way.
 */
class DetectorMeterNamesTest {

    @Test
    void everyDetectorMeterOfTheDaemonAndItsMemberIsScraped() {
        for (boolean memberFirst : new boolean[] {true, false}) {
            PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
            if (memberFirst) {
                new DetectorMetrics(registry);
            }
            new SecondOpinion(registry, System::nanoTime);
            new EarlyEchoes(registry, System::nanoTime);
            if (!memberFirst) {
                new DetectorMetrics(registry);
            }
            String scrape = registry.scrape();
            assertThat(scrape).as("member registered first: %s", memberFirst)
                    .contains("fabric_detector_suspicions_total ")
                    .contains("fabric_detector_suspicions_raised_total ")
                    .contains("fabric_detector_verdicts_total{outcome=\"confirmed\"}")
                    .contains("fabric_detector_notices_total{outcome=\"answered\"}")
                    .contains("fabric_detector_notices_total{outcome=\"silent\"}");
            registry.close();
        }
    }
}

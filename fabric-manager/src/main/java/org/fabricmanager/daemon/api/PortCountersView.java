package org.fabricmanager.daemon.api;

import java.util.List;
import java.util.Map;

/**
 * A switch's port counters in {@code GET /api/v1/switches/{guid}/ports}: its agent's last report (counters since the
 * agent started; {@code null} where the switch does not measure one) and whether its current session reports any.
 *
 * @param guid         the switch's GUID
 * @param name         its description from its last HELLO, or {@code null} when it has no session
 * @param reporting    whether its current session's agent announced port counters
 * @param incarnation  the agent run of the report (a higher one restarted the counts), or {@code null} without one
 * @param receivedAt   when the report arrived (ms since the epoch), or {@code null}
 * @param ageMs        how old the report is, or {@code null}
 * @param intervalMs   how often the daemon asks for counters
 * @param totals       each counter summed over the ports (unavailable ones left out)
 * @param ports        one entry per port 1..portCount of the report, empty without one
 */
public record PortCountersView(String guid, String name, boolean reporting, Long incarnation, Long receivedAt,
                               Long ageMs, long intervalMs, Map<String, Long> totals, List<Port> ports) {
    /** One port's counters; {@code null}: not measured by the switch. */
    public record Port(int port, Long rxPackets, Long txPackets, Long rxBytes, Long txBytes, Long rxErrors,
                       Long txErrors, Long rxDrops, Long txDrops) {
    }
}

package org.fabricmanager.daemon.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.math.BigInteger;
import java.util.List;
import java.util.Map;

/**
 * A switch's port counters in {@code GET /api/v1/switches/{guid}/ports}: its agent's last report (unsigned 64-bit
 * counts, exact; {@code null} where the switch does not measure one), which values no port could have counted, and
 * whether its current session reports any.
 *
 * @param guid         the switch's GUID
 * @param name         its description from its last HELLO, or {@code null} when it has no session
 * @param reporting    whether its current session's agent announced port counters
 * @param incarnation  the agent run of the report, or {@code null} without one
 * @param receivedAt   when the report arrived (ms since the epoch), or {@code null}
 * @param ageMs        how old the report is, or {@code null}
 * @param intervalMs   how often the daemon asks for counters
 * @param totals       each counter summed over the ports, exactly (beyond 2^64 if need be), leaving out values not
 *                     measured and values flagged implausible
 * @param ports        one entry per port 1..portCount of the report, empty without one
 */
public record PortCountersView(String guid, String name, boolean reporting, Long incarnation, Long receivedAt,
                               Long ageMs, long intervalMs, Map<String, BigInteger> totals, List<Port> ports) {
    /**
     * One port's counters; {@code null}: not measured by the switch. {@code implausible} names the counters whose
     * value rose more than a port can count since the previous report, with why (left out of {@code totals}), and
     * is left out of the JSON when there are none.
     */
    public record Port(int port, BigInteger rxPackets, BigInteger txPackets, BigInteger rxBytes, BigInteger txBytes,
                       BigInteger rxErrors, BigInteger txErrors, BigInteger rxDrops, BigInteger txDrops,
                       @JsonInclude(JsonInclude.Include.NON_NULL) Map<String, String> implausible) {
    }
}

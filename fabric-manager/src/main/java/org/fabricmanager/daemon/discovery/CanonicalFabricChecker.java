package org.fabricmanager.daemon.discovery;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricSwitch;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;

/**
 * Checks a discovered fabric against the canonical fabric of the expected PGFT, switch by switch and
 * link by link (GUIDs and ports as {@code FORMATS.md} numbers them): switches and links of the
 * canonical fabric that are absent are missing; present ones that it does not have are extra or
 * miswired. Fabrics whose GUIDs follow another numbering are compared by counts only.
 */
public final class CanonicalFabricChecker implements FabricChecker {
    @Override
    public FabricCheck check(Fabric discovered, PgftSpec expected) {
        Fabric canonical = PgftGenerator.generate(expected);
        Map<Long, FabricSwitch> want = new HashMap<>();
        for (FabricSwitch s : canonical.switches()) {
            want.put(s.guid(), s);
        }
        int overlap = 0;
        for (FabricSwitch s : discovered.switches()) {
            if (want.containsKey(s.guid())) {
                overlap++;
            }
        }
        if (overlap == 0 && !discovered.switches().isEmpty()) {
            return byCounts(discovered, expected, canonical);
        }
        List<String> missingSwitches = new ArrayList<>();
        int missingSwitchCount = 0;
        Set<Long> present = new HashSet<>();
        for (FabricSwitch s : discovered.switches()) {
            present.add(s.guid());
        }
        for (FabricSwitch s : canonical.switches()) {
            if (!present.contains(s.guid())) {
                missingSwitchCount++;
                add(missingSwitches, s.name() + " " + org.fabricmanager.topology.Guids.format(s.guid()));
            }
        }
        List<String> extraSwitches = new ArrayList<>();
        int extraSwitchCount = 0;
        for (FabricSwitch s : discovered.switches()) {
            FabricSwitch w = want.get(s.guid());
            if (w == null || w.ports() != s.ports()) {
                extraSwitchCount++;
                add(extraSwitches, s.name() + " " + org.fabricmanager.topology.Guids.format(s.guid())
                        + (w == null ? "" : " (" + s.ports() + " ports, expected " + w.ports() + ")"));
            }
        }
        Set<Link> wantLinks = new HashSet<>();
        for (Link l : canonical.links()) {
            wantLinks.add(l.normalized());
        }
        Set<Link> haveLinks = new HashSet<>();
        List<String> miswired = new ArrayList<>();
        int miswiredCount = 0;
        for (Link l : discovered.links()) {
            Link n = l.normalized();
            haveLinks.add(n);
            if (!wantLinks.contains(n)) {
                miswiredCount++;
                add(miswired, n.toString());
            }
        }
        List<String> missingLinks = new ArrayList<>();
        int missingLinkCount = 0;
        for (Link l : wantLinks) {
            if (!haveLinks.contains(l)) {
                missingLinkCount++;
                add(missingLinks, l.toString());
            }
        }
        missingLinks.sort(null);
        FabricCheck.Verdict verdict = extraSwitchCount + miswiredCount > 0 ? FabricCheck.Verdict.MISWIRED
                : missingSwitchCount + missingLinkCount > 0 ? FabricCheck.Verdict.DEGRADED : FabricCheck.Verdict.INTACT;
        String summary = switch (verdict) {
            case INTACT -> "intact " + expected;
            case DEGRADED -> expected + " degraded: " + missingSwitchCount + " switches and " + missingLinkCount
                    + " links missing";
            default -> expected + " miswired: " + extraSwitchCount + " unexpected switches, " + miswiredCount
                    + " unexpected links, " + missingSwitchCount + " switches and " + missingLinkCount + " links missing";
        };
        return new FabricCheck(expected.toString(), verdict, summary, missingSwitchCount, missingSwitches,
                extraSwitchCount, extraSwitches, missingLinkCount, missingLinks, miswiredCount, miswired);
    }

    private static FabricCheck byCounts(Fabric discovered, PgftSpec expected, Fabric canonical) {
        int missingSwitches = Math.max(0, canonical.switches().size() - discovered.switches().size());
        int extraSwitches = Math.max(0, discovered.switches().size() - canonical.switches().size());
        int missingLinks = Math.max(0, canonical.links().size() - discovered.links().size());
        int extraLinks = Math.max(0, discovered.links().size() - canonical.links().size());
        FabricCheck.Verdict verdict = extraSwitches + extraLinks > 0 ? FabricCheck.Verdict.MISWIRED
                : missingSwitches + missingLinks > 0 ? FabricCheck.Verdict.DEGRADED : FabricCheck.Verdict.INTACT;
        return new FabricCheck(expected.toString(), verdict, expected + " compared by counts (GUIDs are not canonical): "
                + discovered.switches().size() + "/" + canonical.switches().size() + " switches, "
                + discovered.links().size() + "/" + canonical.links().size() + " links", missingSwitches, List.of(),
                extraSwitches, List.of(), missingLinks, List.of(), extraLinks, List.of());
    }

    private static void add(List<String> list, String entry) {
        if (list.size() < FabricCheck.MAX_LISTED) {
            list.add(entry);
        }
    }
}

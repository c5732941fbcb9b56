package org.fabricmanager.daemon.discovery;

import java.util.ArrayList;
import java.util.List;
import org.fabricmanager.daemon.api.FabricCheck;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.PgftRecognition;
import org.fabricmanager.topology.PgftRecognizer;
import org.fabricmanager.topology.PgftSpec;

/**
 * Checks a discovered fabric with the topology module's {@link PgftRecognizer} (exact by canonical
 * GUIDs, otherwise by structure) and turns its report into the daemon's {@link FabricCheck}: missing
 * switches and links, extra switches, and every other problem as miswired.
 */
public final class RecognizingFabricChecker implements FabricChecker {
    @Override
    public FabricCheck check(Fabric discovered, PgftSpec expected) {
        PgftRecognition r = PgftRecognizer.recognize(discovered, expected);
        FabricCheck.Verdict verdict = switch (r.verdict()) {
            case INTACT -> FabricCheck.Verdict.INTACT;
            case DEGRADED -> FabricCheck.Verdict.DEGRADED;
            case MISWIRED, UNRECOGNISED -> FabricCheck.Verdict.MISWIRED;
        };
        List<String> missingSwitches = new ArrayList<>();
        for (PgftRecognition.SwitchSlot slot : r.missingSwitches()) {
            add(missingSwitches, r.matching() == PgftRecognition.Matching.BY_GUID
                    ? slot.name() + " " + Guids.format(slot.guid()) : "level " + slot.level() + " position " + slot.index());
        }
        List<String> missingLinks = new ArrayList<>();
        for (PgftRecognition.MissingLink l : r.missingLinks()) {
            add(missingLinks, l.toString());
        }
        List<String> extraSwitches = new ArrayList<>();
        int extraSwitchCount = 0;
        List<String> miswired = new ArrayList<>();
        int miswiredCount = 0;
        for (PgftRecognition.Problem p : r.problems()) {
            if (p.kind() == PgftRecognition.Kind.EXTRA_SWITCH) {
                extraSwitchCount++;
                add(extraSwitches, p.detail());
            } else {
                miswiredCount++;
                add(miswired, p.toString());
            }
        }
        return new FabricCheck(expected.toString(), verdict, r.summary(), r.missingSwitches().size(), missingSwitches,
                extraSwitchCount, extraSwitches, r.missingLinks().size(), missingLinks, miswiredCount, miswired);
    }

    private static void add(List<String> list, String entry) {
        if (list.size() < FabricCheck.MAX_LISTED) {
            list.add(entry);
        }
    }
}

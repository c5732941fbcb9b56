package org.fabricmanager.topology;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.fabricmanager.topology.PgftRecognition.Kind;
import org.fabricmanager.topology.PgftRecognition.LevelCount;
import org.fabricmanager.topology.PgftRecognition.Matching;
import org.fabricmanager.topology.PgftRecognition.MissingLink;
import org.fabricmanager.topology.PgftRecognition.Problem;
import org.fabricmanager.topology.PgftRecognition.SpecSource;
import org.fabricmanager.topology.PgftRecognition.SwitchSlot;
import org.fabricmanager.topology.PgftRecognition.Verdict;

/**
 * Matches a fabric with arbitrary GUIDs to a PGFT by structure. A level-l switch of the canonical
 * PGFT is {@code (A, B)}: {@code A} names its pod (the leaves it reaches using only levels up to l)
 * and {@code B} its column (the switches it reaches using only levels l and above). Both are
 * connected components ({@link LevelComponents}, by union-find); {@link PodNumbering} numbers pods
 * top-down and {@link ColumnNumbering} columns bottom-up (children ordered by smallest GUID), and
 * {@link StructuralChecks} then checks every cable against "parent of (A, B) is (A / m, B + b * W_l)".
 * On an intact PGFT any such numbering is an isomorphism to the canonical one, so the check is exact;
 * port numbers are not checked.
 *
 * <p>Degraded fabrics split components. Pods and columns that lost their anchor (a pod with no
 * leaf left, a column with no switch of its level) are placed afterwards from their placed
 * neighbours ({@link SlotPlacement}); pods and columns split in two are merged back greedily while
 * they fit. What still cannot be placed is reported as unplaced.
 */
final class StructuralMatch {
    private StructuralMatch() {
    }

    static PgftRecognition run(Fabric fabric, PgftSpec spec, SpecSource source) {
        StructuralLevels lv = new StructuralLevels(fabric, spec);
        StructuralChecks checks = new StructuralChecks(lv);
        checks.checkSwitches();
        checks.checkLinks();
        LevelComponents components = LevelComponents.of(lv);
        int[] labelA = PodNumbering.labels(lv, components);
        int[] labelB = ColumnNumbering.labels(lv, components, labelA);
        SlotPlacement placement = new SlotPlacement(lv, labelA, labelB);
        placement.place();
        Map<Long, Integer> multiplicity = checks.checkSwitchLinks(placement);
        List<MissingLink> missingLinks = new ArrayList<>();
        int attached = checks.checkNodes(placement.placed, missingLinks);
        checks.missingSwitchLinks(placement, multiplicity, missingLinks);

        List<SwitchSlot> missingSwitches = new ArrayList<>();
        List<LevelCount> counts = new ArrayList<>();
        for (int l = 1; l <= lv.h; l++) {
            int count = spec.switchCount(l);
            Map<Integer, Integer> occupied = placement.slots.get(l);
            for (int pos = 0; pos < count; pos++) {
                if (!occupied.containsKey(pos)) {
                    missingSwitches.add(new SwitchSlot(l, pos));
                }
            }
            counts.add(new LevelCount(l, count, occupied.size()));
        }
        List<Long> unplaced = new ArrayList<>();
        for (int s = 0; s < lv.n; s++) {
            if (placement.placed[s] || lv.excluded[s]) {
                continue;
            }
            if (lv.level[s] == 0) {
                unplaced.add(lv.index.switchGuid(s));
            } else {
                checks.unplaceable(s);
            }
        }
        List<Problem> problems = checks.problems;
        if (unplaced.size() > missingSwitches.size()) {
            problems.add(new Problem(Kind.EXTRA_SWITCH, unplaced.size() + " switches cannot be placed in " + spec
                    + " and only " + missingSwitches.size() + " positions are free", unplaced, List.of()));
        }
        Verdict verdict = !problems.isEmpty() ? Verdict.MISWIRED
                : missingSwitches.isEmpty() && missingLinks.isEmpty() && unplaced.isEmpty() ? Verdict.INTACT
                : Verdict.DEGRADED;
        return new PgftRecognition(verdict, spec, source, Matching.BY_STRUCTURE, counts, spec.nodeCount(), attached,
                missingSwitches, List.of(), missingLinks, unplaced, problems);
    }
}

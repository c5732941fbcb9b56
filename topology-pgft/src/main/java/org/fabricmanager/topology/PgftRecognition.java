package org.fabricmanager.topology;

import java.util.ArrayList;
import java.util.List;

/**
 * What {@link PgftRecognizer} found when it compared a fabric with a PGFT: the verdict, the spec it
 * checked against and where that spec came from, switch counts per level, and the lists an operator
 * (or the daemon) acts on: missing switches, links and nodes, switches that could not be placed,
 * and problems (extra items and miswirings).
 *
 * <p>When the fabric uses the canonical GUIDs of {@code docs/formats.md} the comparison is exact, by GUID
 * and port ({@link Matching#BY_GUID}). Otherwise switches are placed by structure
 * ({@link Matching#BY_STRUCTURE}): missing switches are then positions of that placement (not GUIDs)
 * and missing links name the two present switches with unknown ports (0).
 *
 * @param verdict          the overall answer
 * @param spec             the PGFT checked against; {@code null} only when none was given and none
 *                         could be inferred ({@link Verdict#UNRECOGNISED})
 * @param specSource       where {@code spec} came from
 * @param matching         how switches were matched to PGFT positions
 * @param levels           per switch level: expected (-1 when unknown) and present switches
 * @param expectedNodes    end nodes of the PGFT (-1 when unknown)
 * @param attachedNodes    end nodes with a link to a switch
 * @param missingSwitches  PGFT positions with no switch
 * @param missingNodes     canonical nodes absent from the fabric (by GUID matching only)
 * @param missingLinks     cables of the PGFT absent although both of their ends are present; links
 *                         of missing switches are not listed
 * @param unplacedSwitches switches present but cut off from every leaf, so that structure cannot
 *                         place them; they fill missing positions, so they count as degradation as
 *                         long as there are enough missing positions
 * @param problems         extra items and miswirings; any problem makes the verdict {@link Verdict#MISWIRED}
 */
public record PgftRecognition(Verdict verdict, PgftSpec spec, SpecSource specSource, Matching matching,
                              List<LevelCount> levels, int expectedNodes, int attachedNodes,
                              List<SwitchSlot> missingSwitches, List<MissingNode> missingNodes,
                              List<MissingLink> missingLinks, List<Long> unplacedSwitches,
                              List<Problem> problems) {

    /** The overall answer of a recognition. */
    public enum Verdict {
        /** Exactly the PGFT: every switch, node and link, nothing else. */
        INTACT,
        /** A part of the PGFT: some switches, nodes or links missing, nothing extra or miswired. */
        DEGRADED,
        /** Not (a part of) the PGFT: extra switches, nodes or links, or miswiring. */
        MISWIRED,
        /** No PGFT was given and none could be inferred (the fabric is not an intact PGFT). */
        UNRECOGNISED
    }

    /** Where the spec checked against came from. */
    public enum SpecSource {
        /** Given by the caller (e.g. {@code --expect}). */
        GIVEN,
        /** The fabric's own {@code pgft} field. */
        FABRIC,
        /** Inferred from the fabric's structure. */
        INFERRED,
        /** There is no spec. */
        NONE
    }

    /** How switches were matched to PGFT positions. */
    public enum Matching {
        /** By canonical GUID and port, exactly. */
        BY_GUID,
        /** By structure: levels from the leaves, pods and columns from connectivity; ports not checked. */
        BY_STRUCTURE
    }

    /** Switches of one level: expected by the PGFT (-1 when unknown) and present. */
    public record LevelCount(int level, int expected, int present) {
    }

    /**
     * A switch position of the PGFT: level {@code l} and index {@code idx = A*W_l + B} as in the
     * canonical numbering. By GUID matching, {@link #guid()} is the GUID the switch would have.
     */
    public record SwitchSlot(int level, int index) {
        /** The canonical GUID of this position. */
        public long guid() {
            return PgftGenerator.switchGuid(level, index);
        }

        /** The canonical name of this position, e.g. {@code s2-3}. */
        public String name() {
            return "s" + level + "-" + index;
        }
    }

    /** A canonical end node (GUID and destination index) absent from the fabric. */
    public record MissingNode(long guid, int index) {
    }

    /**
     * A missing cable between port {@code aPort} of {@code a} and port {@code bPort} of {@code b}.
     * A port is 0 when unknown (matching by structure); {@code b} is 0 for "an end node" when a
     * leaf has fewer nodes than the PGFT gives it and the missing node cannot be named.
     */
    public record MissingLink(long a, int aPort, long b, int bPort) {
        @Override
        public String toString() {
            return end(a, aPort) + " - " + end(b, bPort);
        }

        private static String end(long guid, int port) {
            if (guid == 0) {
                return "(an end node)";
            }
            return Guids.format(guid) + ":" + (port == 0 ? "?" : Integer.toString(port));
        }
    }

    /**
     * Something present that does not belong to the PGFT.
     *
     * @param kind    what is wrong
     * @param detail  a sentence naming the devices (GUID and name) and ports
     * @param devices the GUIDs involved
     * @param links   the offending links, if any
     */
    public record Problem(Kind kind, String detail, List<Long> devices, List<Link> links) {
        public Problem {
            devices = List.copyOf(devices);
            links = List.copyOf(links);
        }

        @Override
        public String toString() {
            return kind + ": " + detail;
        }
    }

    /** Kinds of problems; {@link #isExtra()} separates extra items from miswirings. */
    public enum Kind {
        /** A switch that has no position in the PGFT. */
        EXTRA_SWITCH(true),
        /** An end node that has no position in the PGFT. */
        EXTRA_NODE(true),
        /** A link beyond the PGFT's (more parallel links than p, or to an extra device). */
        EXTRA_LINK(true),
        /** A link between two leaf switches. */
        LEAF_TO_LEAF(false),
        /** A link between two switches of one level above the leaves. */
        SAME_LEVEL(false),
        /** A link between switches more than one level apart. */
        LEVEL_SKIP(false),
        /** An end node attached to a switch that is not a leaf. */
        NODE_ON_NON_LEAF(false),
        /** A cable between two end nodes. */
        NODE_TO_NODE(false),
        /** The right two devices, linked on other ports than the canonical numbering says. */
        WRONG_PORT(false),
        /** A link between adjacent levels joining switches that are not parent and child. */
        WRONG_NEIGHBOUR(false),
        /** An end node on another leaf than its canonical one. */
        MISPLACED_NODE(false),
        /** A switch more levels above the leaves than the PGFT has. */
        TOO_MANY_LEVELS(false),
        /** A switch with fewer ports than its level needs. */
        TOO_FEW_PORTS(false),
        /** A switch connected to the leaves whose links fit no position of the PGFT (by structure). */
        UNPLACEABLE(false),
        /** The fabric is not uniform enough to be an intact PGFT (inference only). */
        IRREGULAR(false);

        private final boolean extra;

        Kind(boolean extra) {
            this.extra = extra;
        }

        /** True for extra items, false for miswirings. */
        public boolean isExtra() {
            return extra;
        }
    }

    public PgftRecognition {
        levels = List.copyOf(levels);
        missingSwitches = List.copyOf(missingSwitches);
        missingNodes = List.copyOf(missingNodes);
        missingLinks = List.copyOf(missingLinks);
        unplacedSwitches = List.copyOf(unplacedSwitches);
        problems = List.copyOf(problems);
    }

    /** True when the fabric is the PGFT or a degraded version of it. */
    public boolean matches() {
        return verdict == Verdict.INTACT || verdict == Verdict.DEGRADED;
    }

    /** The problems that are extra items (switches, nodes, links). */
    public List<Problem> extras() {
        return Problems.filter(problems, true);
    }

    /** The problems that are miswirings. */
    public List<Problem> miswirings() {
        return Problems.filter(problems, false);
    }

    /** One line for logs, e.g. {@code DEGRADED PGFT(...) by GUID: 1 missing switch, 3 missing links}. */
    public String summary() {
        StringBuilder sb = RecognitionText.summaryHead(verdict, spec, specSource, matching);
        List<String> parts = new ArrayList<>();
        RecognitionText.count(parts, missingSwitches.size(), "missing switch", "missing switches");
        RecognitionText.count(parts, missingNodes.size(), "missing node", "missing nodes");
        RecognitionText.count(parts, missingLinks.size(), "missing link", "missing links");
        RecognitionText.count(parts, unplacedSwitches.size(), "unplaced switch", "unplaced switches");
        RecognitionText.count(parts, extras().size(), "extra item", "extra items");
        RecognitionText.count(parts, miswirings().size(), "miswiring", "miswirings");
        return RecognitionText.withParts(sb, parts);
    }
}

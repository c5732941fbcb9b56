package org.fabricmanager.routing;

/**
 * How many entries a new routing changed against the tables in force, the least any valid routing of the new
 * fabric must change (entries whose port leads into a failed element, that lose or gain every path, or whose
 * next hop loses every path), and how many of the changed entries went back to elements that came back: routes
 * that a full routing of the new fabric sends over a returned switch or cable, taken back from where a repair
 * had moved them.
 *
 * @param changedEntries entries whose port differs
 * @param minimumEntries entries every valid routing of the new fabric changes
 * @param takenBack      changed entries that went back to returned elements (0 when nothing came back)
 */
public record TableChurn(long changedEntries, long minimumEntries, long takenBack) {

    /** Changed entries per entry any valid routing changes (1.0 when both are 0). */
    public double ratio() {
        return minimumEntries == 0 ? (changedEntries == 0 ? 1.0 : Double.POSITIVE_INFINITY)
                : (double) changedEntries / minimumEntries;
    }
}

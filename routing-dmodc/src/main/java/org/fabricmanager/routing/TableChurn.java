package org.fabricmanager.routing;

/**
 * How many entries a new routing changed against the tables in force, the least any valid routing of the new
 * fabric must change (entries whose port leads into a failed element, that lose or gain every path, or whose
 * next hop loses every path), and how many of the changed entries went to elements that came back: the routed
 * entries of a switch the tables in force had no row for, and the entries a switch now sends over a port it sent
 * nothing over before (a cable that came back, or a link to a switch that did).
 *
 * @param changedEntries entries whose port differs
 * @param minimumEntries entries every valid routing of the new fabric changes
 * @param takenBack      changed entries that went to returned elements (0 when nothing came back)
 */
public record TableChurn(long changedEntries, long minimumEntries, long takenBack) {

    /** Changed entries per entry any valid routing changes (1.0 when both are 0). */
    public double ratio() {
        return minimumEntries == 0 ? (changedEntries == 0 ? 1.0 : Double.POSITIVE_INFINITY)
                : (double) changedEntries / minimumEntries;
    }
}

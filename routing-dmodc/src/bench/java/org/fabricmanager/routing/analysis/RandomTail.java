package org.fabricmanager.routing.analysis;

import java.util.Arrays;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.topology.FabricIndex;

/**
 * The random-permutation congestion of a set of tables predicted from the tables alone, without drawing
 * permutations (a diagnosis for benchmarks, not an analysis the daemon runs).
 *
 * <p>Under a random permutation the routes on a link are a sum of indicators, one per source node (it sends to one
 * of the destinations the link carries from it, probability: their number over N) and equally one per destination
 * (one of the sources the link carries to it sends to it). Each view, its indicators taken as independent, gives a
 * tail {@code P(load >= k)}; the permutation ties the indicators together, so each view overstates the tail, and the
 * smaller is kept. The mean of a permutation's busiest link is then {@code sum over k of 1 - prod over links (1 -
 * tail(k))}. {@code mu}: the link's all-to-all routes over N, its expected load.
 *
 * @param tails per directed link id, {@code P(load >= k)} for k = 0..{@link #K} ({@code null}: the link carries none)
 * @param mu    per directed link id, the expected load
 */
record RandomTail(double[][] tails, double[] mu) {
    /** Loads kept apart: 0 to {@code K - 1}, and {@code K} or more. */
    static final int K = 14;

    /** The tails of {@code routed}'s switch-to-switch links. */
    static RandomTail of(RoutedFabric routed) {
        DirectedLinks links = routed.links();
        ForwardingTables tables = routed.tables();
        FabricIndex index = routed.index();
        int n = routed.attachedCount();
        int[] leaves = Arrays.stream(index.leaves()).filter(l -> routed.attachedOn(l) > 0).toArray();
        int[] leafSlot = new int[index.switchCount()];
        for (int i = 0; i < leaves.length; i++) {
            leafSlot[leaves[i]] = i;
        }
        // per link: destinations it carries from each leaf (source view), the distribution so far (destination view)
        int[][] perLeaf = new int[links.count()][];
        double[][] byDestination = new double[links.count()][];
        int[] sourcesNow = new int[links.count()];
        int[] touched = new int[links.count()];
        for (int i = 0; i < n; i++) {
            int d = routed.attachedDestination(i);
            int target = routed.leafOf(d);
            int touchedCount = 0;
            for (int leaf : leaves) {
                int sources = routed.attachedOn(leaf);
                for (int u = leaf, hops = 0; u != target && hops < leaves.length; hops++) {
                    int port = tables.port(u, d);
                    if (port == ForwardingTables.NO_ROUTE) {
                        break;
                    }
                    int link = links.id(u, port);
                    if (perLeaf[link] == null) {
                        perLeaf[link] = new int[leaves.length];
                        byDestination[link] = point();
                    }
                    perLeaf[link][leafSlot[leaf]]++;
                    if (sourcesNow[link] == 0) {
                        touched[touchedCount++] = link;
                    }
                    sourcesNow[link] += sources;
                    u = links.peerSwitch(link);
                }
            }
            for (int t = 0; t < touchedCount; t++) {
                int link = touched[t];
                add(byDestination[link], Math.min(1.0, sourcesNow[link] / (double) n), 1);
                sourcesNow[link] = 0;
            }
        }
        double[][] tails = new double[links.count()][];
        double[] mu = new double[links.count()];
        for (int link = 0; link < links.count(); link++) {
            if (perLeaf[link] == null) {
                continue;
            }
            double[] bySource = point();
            for (int i = 0; i < leaves.length; i++) {
                if (perLeaf[link][i] > 0) {
                    add(bySource, perLeaf[link][i] / (double) n, routed.attachedOn(leaves[i]));
                    mu[link] += perLeaf[link][i] * (double) routed.attachedOn(leaves[i]) / n;
                }
            }
            double[] a = tail(bySource);
            double[] b = tail(byDestination[link]);
            for (int k = 0; k <= K; k++) {
                a[k] = Math.min(a[k], b[k]);
            }
            tails[link] = a;
        }
        return new RandomTail(tails, mu);
    }

    /** The expected load of a permutation's busiest link; every node receives one route, so at least 1. */
    double predictedMean() {
        double mean = 1;
        for (int k = 2; k <= K; k++) {
            double none = 1;
            for (double[] t : tails) {
                if (t != null) {
                    none *= 1 - t[k];
                }
            }
            mean += 1 - none;
        }
        return mean;
    }

    /**
     * {@link #predictedMean} were each link's expected load {@code evened[link]} ({@code NaN}: its own), each tail
     * scaled as in {@link #tailIf}.
     */
    double predictedMeanIf(double[] evened) {
        double mean = 1;
        for (int k = 2; k <= K; k++) {
            double none = 1;
            for (int link = 0; link < tails.length; link++) {
                if (tails[link] != null) {
                    none *= 1 - (Double.isNaN(evened[link]) ? tails[link][k] : Math.min(1, tailIf(link, k, evened[link])));
                }
            }
            mean += 1 - none;
        }
        return mean;
    }

    /**
     * Link {@code link}'s {@code P(load >= k)} were its expected load {@code evened} instead of its own: its tail
     * scaled by the ratio of Poisson tails (an estimate, for what-ifs).
     */
    double tailIf(int link, int k, double evened) {
        return tails[link][k] * poissonTail(evened, k) / poissonTail(mu[link], k);
    }

    private static double poissonTail(double mu, int k) {
        double term = Math.exp(-mu);
        double below = 0;
        for (int j = 0; j < k; j++) {
            below += term;
            term *= mu / (j + 1);
        }
        return Math.max(Double.MIN_NORMAL, 1 - below);
    }

    /** The distribution of a sum of no indicators: 0 with certainty. */
    private static double[] point() {
        double[] pmf = new double[K + 1];
        pmf[0] = 1;
        return pmf;
    }

    /** Adds {@code times} independent indicators of probability {@code p} to {@code pmf} (slot K: K or more). */
    private static void add(double[] pmf, double p, int times) {
        for (int t = 0; t < times; t++) {
            pmf[K] += pmf[K - 1] * p;
            for (int j = K - 1; j > 0; j--) {
                pmf[j] = pmf[j] * (1 - p) + pmf[j - 1] * p;
            }
            pmf[0] *= 1 - p;
        }
    }

    /** {@code P(X >= k)} for k = 0..K from the distribution {@code pmf}. */
    private static double[] tail(double[] pmf) {
        double[] tail = new double[K + 1];
        double sum = 0;
        for (int k = K; k >= 0; k--) {
            sum += pmf[k];
            tail[k] = sum;
        }
        return tail;
    }
}

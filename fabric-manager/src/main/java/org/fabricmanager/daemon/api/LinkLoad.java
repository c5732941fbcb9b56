package org.fabricmanager.daemon.api;

import java.util.List;

/**
 * {@code GET /api/v1/fabric/load?pattern=P}: routes per directed switch-to-switch link of the tables in force
 * under a traffic pattern, for the status page's heat map. For {@code shift} and {@code random:R:SEED} a
 * link's load is the most routes it carries in any one permutation, for {@code all2all} the routes crossing it.
 *
 * @param version        the routing version the loads are for
 * @param engine         the engine that computed the tables
 * @param pattern        the pattern in its text form ({@code shift}, {@code random:R:SEED}, {@code all2all})
 * @param permutations   permutations evaluated
 * @param max            the largest load of a link
 * @param mean           the mean over permutations of each permutation's largest load
 * @param unroutedPairs  source-destination pairs that dead-end or loop (left out of the loads)
 * @param computeMs      how long the analysis took
 * @param switches       the routed switches' GUIDs; links name switches by their position here
 * @param links          quadruples {@code from, port, to, load}, one per directed switch-to-switch link
 */
public record LinkLoad(long version, String engine, String pattern, int permutations, long max, double mean,
                       long unroutedPairs, double computeMs, List<String> switches, long[] links) {
}

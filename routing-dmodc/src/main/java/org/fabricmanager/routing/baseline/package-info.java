/**
 * The baseline engines Dmodc is compared against, after the OpenSM unicast routing memo (Zahavi
 * and Kalka): {@code minhop} (dense per-leaf hop tables, least-subscribed port choice) and
 * {@code updn} (Up*&#47;Down* ranked from the leaves or from roots found by the hop-histogram
 * heuristic, minimal legal paths, least-subscribed port choice).
 */
package org.fabricmanager.routing.baseline;

/**
 * Row reuse, found before the fill: switches whose forwarding rows are another's with a few
 * destination leaves recomputed. Leaf twins ({@code LeafTwins}: same port groups, divider and costs
 * but at each other and themselves, so the rows differ at two leaves) and relatives
 * ({@code RowRelatives}: same ports group by group and divider, rows differing in a few chunks of
 * leaves, compared one int per chunk through {@code ChunkClasses}). Depends only on
 * {@code preprocess}; the fill copies and patches the rows.
 */
package org.fabricmanager.routing.dmodc.reuse;

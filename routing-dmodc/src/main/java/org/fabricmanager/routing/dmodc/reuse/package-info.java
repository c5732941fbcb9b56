/**
 * Row reuse, found before the fill: switches whose forwarding rows are another's with a few
 * destination leaves recomputed, the relatives ({@code RowRelatives}: same ports group by group and
 * divider, rows differing in a few chunks of leaves, compared one int per chunk through
 * {@code ChunkClasses}). Depends only on {@code preprocess}; the fill copies and patches the rows.
 */
package org.fabricmanager.routing.dmodc.reuse;

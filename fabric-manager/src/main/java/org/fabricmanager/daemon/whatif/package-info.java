/**
 * What-if: the routing the live engine would compute after given switch and link failures, compared with
 * the tables in force, computed without touching the live state ({@code POST /api/v1/whatif}).
 */
package org.fabricmanager.daemon.whatif;

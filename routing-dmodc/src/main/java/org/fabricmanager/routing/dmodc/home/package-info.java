/**
 * The {@code dmodc-home} engine: Dmodc's tables, then on degraded fabrics each destination sent up one home
 * plane by every leaf of its pod that can, the others shared by load among the pod's other level-1 switches
 * ({@code ExtraShares}) and, one level up, away from the home destinations ({@code HomePlanes}), so that
 * destinations come down few paths and pairs do not travel together.
 * Depends on the {@code dmodc} package (the engine and its routing) and the routing API.
 */
package org.fabricmanager.routing.dmodc.home;

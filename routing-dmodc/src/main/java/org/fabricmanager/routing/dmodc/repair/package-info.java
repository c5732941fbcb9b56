/**
 * Repair after a change: the tables in force kept wherever their routes still step closer to the
 * destination over the new fabric, and only the other entries given new ports by Dmodc's closed form
 * ({@code TableRepair}); returned elements taking back the routes a full routing gives them
 * ({@code ReturnOverlay}) and a repair's changed entries taking a refined routing's ports
 * ({@code RefinedRepair}), both a mix of the repair with the full routing ({@code TableMix}); and the
 * churn of a new routing against the tables in force, with the least any valid routing must change and
 * what went to returned elements ({@code ChurnCount}). Depends only on {@code preprocess} (the new
 * fabric's costs and dividers) and the routing API.
 */
package org.fabricmanager.routing.dmodc.repair;

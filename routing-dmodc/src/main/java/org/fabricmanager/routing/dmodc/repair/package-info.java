/**
 * Repair after a fault: the tables in force kept wherever their routes still step closer to the
 * destination over the new fabric, and only the other entries given new ports by Dmodc's closed form
 * ({@code TableRepair}); and the churn of a new routing against the tables in force, with the least any
 * valid routing must change ({@code TableChurn}). Depends only on {@code preprocess} (the new fabric's
 * costs and dividers) and the routing API.
 */
package org.fabricmanager.routing.dmodc.repair;

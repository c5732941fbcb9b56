/**
 * The bridge to OpenSM: its {@code opensm-lfts.dump} table format (written for its {@code file}
 * routing engine, read back from its dumps and {@code ibroute}), routes towards switch LIDs,
 * ibsim's net format, and running OpenSM's own engines under ibsim for a side-by-side comparison.
 */
package org.fabricmanager.opensm;

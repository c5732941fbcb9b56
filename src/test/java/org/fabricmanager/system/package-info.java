/**
 * System tests: the daemon, switch agents and the CLI working together over real TCP on loopback.
 * {@code *IT} classes run after packaging (failsafe) and may start the shaded jar ({@code fm.jar}).
 */
package org.fabricmanager.system;

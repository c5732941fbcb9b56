/**
 * The engine registry: creates any routing engine by the name the CLI and the daemon's
 * configuration use. Depends on every engine package; nothing in the engines depends on it.
 */
package org.fabricmanager.routing.engines;

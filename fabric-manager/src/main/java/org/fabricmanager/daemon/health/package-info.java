/**
 * Gray links: a link that still links but corrupts is judged from its ports' counters ({@link
 * org.fabricmanager.daemon.health.PortErrorWindow}, {@link org.fabricmanager.daemon.health.LinkHealthModel}), and a
 * policy with guards advises or isolates it and gives it back after a quiet probation.
 */
package org.fabricmanager.daemon.health;

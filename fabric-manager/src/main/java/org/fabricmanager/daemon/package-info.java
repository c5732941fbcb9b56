/**
 * The fabric-manager daemon: {@link org.fabricmanager.daemon.FabricManagerDaemon} wires the southbound
 * server, discovery, routing, table push, persistence and REST around one control thread
 * ({@link org.fabricmanager.daemon.FabricController}) that alone changes the fabric state, fed by an
 * event queue ({@code control} package). The subpackages follow an ONOS-like split: {@code config},
 * {@code discovery} and {@code store} hold state and its persistence, {@code routing} and {@code push}
 * the services, {@code rest} the northbound provider.
 */
package org.fabricmanager.daemon;

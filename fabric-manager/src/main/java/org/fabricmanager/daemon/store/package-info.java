/**
 * What the daemon keeps across restarts, in its state directory: the node GUID -> destination index
 * map (like OpenSM's guid2lid file) and the stored routing (fingerprint of the routed fabric, table
 * version and tables). Every file is replaced atomically: temporary file, fsync, rename, fsync of the
 * directory.
 */
package org.fabricmanager.daemon.store;

/**
 * Dmodc as the paper writes it, for readers, for the engine's tests and for {@code route --verify}: a plain
 * implementation that shares no code with {@code org.fabricmanager.routing.dmodc}, whose tables it must equal
 * entry by entry.
 */
package org.fabricmanager.routing.dmodc.plain;

/**
 * The daemon's single control thread: an {@link org.fabricmanager.daemon.control.EventQueue} that runs
 * one event at a time, in order, with deferred events (debounce and timeouts) keyed by tag, after
 * Kafka's {@code KafkaEventQueue}. Everything that changes the daemon's fabric state runs here.
 */
package org.fabricmanager.daemon.control;

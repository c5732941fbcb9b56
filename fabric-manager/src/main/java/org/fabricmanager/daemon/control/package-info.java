/**
 * The daemon's single control thread: an {@link org.fabricmanager.daemon.control.EventQueue} (the
 * {@link org.fabricmanager.daemon.control.ControlLoop} the managers see) runs one event at a time, in order,
 * with deferred events (debounce and timeouts) keyed by tag, after Kafka's {@code KafkaEventQueue}; and the
 * {@link org.fabricmanager.daemon.control.MilestoneLog} of what an operator cares about. Everything that
 * changes the daemon's fabric state runs on this thread.
 */
package org.fabricmanager.daemon.control;

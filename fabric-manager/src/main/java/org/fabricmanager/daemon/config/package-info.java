/**
 * The daemon's YAML configuration: immutable records with documented defaults, a strict loader that
 * rejects unknown keys and out-of-range values with the offending option's name and line, and the
 * commented default file printed by {@code run --print-default-config}.
 */
package org.fabricmanager.daemon.config;

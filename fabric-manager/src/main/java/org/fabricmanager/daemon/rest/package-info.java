/**
 * The northbound REST API on Netty HTTP with Jackson ({@code docs/rest-api.md}): read-only views of
 * the daemon, JSON errors ({@code {"error": "..."}}) with 400 for bad parameters and 404 for unknown
 * GUIDs, endpoints and indices.
 */
package org.fabricmanager.daemon.rest;

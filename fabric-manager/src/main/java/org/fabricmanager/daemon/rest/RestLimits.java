package org.fabricmanager.daemon.rest;

/**
 * What one REST request may take, so that no client can make the daemon buffer more: the HTTP codec
 * refuses longer request lines (414) and header blocks (431), the aggregator longer bodies (413), and
 * each connection has one request in flight ({@link OneRequestInFlight}).
 */
final class RestLimits {
    /** Longest request line (method, URI, version). */
    static final int MAX_INITIAL_LINE = 4096;
    /** Longest header block. */
    static final int MAX_HEADER_BYTES = 8192;
    /** Longest chunk the codec hands on at once. */
    static final int MAX_CHUNK_BYTES = 8192;
    /** Longest request body (the admin actions take none; what-if bodies are small). */
    static final int MAX_BODY_BYTES = 64 * 1024;

    private RestLimits() {
    }
}

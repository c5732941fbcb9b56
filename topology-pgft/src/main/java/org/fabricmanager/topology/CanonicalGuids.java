package org.fabricmanager.topology;

/**
 * Decoding shared by the by-GUID matchers ({@link CanonicalMatch} for PGFTs, {@link HdftRecognizer}
 * for HDFTs): both generators number switches as family, role or level, and position in the GUID,
 * and end nodes from {@link PgftGenerator#NODE_GUID_BASE}.
 */
final class CanonicalGuids {
    private CanonicalGuids() {
    }

    /** Position of a canonical switch within its level or role: the low 32 bits of its GUID. */
    static int position(long guid) {
        return (int) (guid & 0xFFFF_FFFFL);
    }

    /** Destination index of a canonical node GUID below {@code nodeCount}, or -1. */
    static int nodeIndex(long guid, int nodeCount) {
        long d = guid - PgftGenerator.NODE_GUID_BASE;
        return (guid >>> 60) == 2 && d >= 0 && d < nodeCount ? (int) d : -1;
    }
}

package org.fabricmanager.agent;

/** Tables for tests outside the agent package (AppliedTable's constructor is the agent library's own). */
public final class TestTables {
    private TestTables() {
    }

    /** A table of {@code version} holding {@code entries}. */
    public static AppliedTable table(long version, byte[] entries) {
        return new AppliedTable(version, entries);
    }
}

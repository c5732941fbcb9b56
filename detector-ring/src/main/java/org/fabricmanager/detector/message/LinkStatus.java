package org.fabricmanager.detector.message;

/**
 * The latest report a member made about one of its own ports; newer reports have a higher
 * (reporterIncarnation, sequence).
 */
public record LinkStatus(int reporter, long reporterIncarnation, int port, long sequence, boolean down) {
}

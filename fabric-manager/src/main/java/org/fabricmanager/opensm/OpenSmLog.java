package org.fabricmanager.opensm;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalDouble;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What OpenSM's log (at verbose level, {@code -D 0x07} or more) says about one routing: the time
 * from {@code ucast_mgr_route: building routing with 'E'} to {@code osm_ucast_mgr_process: E
 * tables configured}, and the engine that finally configured the tables, which differs from the
 * one asked for when OpenSM fell back (ftree refuses some degraded trees and falls back to minhop).
 */
public record OpenSmLog(OptionalDouble routingMillis, String configuredBy) {
    private static final Pattern STAMP = Pattern.compile("\\w{3} +\\d+ (\\d\\d):(\\d\\d):(\\d\\d) (\\d{6}) .*");
    private static final Pattern CONFIGURED = Pattern.compile(".*osm_ucast_mgr_process: (\\S+) tables configured.*");

    /** Reads the log of one OpenSM run ({@code -o}: one sweep). */
    public static OpenSmLog read(Path log) throws IOException {
        long start = -1;
        long end = -1;
        String engine = "";
        try (BufferedReader in = Files.newBufferedReader(log, StandardCharsets.ISO_8859_1)) {
            String line;
            while ((line = in.readLine()) != null) {
                if (start < 0 && line.contains("ucast_mgr_route: building routing with")) {
                    start = micros(line);
                } else if (end < 0) {
                    Matcher m = CONFIGURED.matcher(line);
                    if (m.matches()) {
                        end = micros(line);
                        engine = m.group(1);
                    }
                }
            }
        }
        if (start < 0 || end < 0) {
            return new OpenSmLog(OptionalDouble.empty(), engine);
        }
        long elapsed = end - start;
        if (elapsed < 0) {
            elapsed += 86_400_000_000L; // the run crossed midnight
        }
        return new OpenSmLog(OptionalDouble.of(elapsed / 1000.0), engine);
    }

    private static long micros(String line) {
        Matcher m = STAMP.matcher(line);
        if (!m.matches()) {
            return -1;
        }
        long seconds = Long.parseLong(m.group(1)) * 3600 + Long.parseLong(m.group(2)) * 60 + Long.parseLong(m.group(3));
        return seconds * 1_000_000L + Long.parseLong(m.group(4));
    }
}

package org.fabricmanager.release;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Properties;
import java.util.regex.Pattern;

/**
 * The version and source commit this copy of fabric-manager was built from, so that an operator can
 * tell which release runs ({@code fabric-manager --version}, the daemon's start-up line,
 * {@code GET /api/v1/status}, the {@code fabric_build_info} metric) and a bug report can name it.
 *
 * <p>The build writes {@value #RESOURCE} (Maven's project version; the git commit when the source
 * is a git checkout and git is installed). Values that are missing or not of the expected shape,
 * as when the classes run without the build's resources, or the source had no {@code .git}, read as
 * {@value #UNKNOWN}: a version string never breaks a start-up.
 *
 * @param version    the Maven project version, e.g. {@code 0.1.0} or {@code 0.2.0-SNAPSHOT}
 * @param commit     the abbreviated commit id (12 hex digits), or {@value #UNKNOWN}
 * @param dirty      the working tree had uncommitted changes to tracked files at build time
 * @param commitTime the commit's date in ISO-8601, or {@value #UNKNOWN}
 */
public record BuildInfo(String version, String commit, boolean dirty, String commitTime) {
    /** Where the build puts the properties, on the classpath. */
    public static final String RESOURCE = "/org/fabricmanager/release/build-info.properties";
    /** What a value the build could not determine reads as. */
    public static final String UNKNOWN = "unknown";

    /** A bound on the resource read: it is a few lines; anything larger is not ours. */
    private static final int MAX_RESOURCE_BYTES = 4096;
    private static final Pattern VERSION = Pattern.compile("[0-9A-Za-z][0-9A-Za-z.+_-]{0,63}");
    private static final Pattern COMMIT = Pattern.compile("[0-9a-f]{7,40}");
    private static final Pattern TIME = Pattern.compile("[0-9T:+.Z-]{10,40}");
    private static final BuildInfo CURRENT = load();

    public BuildInfo {
        version = VERSION.matcher(version == null ? "" : version).matches() ? version : UNKNOWN;
        commit = COMMIT.matcher(commit == null ? "" : commit).matches() ? commit : UNKNOWN;
        commitTime = TIME.matcher(commitTime == null ? "" : commitTime).matches() ? commitTime : UNKNOWN;
        dirty = dirty && !UNKNOWN.equals(commit);
    }

    /** The build of the classes running now (read once; the resource cannot change in a running jar). */
    public static BuildInfo current() {
        return CURRENT;
    }

    /** The commit with {@code -dirty} appended when the tree had local changes: {@code 61ead8a1b2c3-dirty}. */
    public String commitLabel() {
        return dirty ? commit + "-dirty" : commit;
    }

    /**
     * The one-line form for logs and {@code --version}: {@code fabric-manager 0.1.0 (commit 61ead8a1b2c3,
     * 2025-11-22T10:23:00+01:00)}, or {@code fabric-manager 0.1.0 (commit unknown)} when built without git.
     */
    public String describe() {
        return "fabric-manager " + version + " (commit " + commitLabel()
                + (UNKNOWN.equals(commitTime) ? "" : ", " + commitTime) + ")";
    }

    /** Reads {@code properties} as the build writes them; absent or malformed values become {@value #UNKNOWN}. */
    static BuildInfo of(Properties properties) {
        return new BuildInfo(trimmed(properties, "version"), trimmed(properties, "commit"),
                "true".equals(trimmed(properties, "dirty").toLowerCase(Locale.ROOT)), trimmed(properties, "commitTime"));
    }

    private static String trimmed(Properties properties, String key) {
        String v = properties.getProperty(key);
        return v == null ? "" : v.trim();
    }

    private static BuildInfo load() {
        Properties properties = new Properties();
        try (InputStream in = BuildInfo.class.getResourceAsStream(RESOURCE)) {
            if (in != null) {
                byte[] bytes = in.readNBytes(MAX_RESOURCE_BYTES + 1);
                if (bytes.length <= MAX_RESOURCE_BYTES) {
                    try (Reader r = new InputStreamReader(new ByteArrayInputStream(bytes), StandardCharsets.UTF_8)) {
                        properties.load(r);
                    }
                }
            }
        } catch (IOException | IllegalArgumentException e) {
            // an unreadable resource leaves every value unknown: the version must never stop a start
        }
        return of(properties);
    }
}

package org.fabricmanager.daemon.config;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The files and directories the daemon trusts, checked at start as an operator would: what other users may write
 * decides who the daemon trusts (a CA bundle, its own certificate, the admin token) or what it pushes to every switch
 * (the state directory's indices and tables). Writable by other users: refused, naming the path and the fix.
 * Writable by the group: a WARN (a deliberate admin group is possible). The check of the admin token file itself
 * (owner only) is {@link AdminTokenFile}'s; an inline token in a configuration file others may read is a WARN from
 * {@link ConfigLoader}. Paths that do not exist yet, and file systems without POSIX permissions, are left alone.
 */
public final class TrustedFiles {
    private static final Logger LOG = LoggerFactory.getLogger(TrustedFiles.class);

    private TrustedFiles() {
    }

    /**
     * Checks the trusted paths of {@code config}.
     *
     * @throws ConfigException naming every path writable by other users
     */
    public static void check(DaemonConfig config) {
        Map<Path, String> paths = new LinkedHashMap<>();
        Security security = config.security();
        // the TLS files serve the southbound and the Raft port: without either, they are not read
        boolean tlsRead = config.southbound().enabled() || config.ha().enabled();
        if (tlsRead && security.pkiDirectory() != null) {
            paths.put(Path.of(security.pkiDirectory()), "security.pkiDirectory");
        }
        if (tlsRead && security.tlsConfigured()) {
            paths.put(security.trustedCasPath(), "the trusted CA bundle");
            paths.put(security.certificatePath(), "the daemon's certificate");
            paths.putIfAbsent(security.trustedCasPath().toAbsolutePath().getParent(), "the CA bundle's directory");
        }
        paths.put(config.state().path(), "state.directory");
        if (config.rest().adminTokenFile() != null) {
            Path parent = Path.of(config.rest().adminTokenFile()).toAbsolutePath().getParent();
            if (parent != null) {
                paths.putIfAbsent(parent, "the admin token file's directory");
            }
        }
        List<String> refused = new ArrayList<>();
        for (Map.Entry<Path, String> e : paths.entrySet()) {
            Set<PosixFilePermission> mode = mode(e.getKey());
            if (mode == null) {
                continue;
            }
            String what = e.getValue() + " " + e.getKey() + " (mode " + PosixFilePermissions.toString(mode) + ")";
            if (mode.contains(PosixFilePermission.OTHERS_WRITE)) {
                refused.add(what);
            } else if (mode.contains(PosixFilePermission.GROUP_WRITE)) {
                LOG.warn("security: {} is writable by its group: its members can change what the daemon trusts or "
                        + "pushes (chmod g-w unless that is meant)", what);
            }
        }
        if (!refused.isEmpty()) {
            throw new ConfigException("writable by any user, so anyone on this host could change whom the daemon "
                    + "trusts or what it pushes to the switches: " + String.join(", ", refused) + " (chmod o-w)");
        }
    }

    /** The permissions of {@code path} (of its target, for a symbolic link), or null when unknown. */
    private static Set<PosixFilePermission> mode(Path path) {
        if (path == null || !Files.exists(path)) {
            return null;
        }
        try {
            return Files.getPosixFilePermissions(path);
        } catch (UnsupportedOperationException | IOException e) {
            return null;
        }
    }
}

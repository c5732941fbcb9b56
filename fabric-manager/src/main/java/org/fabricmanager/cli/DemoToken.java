package org.fabricmanager.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * The demos' and netlab's admin token: without one the daemon refuses every action (what-if, drain, rebalance,
 * re-route), so a new user following the README got "403: no admin token is configured" from the demo. A random token
 * in the demo's state directory (a lab's directory), only its owner may read, kept with that directory (a demo
 * restarted on the same {@code --state-dir} keeps it), passed to the CLI's {@code --token-file}.
 */
final class DemoToken {
    /** The token's file inside the demo's state directory. */
    static final String FILE = "admin-token";

    private DemoToken() {
    }

    /** The token of {@code stateDirectory}, written (mode 0600) when it has none. */
    static String ensure(Path stateDirectory) throws IOException {
        Path file = file(stateDirectory);
        if (Files.exists(file)) {
            return WhatIfCommand.token(file);
        }
        byte[] random = new byte[24];
        new SecureRandom().nextBytes(random);
        String token = HexFormat.of().formatHex(random);
        Files.createDirectories(stateDirectory);
        Files.writeString(Files.createFile(file, PosixFilePermissions.asFileAttribute(
                PosixFilePermissions.fromString("rw-------"))), token + "\n", StandardCharsets.UTF_8,
                StandardOpenOption.TRUNCATE_EXISTING);
        return token;
    }

    static Path file(Path stateDirectory) {
        return stateDirectory.resolve(FILE);
    }
}

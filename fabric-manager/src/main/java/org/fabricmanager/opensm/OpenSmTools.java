package org.fabricmanager.opensm;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Where OpenSM, ibsim, ibnetdiscover and ibsim's {@code libumad2sim} preload library are on this
 * machine, found on the {@code PATH} (plus the sbin directories, where Debian puts OpenSM) and in
 * the library directories ibsim-utils installs to.
 */
public record OpenSmTools(Path opensm, Path ibsim, Path ibnetdiscover, Path umad2sim) {
    /** The command that installs everything on Debian and Ubuntu. */
    public static final String INSTALL_HINT = "apt-get install opensm ibsim-utils infiniband-diags";

    private static final List<String> LIBRARY_DIRS = List.of("/usr/lib/x86_64-linux-gnu/umad2sim",
            "/usr/lib/aarch64-linux-gnu/umad2sim", "/usr/lib64/umad2sim", "/usr/lib/umad2sim", "/usr/local/lib/umad2sim");

    /** The tools, or empty when one is missing ({@link #missing()} names which). */
    public static Optional<OpenSmTools> find() {
        Optional<Path> opensm = executable("opensm");
        Optional<Path> ibsim = executable("ibsim");
        Optional<Path> ibnetdiscover = executable("ibnetdiscover");
        Optional<Path> umad2sim = library();
        if (opensm.isEmpty() || ibsim.isEmpty() || ibnetdiscover.isEmpty() || umad2sim.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new OpenSmTools(opensm.get(), ibsim.get(), ibnetdiscover.get(), umad2sim.get()));
    }

    /** The tools that {@link #find()} does not find, by package name. */
    public static List<String> missing() {
        List<String> missing = new ArrayList<>();
        if (executable("opensm").isEmpty()) {
            missing.add("opensm (opensm)");
        }
        if (executable("ibsim").isEmpty() || library().isEmpty()) {
            missing.add("ibsim and libumad2sim (ibsim-utils)");
        }
        if (executable("ibnetdiscover").isEmpty()) {
            missing.add("ibnetdiscover (infiniband-diags)");
        }
        return missing;
    }

    private static Optional<Path> executable(String name) {
        List<String> dirs = new ArrayList<>(List.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)));
        dirs.addAll(List.of("/usr/sbin", "/sbin", "/usr/local/sbin"));
        for (String dir : dirs) {
            if (dir.isEmpty()) {
                continue;
            }
            Path p = Path.of(dir, name);
            if (Files.isRegularFile(p) && Files.isExecutable(p)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    private static Optional<Path> library() {
        for (String dir : LIBRARY_DIRS) {
            Path p = Path.of(dir, "libumad2sim.so");
            if (Files.isRegularFile(p)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }
}

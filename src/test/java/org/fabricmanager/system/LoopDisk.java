package org.fabricmanager.system;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A small ext4 file system on a loop device, mounted at a directory for a system test, whose writes the test can
 * make slow: a slow disk under one process's state directory. The slowdown is a write-IOPS limit on the device in
 * the root cgroup of cgroup v1's blkio controller, which also governs the kernel's writeback and journal threads,
 * so a write and its fsync wait as they would on a failing disk. Needs root, losetup, mkfs.ext4 and that
 * controller; {@link #unavailable()} and {@link #cannotThrottle()} say why not. {@link #close()} lifts the limit, unmounts and detaches.
 */
final class LoopDisk implements AutoCloseable {
    private static final Path THROTTLE = Path.of("/sys/fs/cgroup/blkio/blkio.throttle.write_iops_device");

    private final String device;
    private final String majorMinor;
    private final Path mountPoint;

    private LoopDisk(String device, String majorMinor, Path mountPoint) {
        this.device = device;
        this.majorMinor = majorMinor;
        this.mountPoint = mountPoint;
    }

    /** Why a slow disk cannot be made here, or {@code null} when it can. */
    static String unavailable() {
        if (!"root".equals(System.getProperty("user.name"))) {
            return "loop devices need root (running as " + System.getProperty("user.name") + ")";
        }
        for (String tool : List.of("losetup", "mkfs.ext4", "mount")) {
            if (!Files.isExecutable(Path.of("/usr/sbin", tool)) && !Files.isExecutable(Path.of("/sbin", tool))
                    && !Files.isExecutable(Path.of("/usr/bin", tool)) && !Files.isExecutable(Path.of("/bin", tool))) {
                return "no " + tool + ": install Debian's mount and e2fsprogs";
            }
        }
        return null;
    }

    /** Why {@link #slowWrites} cannot work here, or {@code null} when it can. */
    static String cannotThrottle() {
        return Files.isWritable(THROTTLE) ? null : "no cgroup v1 blkio write throttle at " + THROTTLE;
    }

    /** A 64 MiB ext4 in {@code image} (sparse), mounted at {@code at}, owner-only, at full speed. */
    static LoopDisk mount(Path image, Path at) throws IOException {
        must("truncate", "-s", "64M", image.toString());
        String device = must("losetup", "-f", "--show", image.toString()).strip();
        String majorMinor = Files.readString(Path.of("/sys/block", Path.of(device).getFileName().toString(), "dev")).strip();
        LoopDisk disk = new LoopDisk(device, majorMinor, at);
        try {
            if (cannotThrottle() == null) {
                disk.fullSpeed(); // a limit a crashed run left on this device number
            }
            must("mkfs.ext4", "-q", device);
            Files.createDirectories(at);
            must("mount", device, at.toString());
            must("chmod", "0750", at.toString());
            must("rmdir", at.resolve("lost+found").toString());
        } catch (IOException e) {
            disk.close();
            throw e;
        }
        return disk;
    }

    /** Limits the device to {@code iops} writes a second (a journal commit and an fsync are several). */
    void slowWrites(int iops) throws IOException {
        Files.writeString(THROTTLE, majorMinor + " " + iops);
    }

    /** Lifts the limit. */
    void fullSpeed() throws IOException {
        Files.writeString(THROTTLE, majorMinor + " 0");
    }

    @Override
    public void close() throws IOException {
        try {
            if (cannotThrottle() == null) {
                fullSpeed();
            }
        } finally {
            run("umount", "-l", mountPoint.toString());
            run("losetup", "-d", device);
        }
    }

    private static String must(String... command) throws IOException {
        StringBuilder out = new StringBuilder();
        int code = run(out, command);
        if (code != 0) {
            throw new IOException(String.join(" ", command) + ": exit " + code + ": " + out.toString().strip());
        }
        return out.toString();
    }

    private static void run(String... command) throws IOException {
        run(new StringBuilder(), command);
    }

    private static int run(StringBuilder out, String... command) throws IOException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        out.append(new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
        try {
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(String.join(" ", command) + ": still running after 60 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
        return p.exitValue();
    }
}

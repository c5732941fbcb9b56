package org.fabricmanager.daemon.store;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.CRC32C;

/**
 * A small state file of one entry per line under a checked header, {@code <format> entries=<n>
 * crc32c=<8 hex digits>}: the count and the CRC-32C of every byte after the header make a damaged or
 * truncated file an error, and lines and counts are bounded before anything is allocated. Written
 * atomically. {@code #} lines are comments.
 */
final class ChecksummedLines {
    private ChecksummedLines() {
    }

    /** Atomically replaces {@code file} with {@code lines} under a {@code format} header. */
    static void write(Path file, String format, String comment, List<String> lines, StateFiles files) {
        StringBuilder body = new StringBuilder(lines.size() * 20 + 64);
        body.append("# ").append(comment).append('\n');
        for (String l : lines) {
            body.append(l).append('\n');
        }
        byte[] bytes = body.toString().getBytes(StandardCharsets.UTF_8);
        CRC32C crc = new CRC32C();
        crc.update(bytes);
        byte[] header = String.format(Locale.ROOT, "%s entries=%d crc32c=%08x\n", format, lines.size(), crc.getValue())
                .getBytes(StandardCharsets.UTF_8);
        byte[] content = new byte[header.length + bytes.length];
        System.arraycopy(header, 0, content, 0, header.length);
        System.arraycopy(bytes, 0, content, header.length, bytes.length);
        try {
            files.write(file, content);
        } catch (IOException e) {
            throw new StoreException(file + ": cannot write: " + e.getMessage(), e);
        }
    }

    /**
     * The entries of {@code file} (empty when it does not exist).
     *
     * @throws StoreException naming the file and what is wrong with it
     */
    static List<String> read(Path file, String format, int maxEntries, int maxLineBytes) {
        if (!Files.exists(file)) {
            return List.of();
        }
        Pattern headerForm = Pattern.compile(Pattern.quote(format) + " entries=(\\d{1,9}) crc32c=([0-9a-f]{8})");
        try (InputStream in = new BufferedInputStream(Files.newInputStream(file), 1 << 16)) {
            BoundedLines lines = new BoundedLines(in, maxLineBytes);
            String first = lines.next();
            Matcher m = first == null ? null : headerForm.matcher(first.trim());
            if (m == null || !m.matches()) {
                throw damaged(file, "line 1: expected '" + format + " entries=<n> crc32c=<hex>'");
            }
            int entries = Integer.parseInt(m.group(1));
            if (entries > maxEntries) {
                throw damaged(file, "line 1: " + entries + " entries, more than " + maxEntries);
            }
            CRC32C crc = new CRC32C();
            List<String> out = new ArrayList<>(entries);
            String line;
            while ((line = lines.next()) != null) {
                crc.update(lines.bytes(), 0, lines.length());
                crc.update('\n');
                String t = line.trim();
                if (t.isEmpty() || t.startsWith("#")) {
                    continue;
                }
                if (out.size() >= entries) {
                    throw damaged(file, "more entries than the header's " + entries + " (line " + lines.number() + ")");
                }
                out.add(t);
            }
            if (out.size() != entries) {
                throw damaged(file, out.size() + " entries but the header says " + entries + " (truncated?)");
            }
            String actual = String.format(Locale.ROOT, "%08x", crc.getValue());
            if (!actual.equals(m.group(2))) {
                throw damaged(file, "checksum " + actual + " does not match the header's " + m.group(2));
            }
            return out;
        } catch (BoundedLines.LineTooLongException e) {
            throw damaged(file, e.getMessage());
        } catch (IOException e) {
            throw new StoreException(file + ": cannot read: " + e.getMessage(), e);
        }
    }

    private static StoreException damaged(Path file, String what) {
        return new StoreException(file + ": damaged: " + what + "; restore it from a backup");
    }
}

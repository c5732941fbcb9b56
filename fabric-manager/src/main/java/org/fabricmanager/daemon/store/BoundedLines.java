package org.fabricmanager.daemon.store;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * Reads a text file line by line without trusting it: a line longer than the limit is an error (not a
 * string as long as the file), and the bytes of every line are handed to a checksum before decoding.
 */
final class BoundedLines {
    private final InputStream in;
    private final int maxLineBytes;
    private final byte[] line;
    private int length;
    private int number;

    BoundedLines(InputStream in, int maxLineBytes) {
        this.in = in;
        this.maxLineBytes = maxLineBytes;
        this.line = new byte[maxLineBytes];
    }

    /**
     * The next line without its line feed, or {@code null} at the end of the file.
     *
     * @throws LineTooLongException when a line exceeds the limit
     */
    String next() throws IOException {
        length = 0;
        int b;
        boolean any = false;
        while ((b = in.read()) != -1) {
            any = true;
            if (b == '\n') {
                break;
            }
            if (length == maxLineBytes) {
                throw new LineTooLongException(number + 1, maxLineBytes);
            }
            line[length++] = (byte) b;
        }
        if (!any) {
            return null;
        }
        number++;
        return new String(line, 0, length, StandardCharsets.UTF_8);
    }

    /** The raw bytes of the last line (valid until the next call), and its length. */
    byte[] bytes() {
        return line;
    }

    int length() {
        return length;
    }

    /** The 1-based number of the last line returned. */
    int number() {
        return number;
    }

    /** A line above the limit. */
    static final class LineTooLongException extends IOException {
        private static final long serialVersionUID = 1L;
        final int line;

        LineTooLongException(int line, int max) {
            super("line " + line + " is longer than " + max + " bytes");
            this.line = line;
        }
    }
}

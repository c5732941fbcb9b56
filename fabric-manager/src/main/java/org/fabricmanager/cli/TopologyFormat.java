package org.fabricmanager.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * The format of a {@code --topology} file: {@code --topology-format} when given, otherwise
 * detected from the first line that is neither blank nor a {@code #} comment ({@code {} starts
 * fabric-topology/1 JSON; anything else is read as ibnetdiscover output, whose reader names the
 * first line it does not understand).
 */
enum TopologyFormat {
    FABRIC_TOPOLOGY, IBNETDISCOVER;

    /** How many lines detection looks at before giving up on finding content. */
    private static final int DETECT_LINES = 1000;

    static TopologyFormat of(Arguments args, Path file) {
        String named = args.value("topology-format").orElse(null);
        if (named != null) {
            return switch (named) {
                case "fabric-topology", "fabric-topology/1", "json" -> FABRIC_TOPOLOGY;
                case "ibnetdiscover" -> IBNETDISCOVER;
                default -> throw new UsageException(args.command() + ": --topology-format: unknown format '" + named
                        + "' (known: fabric-topology, ibnetdiscover)");
            };
        }
        return detect(file);
    }

    static TopologyFormat detect(Path file) {
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String line;
            for (int i = 0; i < DETECT_LINES && (line = in.readLine()) != null; i++) {
                String t = line.strip();
                if (t.isEmpty() || t.startsWith("#")) {
                    continue;
                }
                return t.startsWith("{") ? FABRIC_TOPOLOGY : IBNETDISCOVER;
            }
            return FABRIC_TOPOLOGY;
        } catch (NoSuchFileException e) {
            throw new UsageException(file + ": no such file");
        } catch (IOException e) {
            // a file that is not text falls to the JSON reader, whose message names the problem
            return FABRIC_TOPOLOGY;
        }
    }
}

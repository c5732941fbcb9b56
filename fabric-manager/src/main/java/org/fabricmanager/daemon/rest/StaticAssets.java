package org.fabricmanager.daemon.rest;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The status page's files, read once from the jar ({@code /ui/} on the class path) and served by exact
 * name only: a request names one of these or gets 404, so no path, encoded or not, can reach another
 * file. Each carries its content type and an entity tag (a hash of its bytes) for conditional requests.
 */
final class StaticAssets {
    /** One file: its bytes, content type and entity tag. */
    record Asset(byte[] body, String type, String etag) {
    }

    /** The files the page consists of and their content types. */
    private static final Map<String, String> TYPES = Map.of(
            "index.html", "text/html; charset=utf-8",
            "status.js", "text/javascript; charset=utf-8",
            "ports.js", "text/javascript; charset=utf-8",
            "status.css", "text/css; charset=utf-8",
            "favicon.svg", "image/svg+xml");

    private final Map<String, Asset> assets;

    private StaticAssets(Map<String, Asset> assets) {
        this.assets = assets;
    }

    /**
     * Reads the page's files from the class path.
     *
     * @throws IllegalStateException naming a file the jar lacks (a broken build)
     */
    static StaticAssets load() {
        Map<String, Asset> assets = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : TYPES.entrySet()) {
            String resource = "/ui/" + e.getKey();
            try (InputStream in = StaticAssets.class.getResourceAsStream(resource)) {
                if (in == null) {
                    throw new IllegalStateException("the status page's " + resource + " is missing from the jar");
                }
                byte[] body = in.readAllBytes();
                assets.put(e.getKey(), new Asset(body, e.getValue(), etag(body)));
            } catch (IOException ex) {
                throw new UncheckedIOException("cannot read " + resource + " from the jar", ex);
            }
        }
        return new StaticAssets(Map.copyOf(assets));
    }

    /** The asset named {@code name} (e.g. {@code status.js}), or {@code null}. */
    Asset get(String name) {
        return assets.get(name);
    }

    private static String etag(byte[] body) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(body);
            return "\"" + HexFormat.of().formatHex(d, 0, 12) + "\"";
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is not available", e);
        }
    }
}

package org.fabricmanager.daemon.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.function.Function;

/** The JSON bodies of the admin POSTs (what-if, drain): read once, the same errors for each. */
final class RequestBodies {
    private static final ObjectMapper JSON = new ObjectMapper();

    private RequestBodies() {
    }

    /**
     * The body as a JSON object; otherwise {@code bad} of "the body is not JSON: ...", "... cannot be read: ..." or
     * "the body must be a JSON object " + {@code shape}.
     */
    static JsonNode object(byte[] body, String shape, Function<String, RuntimeException> bad) {
        JsonNode root;
        try {
            root = JSON.readTree(body);
        } catch (JsonProcessingException e) {
            throw bad.apply("the body is not JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw bad.apply("the body cannot be read: " + e.getMessage());
        }
        if (root == null || !root.isObject()) {
            throw bad.apply("the body must be a JSON object " + shape);
        }
        return root;
    }

    /** A value for an error message, cut at 64 characters (a hostile body may hold megabytes). */
    static String abbreviated(Object value) {
        String text = String.valueOf(value);
        return text.length() <= 64 ? text : text.substring(0, 64) + "...";
    }
}

package org.fabricmanager.daemon.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * The JSON bodies of the admin POSTs (what-if, drain) and the GUIDs of the REST API: read once, strictly, the same
 * errors for each. A body is one JSON object naming each field once (Jackson keeps the last of a field named twice,
 * so {@code {"guid":A,"guid":B}} would act on B while a log or a proxy shows A) with nothing after it; a GUID is
 * {@code 0x} and 1 to 16 hex digits, nothing else (no space, no control character, no other prefix), so that one
 * switch has one spelling in requests as in the daemon's answers.
 */
public final class RequestBodies {
    private static final ObjectMapper JSON = JsonMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();
    private static final Pattern GUID = Pattern.compile("0x[0-9a-fA-F]{1,16}");

    private RequestBodies() {
    }

    /**
     * The body as a JSON object; otherwise {@code bad} of "the body is not JSON: ...", "... names a field twice: ...",
     * "... cannot be read: ..." or "the body must be a JSON object " + {@code shape}.
     */
    static JsonNode object(byte[] body, String shape, Function<String, RuntimeException> bad) {
        JsonNode root;
        try {
            root = JSON.readTree(body);
        } catch (JsonProcessingException e) {
            String why = e.getOriginalMessage();
            throw bad.apply(why != null && why.startsWith("Duplicate field")
                    ? "the body names a field twice: " + why : "the body is not JSON: " + why);
        } catch (IOException e) {
            throw bad.apply("the body cannot be read: " + e.getMessage());
        }
        if (root == null || !root.isObject()) {
            throw bad.apply("the body must be a JSON object " + shape);
        }
        return root;
    }

    /**
     * A GUID of a request: {@code 0x} followed by 1 to 16 hex digits of either case, nothing else; otherwise
     * {@code bad} of "bad GUID '...': ..." (the text abbreviated, control characters shown escaped).
     */
    public static long guid(String text, Function<String, RuntimeException> bad) {
        if (text == null || !GUID.matcher(text).matches()) {
            throw bad.apply("bad GUID '" + abbreviated(text) + "': expected 0x followed by 1 to 16 hex digits");
        }
        return Long.parseUnsignedLong(text.substring(2), 16);
    }

    /**
     * A value for an error message, cut at 64 characters (a hostile body may hold megabytes), control characters
     * written as {@code \\uXXXX} so that the message shows what was sent.
     */
    static String abbreviated(Object value) {
        String text = String.valueOf(value);
        String cut = text.length() <= 64 ? text : text.substring(0, 64);
        StringBuilder out = new StringBuilder(cut.length() + 8);
        for (int i = 0; i < cut.length(); i++) {
            char c = cut.charAt(i);
            if (Character.isISOControl(c)) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return cut.length() < text.length() ? out + "..." : out.toString();
    }
}

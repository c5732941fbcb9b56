package org.fabricmanager.daemon.rest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.List;
import java.util.Map;
import org.fabricmanager.daemon.api.RequestBodies;

/** JSON bodies and the parameter parsing shared by the REST endpoints and extensions. */
public final class RestJson {
    static final ObjectMapper JSON = new ObjectMapper().disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);

    private RestJson() {
    }

    /** {@code value} as JSON bytes. */
    public static byte[] bytes(Object value) {
        try {
            return JSON.writeValueAsBytes(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write JSON: " + e.getMessage(), e);
        }
    }

    /**
     * A GUID path segment or parameter ({@code 0x} and 1 to 16 hex digits, nothing else: no space or control
     * character, which percent-escapes could bring), 400 otherwise.
     */
    public static long guid(String text) {
        return RequestBodies.guid(text, why -> new RestError(HttpResponseStatus.BAD_REQUEST, why));
    }

    /** The single value of query parameter {@code name}; 400 when it is missing and {@code fallback} is null. */
    public static String single(Map<String, List<String>> params, String name, String fallback) {
        List<String> v = params.get(name);
        if (v == null || v.isEmpty()) {
            if (fallback == null) {
                throw new RestError(HttpResponseStatus.BAD_REQUEST, "missing query parameter '" + name + "'");
            }
            return fallback;
        }
        if (v.size() > 1) {
            throw new RestError(HttpResponseStatus.BAD_REQUEST, "query parameter '" + name + "' given " + v.size()
                    + " times");
        }
        return v.get(0);
    }
}

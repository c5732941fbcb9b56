package org.fabricmanager.daemon.ha;

import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.fabricmanager.daemon.rest.RestError;
import org.fabricmanager.daemon.rest.RestExtension;
import org.fabricmanager.daemon.rest.RestJson;

/**
 * {@code GET /api/v1/ha} on the active manager's REST server: the same body a standby serves, so that a
 * client can ask any member who leads. The resource takes no action (POST is 405).
 */
final class HaResource implements RestExtension {
    private final Supplier<Map<String, Object>> ha;

    HaResource(Supplier<Map<String, Object>> ha) {
        this.ha = ha;
    }

    @Override
    public String resource() {
        return "ha";
    }

    @Override
    public String allow() {
        return "GET, HEAD";
    }

    @Override
    public CompletableFuture<byte[]> post(String[] parts, Map<String, List<String>> params, String path) {
        throw new RestError(HttpResponseStatus.METHOD_NOT_ALLOWED, "POST not allowed on " + path + " (GET only)");
    }

    @Override
    public CompletableFuture<byte[]> get(String[] parts, Map<String, List<String>> params, String path) {
        if (parts.length != 4) {
            throw RestError.notFound(path);
        }
        return CompletableFuture.completedFuture(RestJson.bytes(ha.get()));
    }
}

package org.fabricmanager.daemon.rest;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;

/**
 * Writes one complete HTTP response the way every endpoint of the REST server answers: a full body
 * (none for HEAD, with its length), never cached, and the connection kept or closed as asked.
 */
final class HttpResponses {
    private HttpResponses() {
    }

    static void send(ChannelHandlerContext ctx, HttpResponseStatus status, String contentType, byte[] body,
                     boolean keepAlive, boolean head) {
        send(ctx, status, contentType, body, keepAlive, head, null);
    }

    /** As above; {@code allow}, when not {@code null}, is the {@code Allow} header of a 405. */
    static void send(ChannelHandlerContext ctx, HttpResponseStatus status, String contentType, byte[] body,
                     boolean keepAlive, boolean head, String allow) {
        send(ctx, status, contentType, body, keepAlive, head, allow, null);
    }

    /** As above; {@code location}, when not {@code null}, is the {@code Location} header (a standby's 421). */
    static void send(ChannelHandlerContext ctx, HttpResponseStatus status, String contentType, byte[] body,
                     boolean keepAlive, boolean head, String allow, String location) {
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
                head ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(body));
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType);
        response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
        response.headers().set(HttpHeaderNames.CACHE_CONTROL, "no-store");
        if (allow != null) {
            response.headers().set(HttpHeaderNames.ALLOW, allow);
        }
        if (location != null) {
            response.headers().set(HttpHeaderNames.LOCATION, location);
        }
        if (keepAlive) {
            HttpUtil.setKeepAlive(response, true);
            ctx.writeAndFlush(response);
        } else {
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
        }
    }
}

package org.fabricmanager.daemon.rest;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.util.Map;

/**
 * Request aggregation within {@link RestLimits#MAX_BODY_BYTES}: a longer body is answered 413 with a JSON error and
 * the connection closed, like every request refused before the endpoints ({@link MalformedRequests}). Netty's own
 * answer has no body and keeps a keep-alive connection open without asking for the next request, so a request
 * pipelined after it waited for the idle timeout.
 */
final class BoundedAggregator extends HttpObjectAggregator {
    private final RestRejections rejections;

    BoundedAggregator(RestRejections rejections) {
        super(RestLimits.MAX_BODY_BYTES);
        this.rejections = rejections;
    }

    @Override
    protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
        rejections.record(HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE.code(), ctx.channel().remoteAddress());
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE, Unpooled.wrappedBuffer(RestJson.bytes(Map.of("error",
                        "request body longer than " + RestLimits.MAX_BODY_BYTES + " bytes"))));
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/json; charset=utf-8");
        response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, response.content().readableBytes());
        response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
    }
}

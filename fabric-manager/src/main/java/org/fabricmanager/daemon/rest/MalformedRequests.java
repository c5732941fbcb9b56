package org.fabricmanager.daemon.rest;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers what the HTTP codec could not parse, before any endpoint sees it, and closes the connection
 * (its byte stream cannot be trusted to resume at a request boundary): a request line longer than
 * {@link RestLimits#MAX_INITIAL_LINE} is 414, headers longer than {@link RestLimits#MAX_HEADER_BYTES}
 * 431, any other decoding failure or a URI whose percent-encoding does not decode 400. Counted by reason
 * in {@link RestRejections}, logged rate-limited there.
 */
final class MalformedRequests extends SimpleChannelInboundHandler<FullHttpRequest> {
    private static final Logger LOG = LoggerFactory.getLogger(MalformedRequests.class);

    private final RestRejections rejections;

    MalformedRequests(RestRejections rejections) {
        super(false);
        this.rejections = rejections;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        HttpResponseStatus status = null;
        String why = null;
        DecoderResult result = request.decoderResult();
        if (result.isFailure()) {
            Throwable cause = result.cause();
            if (cause instanceof TooLongHttpLineException) {
                status = HttpResponseStatus.REQUEST_URI_TOO_LONG;
                why = "request line longer than " + RestLimits.MAX_INITIAL_LINE + " bytes";
            } else if (cause instanceof TooLongHttpHeaderException) {
                status = HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE;
                why = "headers longer than " + RestLimits.MAX_HEADER_BYTES + " bytes";
            } else if (cause instanceof TooLongFrameException) {
                status = HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE;
                why = cause.getMessage();
            } else {
                status = HttpResponseStatus.BAD_REQUEST;
                why = "malformed request: " + cause.getMessage();
            }
        } else {
            try {
                QueryStringDecoder uri = new QueryStringDecoder(request.uri());
                uri.path();
                uri.parameters();
            } catch (IllegalArgumentException e) {
                status = HttpResponseStatus.BAD_REQUEST;
                why = "malformed URI: " + e.getMessage();
            }
        }
        if (status == null) {
            ctx.fireChannelRead(request);
            return;
        }
        request.release();
        rejections.record(status.code(), ctx.channel().remoteAddress());
        LOG.debug("REST {} from {}: {}", status.code(), ctx.channel().remoteAddress(), why);
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
                Unpooled.wrappedBuffer(RestJson.bytes(Map.of("error", why))));
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/json; charset=utf-8");
        response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, response.content().readableBytes());
        response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
    }
}

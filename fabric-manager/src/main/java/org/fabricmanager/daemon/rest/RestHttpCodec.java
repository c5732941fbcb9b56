package org.fabricmanager.daemon.rest;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.CombinedChannelDuplexHandler;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpRequestDecoder;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseEncoder;
import io.netty.handler.codec.http.HttpStatusClass;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Queue;

/**
 * The REST server's HTTP/1.1 codec: Netty's {@code HttpServerCodec} (request decoding within {@link RestLimits}, and
 * no body in the answer to a HEAD or a tunnel's CONNECT) with a strict reading of how long a request's body is
 * (RFC 9112, section 6.3). A request with both {@code Content-Length} and {@code Transfer-Encoding}, or with a
 * {@code Transfer-Encoding} other than a single {@code chunked}, is a decoding failure, which
 * {@link MalformedRequests} answers 400 before closing the connection: a proxy in front may have read such a body
 * otherwise, and what follows it on the connection could be a smuggled request. {@code HttpServerCodec} cannot do
 * this: its decoder drops {@code Content-Length} beside {@code chunked} and goes on with the connection.
 */
final class RestHttpCodec extends CombinedChannelDuplexHandler<HttpRequestDecoder, HttpResponseEncoder> {
    /** The methods of the requests decoded and not answered yet, oldest first (one in flight, but pipelined). */
    private final Queue<HttpMethod> methods = new ArrayDeque<>();

    RestHttpCodec() {
        init(new Decoder(new HttpDecoderConfig().setMaxInitialLineLength(RestLimits.MAX_INITIAL_LINE)
                .setMaxHeaderSize(RestLimits.MAX_HEADER_BYTES).setMaxChunkSize(RestLimits.MAX_CHUNK_BYTES)),
                new Encoder());
    }

    /** Why the body of {@code request} has no single length (RFC 9112, section 6.3), or {@code null}. */
    static String framingProblem(HttpMessage request) {
        List<String> codings = request.headers().getAll(HttpHeaderNames.TRANSFER_ENCODING);
        if (codings.isEmpty()) {
            return null;
        }
        if (request.headers().contains(HttpHeaderNames.CONTENT_LENGTH)) {
            return "both Content-Length and Transfer-Encoding: the body's length is ambiguous";
        }
        if (codings.size() != 1 || !HttpHeaderValues.CHUNKED.contentEqualsIgnoreCase(codings.get(0).trim())) {
            return "Transfer-Encoding " + codings + ": only a single chunked is accepted";
        }
        return null;
    }

    private final class Decoder extends HttpRequestDecoder {
        Decoder(HttpDecoderConfig config) {
            super(config);
        }

        @Override
        protected void decode(ChannelHandlerContext ctx, ByteBuf buffer, List<Object> out) throws Exception {
            int before = out.size();
            super.decode(ctx, buffer, out);
            for (int i = before; i < out.size(); i++) {
                if (out.get(i) instanceof HttpRequest r) {
                    methods.add(r.method());
                }
            }
        }

        /**
         * Netty asks this once a request's headers are read, before it picks how to read the body (and before it
         * drops {@code Content-Length} beside {@code chunked}): the one place that sees both. An exception here
         * makes the request a decoding failure and the rest of the connection's bytes are discarded.
         */
        @Override
        protected boolean isContentAlwaysEmpty(HttpMessage msg) {
            String problem = framingProblem(msg);
            if (problem != null) {
                throw new IllegalArgumentException(problem);
            }
            return super.isContentAlwaysEmpty(msg);
        }
    }

    private final class Encoder extends HttpResponseEncoder {
        private HttpMethod method;

        @Override
        protected boolean isContentAlwaysEmpty(HttpResponse response) {
            method = methods.poll();
            return HttpMethod.HEAD.equals(method) || super.isContentAlwaysEmpty(response);
        }

        @Override
        protected void sanitizeHeadersBeforeEncode(HttpResponse response, boolean isAlwaysEmpty) {
            if (!isAlwaysEmpty && HttpMethod.CONNECT.equals(method)
                    && response.status().codeClass() == HttpStatusClass.SUCCESS) {
                // a successful CONNECT has no body: no Transfer-Encoding either (as HttpServerCodec does)
                response.headers().remove(HttpHeaderNames.TRANSFER_ENCODING);
                return;
            }
            super.sanitizeHeadersBeforeEncode(response, isAlwaysEmpty);
        }
    }
}

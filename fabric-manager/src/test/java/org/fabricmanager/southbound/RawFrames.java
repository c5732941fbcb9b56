package org.fabricmanager.southbound;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.List;
import org.fabricmanager.southbound.Message.ErrorReport;

/**
 * Frames over a plain socket, for tests that play a misbehaving or hand-driven agent against the
 * daemon's real server (unit tests here and the system tests in the top-level {@code src/test}).
 */
public final class RawFrames {
    private RawFrames() {
    }

    /** The bytes of {@code m}'s frame. */
    public static byte[] frame(Message m) {
        ByteBuf buf = Unpooled.buffer();
        try {
            SouthboundCodec.encode(m, buf);
            byte[] bytes = new byte[buf.readableBytes()];
            buf.readBytes(bytes);
            return bytes;
        } finally {
            buf.release();
        }
    }

    /** Writes {@code m} as one frame and flushes. */
    public static void send(Socket s, Message m) throws IOException {
        OutputStream out = s.getOutputStream();
        out.write(frame(m));
        out.flush();
    }

    /** Reads one frame (the socket's read timeout applies). */
    public static Message readFrame(Socket s) throws IOException {
        DataInputStream in = new DataInputStream(s.getInputStream());
        byte[] f = new byte[in.readInt()];
        in.readFully(f);
        return SouthboundCodec.decode(Unpooled.wrappedBuffer(f));
    }

    /** Reads frames until the peer closes the connection; a read timeout (no close) throws. */
    public static List<Message> readUntilClosed(Socket s) throws IOException {
        List<Message> out = new ArrayList<>();
        try {
            while (true) {
                out.add(readFrame(s));
            }
        } catch (EOFException | SocketException closed) {
            return out;
        }
    }

    /** The ERROR the peer sent last before closing (fails the test when there is none). */
    public static ErrorReport lastError(List<Message> frames) {
        assertThat(frames).isNotEmpty();
        Message last = frames.get(frames.size() - 1);
        assertThat(last).as("last frame before the close").isInstanceOf(ErrorReport.class);
        return (ErrorReport) last;
    }
}

package org.fabricmanager.system;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.fabricmanager.daemon.opensm.OpenSmAnswer;
import org.fabricmanager.daemon.opensm.OpenSmWire;
import org.fabricmanager.daemon.opensm.Refusal;

/**
 * A daemon impostor on OpenSM's plug-in's socket ({@link OpenSmRoutingIT}): it answers every routing pass as its
 * {@link Mode} says, and closes every other connection (the plug-in's channel) after its first frame, counting them:
 * the plug-in reconnects its channel every second, so the count shows its channel thread turning. {@link Mode#INVALID}
 * refuses the channel's frame too, as the daemon refuses a channel frame it cannot take.
 */
final class FakeOpenSmDaemon implements AutoCloseable {
    /**
     * How the impostor answers, what OpenSM's log then says, and whether the plug-in takes the routing back (asks
     * OpenSM to re-route) once the socket listens: only for a daemon away or a leadership moving.
     */
    enum Mode {
        GARBAGE("answer is not of this protocol", false),
        LATE("no answer in time", false),
        HUGE("answer larger than the subnet allows", false),
        STALE_DELTA("answer changes tables the plug-in does not hold", false),
        BAD_DELTA("answer changes a LID beyond its entries", false),
        BAD_PORT("answer routes a LID to a port the switch does not have", false),
        UNKNOWN_SWITCH("answer names a switch OpenSM does not know", false),
        NOT_READY("ERR FA04", false),
        INVALID("ERR FA05", false),
        UNKNOWN_CODE("ERR FA07", false),
        CLOSES("ERR FA02", true),
        MOVING("ERR FA03", true);

        final String logged;
        final boolean takesBack;

        Mode(String logged, boolean takesBack) {
            this.logged = logged;
            this.takesBack = takesBack;
        }
    }

    private final ServerSocketChannel server;
    private final Path socket;
    private final Thread thread;
    private final AtomicInteger channels = new AtomicInteger();

    /** Listens on {@code socket} in place of the daemon; {@code lateMs}: how long {@link Mode#LATE} waits. */
    FakeOpenSmDaemon(Path socket, Mode mode, long lateMs) throws IOException {
        this.socket = socket;
        Files.deleteIfExists(socket);
        server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(socket));
        thread = new Thread(() -> {
            while (true) {
                try (SocketChannel ch = server.accept()) {
                    ByteBuffer head = ByteBuffer.allocate(OpenSmWire.HEADER_BYTES);
                    while (head.hasRemaining() && ch.read(head) >= 0) {
                        // the frame's header
                    }
                    if (head.getInt(0) != OpenSmWire.MAGIC || head.get(5) != OpenSmWire.SUBNET) {
                        channels.incrementAndGet(); // the plug-in's channel: nothing to answer, but INVALID refuses it
                        if (mode == Mode.INVALID && head.get(5) == OpenSmWire.CHANNEL) {
                            ch.write(new OpenSmAnswer.Refused(0, Refusal.INVALID, "a channel frame refused").encode());
                        }
                        continue;
                    }
                    ByteBuffer body = ByteBuffer.allocate(head.getInt(8));
                    while (body.hasRemaining() && ch.read(body) >= 0) {
                        // the subnet
                    }
                    answer(ch, mode, body.flip(), lateMs);
                } catch (IOException | InterruptedException | OpenSmWire.WireException e) {
                    return;
                }
            }
        }, "fake-daemon-" + mode);
        thread.setDaemon(true);
        thread.start();
    }

    /** The connections that were not a routing pass: the plug-in's channel, opened again each second. */
    int channels() {
        return channels.get();
    }

    private static void answer(SocketChannel ch, Mode mode, ByteBuffer subnet, long lateMs)
            throws IOException, InterruptedException, OpenSmWire.WireException {
        OpenSmWire.Subnet sn = OpenSmWire.subnet(subnet);
        int entries = 1;
        for (OpenSmWire.SwitchEntry e : sn.switches()) {
            entries = Math.max(entries, e.lid() + 1);
        }
        for (OpenSmWire.EndPort e : sn.endPorts()) {
            entries = Math.max(entries, e.lid() + 1);
        }
        long[] guids = sn.switches().stream().mapToLong(OpenSmWire.SwitchEntry::guid).toArray();
        byte[][] rows = new byte[guids.length][entries];
        switch (mode) {
            case GARBAGE -> ch.write(ByteBuffer.wrap("HTTP/1.1 200 OK\r\n\r\nnot tables".getBytes(StandardCharsets.US_ASCII)));
            case LATE -> Thread.sleep(lateMs);
            case HUGE -> ch.write(header(OpenSmWire.TABLES, 0x7fff_ffff).flip());
            // a delta against tables the plug-in does not hold, then one against those it holds, out of range
            case STALE_DELTA -> ch.write(new OpenSmAnswer.Delta(sn.seq(), 7, sn.held() + 1, guids.length, entries,
                    List.of()).encode());
            case BAD_DELTA -> ch.write(new OpenSmAnswer.Delta(sn.seq(), 7, sn.held(), guids.length, entries, List.of(
                    new OpenSmWire.SwitchChanges(guids[0], new int[] {entries}, new byte[] {1}))).encode());
            case BAD_PORT -> {
                for (byte[] row : rows) {
                    Arrays.fill(row, (byte) 200);
                }
                ch.write(new OpenSmAnswer.Tables(sn.seq(), 1, guids, rows, entries).encode());
            }
            case UNKNOWN_SWITCH -> {
                guids[0] ^= 0x5a5a; // a switch OpenSM does not have
                ch.write(new OpenSmAnswer.Tables(sn.seq(), 1, guids, rows, entries).encode());
            }
            case NOT_READY -> ch.write(new OpenSmAnswer.Refused(sn.seq(), Refusal.NOT_READY, "no tables yet").encode());
            case INVALID -> ch.write(new OpenSmAnswer.Refused(sn.seq(), Refusal.INVALID, "a switch not admitted")
                    .encode());
            case MOVING -> ch.write(new OpenSmAnswer.Refused(sn.seq(), Refusal.MOVING, "leadership is moving here")
                    .encode());
            case UNKNOWN_CODE -> {
                byte[] reason = "a later release's code".getBytes(StandardCharsets.UTF_8);
                ch.write(header(OpenSmWire.REFUSED, OpenSmWire.REFUSED_HEAD + reason.length).putLong(sn.seq())
                        .putShort((short) 99).put(reason).flip());
            }
            case CLOSES -> {
                // nothing: the connection closes unanswered
            }
        }
    }

    private static ByteBuffer header(int type, int length) {
        return ByteBuffer.allocate(OpenSmWire.HEADER_BYTES + (length < 1 << 16 ? length : 0)).putInt(OpenSmWire.MAGIC)
                .put((byte) OpenSmWire.VERSION).put((byte) type).putShort((short) 0).putInt(length);
    }

    @Override
    public void close() throws IOException {
        server.close();
        thread.interrupt();
        Files.deleteIfExists(socket);
    }
}

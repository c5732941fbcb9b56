package org.fabricmanager.southbound;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.fabricmanager.southbound.RawFrames.frame;
import static org.fabricmanager.southbound.RawFrames.lastError;
import static org.fabricmanager.southbound.RawFrames.readUntilClosed;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.concurrent.atomic.AtomicReference;
import org.fabricmanager.southbound.Message.ErrorReport;
import org.fabricmanager.southbound.Message.Hello;
import org.junit.jupiter.api.Test;

/**
 * A standby's redirect (ERROR NOT_LEADER) names the active manager in its text and, for agents that announce
 * {@link Protocol#FEATURE_REDIRECT_FIELDS}, in appended host and port fields read as {@link ErrorReport#activeManager()}.
 */
class StandbyRedirectTest {

    @Test
    void redirectFieldsSurviveARoundTripAndTheirAbsenceIsTheOlderForm() {
        ErrorReport withFields = ParkedHellos.notLeader(7, "[fd00::2]:7654", true);
        assertThat(withFields.redirect()).isEqualTo(InetSocketAddress.createUnresolved("fd00::2", 7654));
        ByteBuf buf = Unpooled.buffer();
        SouthboundCodec.encode(withFields, buf);
        buf.skipBytes(4);
        int full = buf.readableBytes();
        int fields = 1 + "fd00::2".length() + 2;
        ErrorReport decoded = (ErrorReport) SouthboundCodec.decode(buf.slice(buf.readerIndex(), full));
        assertThat(decoded).isEqualTo(withFields);
        assertThat(decoded.activeManager()).contains(InetSocketAddress.createUnresolved("fd00::2", 7654));

        ByteBuf old = Unpooled.buffer();
        SouthboundCodec.encode(ParkedHellos.notLeader(7, "[fd00::2]:7654", false), old);
        old.skipBytes(4);
        assertThat(old.readableBytes()).as("no fields: the frame of earlier releases").isEqualTo(full - fields);
        assertThat(old).isEqualTo(buf.slice(buf.readerIndex(), full - fields));
        ErrorReport textOnly = (ErrorReport) SouthboundCodec.decode(old);
        assertThat(textOnly.redirect()).isNull();
        assertThat(textOnly.activeManager()).as("a standby that predates the fields: its text")
                .contains(InetSocketAddress.createUnresolved("fd00::2", 7654));
        for (int cut = full - fields + 1; cut < full; cut++) {
            ByteBuf partial = buf.slice(buf.readerIndex(), cut);
            assertThatThrownBy(() -> SouthboundCodec.decode(partial)).as("cut at %d", cut)
                    .isInstanceOfSatisfying(ProtocolException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.MALFORMED));
        }
    }

    @Test
    void onlyNotLeaderCarriesAUsableAddress() {
        assertThat(ParkedHellos.notLeader(1, "", true).redirect()).as("no leader known").isNull();
        assertThat(ParkedHellos.notLeader(1, "", true).activeManager()).isEmpty();
        assertThat(ParkedHellos.notLeader(1, "host:0", true).activeManager()).isEmpty();
        assertThat(ParkedHellos.notLeader(1, "a b:7654", true).activeManager()).isEmpty();
        assertThat(new ErrorReport(1, ErrorCode.MALFORMED.code(), 0, "mgr1:7654").activeManager()).isEmpty();
        assertThatThrownBy(() -> new ErrorReport(1, ErrorCode.MALFORMED.code(), 0, "x",
                InetSocketAddress.createUnresolved("mgr1", 7654))).isInstanceOf(IllegalArgumentException.class);
        // fields after another error's message are trailing bytes
        ByteBuf buf = Unpooled.buffer();
        SouthboundCodec.encode(ParkedHellos.notLeader(3, "mgr1:7654", true), buf);
        buf.setShort(4 + 5, ErrorCode.SHUTTING_DOWN.code());
        buf.skipBytes(4);
        assertThatThrownBy(() -> SouthboundCodec.decode(buf)).hasMessageContaining("unexpected bytes after the payload");
    }

    @Test
    void onlyAHostAndPortAreReadFromTheText() {
        assertThat(ManagerAddress.parse("mgmt2:7654")).contains(InetSocketAddress.createUnresolved("mgmt2", 7654));
        assertThat(ManagerAddress.parse("[::1]:7654")).contains(InetSocketAddress.createUnresolved("::1", 7654));
        for (String bad : new String[] {"", ":7654", "mgmt2:", "mgmt2:0", "mgmt2:65536", "mgmt2:123456", "mgmt2:-1",
                "mgmt 2:7654", "mgmt2:76a4", "x/y:1", "a".repeat(300) + ":1", null}) {
            assertThat(ManagerAddress.parse(bad)).as("'%s'", bad).isEmpty();
        }
    }

    @Test
    void aStandbyAppendsTheFieldsOnlyForAgentsThatReadThem() throws Exception {
        AtomicReference<String> leader = new AtomicReference<>("mgr2.example:7654");
        SouthboundServer standby = SouthboundServer.redirecting(
                new SouthboundSettings("127.0.0.1", 0, 65_536, 2_000, 5_000, 15_000, 1), leader::get,
                new ParkedHellos(200), null);
        int port = standby.start().getPort();
        try {
            ErrorReport old = answer(port, 0);
            assertThat(old.message()).isEqualTo("mgr2.example:7654");
            assertThat(old.redirect()).as("an agent without the feature gets the text alone").isNull();
            ErrorReport typed = answer(port, Protocol.FEATURE_REDIRECT_FIELDS);
            assertThat(typed.message()).isEqualTo("mgr2.example:7654");
            assertThat(typed.redirect()).isEqualTo(InetSocketAddress.createUnresolved("mgr2.example", 7654));
            leader.set(null);
            ErrorReport none = answer(port, Protocol.FEATURE_REDIRECT_FIELDS);
            assertThat(none.message()).as("no leader within the longest hold").isEmpty();
            assertThat(none.activeManager()).isEmpty();
        } finally {
            standby.close();
        }
    }

    private static ErrorReport answer(int port, int features) throws Exception {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write(frame(new Hello(9, 3, 3, 0x10L, 1, 2, 65_536, 0, 0, TableHash.EMPTY, "s", features)));
            ErrorReport e = lastError(readUntilClosed(s));
            assertThat(e.errorCode()).contains(ErrorCode.NOT_LEADER);
            assertThat(e.txid()).isEqualTo(9);
            return e;
        }
    }
}
